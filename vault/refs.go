package vault

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/diskwrite"
)

// Limits on a memory's refs. Every ref costs work in each staleness check
// of the memory (matching every changed path of every commit walked), so
// the caps keep one memory's share of that work small whatever its file
// says (docs/hardening.md). A write past them is refused with an error
// naming the limit; a file past them is loaded with the refs that fit,
// and lint names the rest.
const (
	// MaxRefs is the most refs one memory may have: far more than the
	// few files a memory is about.
	MaxRefs = 64
	// MaxRefGlobstars is the most "**" segments one ref may have
	// ("cmd/**/internal/**/*.go" has two).
	MaxRefGlobstars = 4
	// MaxRefBytes is the longest ref, in bytes: a repository path's limit
	// (MaxPathBytes) plus room for "#Symbol".
	MaxRefBytes = diskwrite.MaxPathBytes + 256
)

// CheckRefs returns an error wrapping ErrInvalid, naming the limit, when
// refs are past MaxRefs or one of them past MaxRefBytes or
// MaxRefGlobstars; nil otherwise. Its work is linear in the refs' size.
func CheckRefs(refs []string) error {
	if len(refs) > MaxRefs {
		return fmt.Errorf("%w: refs: %d refs, limit %d (vault.MaxRefs): name the files and folders the memory is about, or one folder or glob for many", ErrInvalid, len(refs), MaxRefs)
	}
	for _, r := range refs {
		if err := checkRef(r); err != nil {
			return fmt.Errorf("%w: refs: %w", ErrInvalid, err)
		}
	}
	return nil
}

// checkRef says which limit one ref is past, or nil.
func checkRef(r string) error {
	if len(r) > MaxRefBytes {
		return fmt.Errorf("a ref of %d bytes, limit %d (vault.MaxRefBytes)", len(r), MaxRefBytes)
	}
	if n := globstars(r); n > MaxRefGlobstars {
		return fmt.Errorf("ref %q has %d \"**\" segments, limit %d (vault.MaxRefGlobstars)", r, n, MaxRefGlobstars)
	}
	return nil
}

// globstars counts the "**" segments of a ref, the ones that match any
// number of folders.
func globstars(r string) int {
	n := 0
	for seg := range strings.SplitSeq(strings.TrimSpace(r), "/") {
		if seg == "**" {
			n++
		}
	}
	return n
}

// capRefs keeps the refs of a file within the limits: those past
// MaxRefBytes or MaxRefGlobstars are dropped, and the ones after the
// first MaxRefs that remain. problems says what was dropped, one line
// each for the first few refs and one for the count.
func capRefs(refs []string) (kept []string, problems []string) {
	const maxNamed = 8 // a hostile file must not turn into thousands of warnings
	dropped := 0
	for _, r := range refs {
		if err := checkRef(r); err != nil {
			if dropped++; dropped <= maxNamed {
				problems = append(problems, err.Error()+": ignored")
			}
			continue
		}
		kept = append(kept, r)
	}
	if dropped > maxNamed {
		problems = append(problems, fmt.Sprintf("%d more refs past the limits ignored", dropped-maxNamed))
	}
	if len(kept) > MaxRefs {
		problems = append(problems, fmt.Sprintf("%d refs, limit %d (vault.MaxRefs): the %d after the first %d are ignored", len(kept), MaxRefs, len(kept)-MaxRefs, MaxRefs))
		kept = kept[:MaxRefs:MaxRefs]
	}
	return kept, problems
}

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
