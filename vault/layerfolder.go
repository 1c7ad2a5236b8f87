package vault

import (
	"fmt"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/fault"
)

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
		folder, ok := layerFromDir(m.Path)
		if !ok || folder == m.Layer {
			continue
		}
		out = append(out, &Diagnostic{Path: m.Path, Line: v.fieldLine(m.Path, "layer"), Field: "layer", Severity: parser.SeverityWarning,
			Err: fmt.Errorf("layer %s %w %s/ (layer %s): set layer: %s, or move the file to %s/",
				m.Layer, ErrLayerFolder, folder.Dir(), folder, folder, m.Layer.Dir())})
	}
	return out
}
