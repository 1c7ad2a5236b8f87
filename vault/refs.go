package vault

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/memory"
)

// acceptRefs adds proposed refs to have as far as MaxRefs allows; the
// ones left over are still reported as proposed.
func acceptRefs(have, proposed []string) (refs, left []string) {
	n := min(len(proposed), max(MaxRefs-len(have), 0))
	if refs, left = append(slices.Clone(have), proposed[:n]...), proposed[n:]; len(left) == 0 {
		left = nil
	}
	return refs, left
}

// NeverExistedRefs turns what the repository's history says (per memory
// id, the refs whose path never existed: staleness.Tracker.NeverExisted)
// into lint warnings at each memory's refs line. A memory no longer in the
// vault is skipped.
func (v *Vault) NeverExistedRefs(never map[string][]string) []*Diagnostic {
	var out []*Diagnostic
	for _, id := range slices.Sorted(maps.Keys(never)) {
		m, err := v.Get(id)
		if err != nil {
			continue
		}
		line := v.fieldLine(m.Path, "refs")
		for _, ref := range never[id] {
			out = append(out, &Diagnostic{Path: m.Path, Line: line, Field: "refs", Severity: parser.SeverityWarning,
				Err: fmt.Errorf("ref %q %w: check its spelling (its staleness is unknown)", ref, ErrRefNeverExisted)})
		}
	}
	return out
}

// fieldLine reads the file line of a front-matter key of the memory file
// rel now; 0 when the file cannot be read or has no such key.
func (v *Vault) fieldLine(rel, field string) int {
	data, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(rel)))
	if err != nil || int64(len(data)) > v.maxFileSize {
		return 0
	}
	doc, _ := parser.Parse(rel, data)
	if doc == nil {
		return 0
	}
	return doc.FieldLine(field)
}

// ErrLayerFolder is wrapped by the lint warning of a memory whose layer
// key names another layer than the folder it is in.
var ErrLayerFolder = fault.New(fault.Invalid, "does not match the folder")

// LayerFolderMismatches warns, at the layer line, about every memory
// whose `layer` says one layer while its file is in another layer's
// folder (a hand-written `layer: project` in meta/): memvault serves the
// key's layer, but the folder decides what git keeps (transient/ is
// ignored) and where a person looks for it.
func (v *Vault) LayerFolderMismatches() []*Diagnostic {
	var out []*Diagnostic
	for _, m := range v.All() {
		folder, ok := memory.LayerFromDir(m.Path)
		if !ok || folder == m.Layer {
			continue
		}
		out = append(out, &Diagnostic{Path: m.Path, Line: v.fieldLine(m.Path, "layer"), Field: "layer", Severity: parser.SeverityWarning,
			Err: fmt.Errorf("layer %s %w %s/ (layer %s): set layer: %s, or move the file to %s/",
				m.Layer, ErrLayerFolder, folder.Dir(), folder, folder, m.Layer.Dir())})
	}
	return out
}
