package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
)

// Tracker tells which vault files version control records. When two files
// carry one id, the tracked one is the memory: an untracked file (dropped
// in by a tool, unpacked from an archive) cannot take over a committed
// memory's id by sorting first. cmd/memvault implements it with the
// repository's index.
type Tracker interface {
	// Tracked reports which of the vault-relative slash paths are tracked.
	Tracked(ctx context.Context, rels []string) (map[string]bool, error)
}

// dupIDError is the problem of a file skipped because another file
// carries its id.
type dupIDError struct {
	id, other    string
	otherTracked bool // other won because it is tracked and this file is not
}

func (e *dupIDError) Error() string {
	if e.otherTracked {
		return fmt.Sprintf("%v %q: already used by %s, which git tracks; this untracked file is skipped", ErrDuplicateID, e.id, e.other)
	}
	return fmt.Sprintf("%v %q: already used by %s; this file is skipped", ErrDuplicateID, e.id, e.other)
}

func (e *dupIDError) Unwrap() error { return ErrDuplicateID }

func duplicateDiag(m *Memory, other string) *Diagnostic {
	return &Diagnostic{Path: m.Path, Line: m.FieldLine("id"), Field: "id", Severity: parser.SeverityError,
		Err: &dupIDError{id: m.ID, other: other}}
}

// preferTracked gives each id carried by several files to a tracked one
// when the file that won it by path order is not tracked. skipped are the
// memories builder.add left out as duplicates. Without a tracker, or when
// it fails, path order stands: writes to those ids are refused anyway
// (checkUnambiguous). It returns the DocIDs given to another file, in the
// order they were (the index cache replays them).
func (v *Vault) preferTracked(ctx context.Context, skipped []*Memory) (swaps []index.DocID) {
	if v.ports.tracker == nil || len(skipped) == 0 {
		return nil
	}
	v.mu.RLock()
	var rels []string
	for _, m := range skipped {
		if d, ok := v.byID[m.ID]; ok {
			rels = append(rels, m.Path, v.entries[d].Path)
		}
	}
	v.mu.RUnlock()
	tracked, err := v.ports.tracker.Tracked(ctx, dedupeIDs(rels))
	if err != nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	swapped := false
	for _, m := range skipped {
		d, ok := v.byID[m.ID]
		if !ok {
			continue
		}
		w := v.entries[d]
		if tracked[w.Path] || !tracked[m.Path] {
			continue
		}
		// m, tracked, takes the id from w, untracked.
		v.dropNamesLocked(w, d)
		delete(v.byPath, w.Path)
		v.entries[d] = m
		v.byPath[m.Path] = d
		v.addNamesLocked(m, d)
		if v.ix != nil { // a headers-only vault has no index
			v.ix.Put(d, indexDoc(m))
		}
		swapped = true
		swaps = append(swaps, d)
		// Every other carrier of the id now names m; w says why it lost.
		for rel, ds := range v.diags {
			for i, x := range ds {
				var e *dupIDError
				if errors.As(x.Err, &e) && e.id == m.ID {
					c := *x
					c.Err = &dupIDError{id: e.id, other: m.Path, otherTracked: !tracked[rel]}
					ds[i] = &c
				}
			}
			if rel == m.Path {
				ds = slices.DeleteFunc(ds, func(x *Diagnostic) bool {
					var e *dupIDError
					return errors.As(x.Err, &e) && e.id == m.ID
				})
				if len(ds) == 0 {
					delete(v.diags, rel)
				} else {
					v.diags[rel] = ds
				}
			}
		}
		lost := duplicateDiag(w, m.Path)
		lost.Err.(*dupIDError).otherTracked = true
		v.diags[w.Path] = append(v.diags[w.Path], lost)
	}
	if swapped {
		v.rebuildSuccLocked()
	}
	return swaps
}

// checkUnambiguous refuses a write to the memory id, read from rel, when
// another file of the vault carries the same id: which of the two a write
// would change, and a commit record, is then a guess. The other files are
// read again, so one renamed or removed since the load does not count.
func (v *Vault) checkUnambiguous(id, rel string) error {
	v.mu.RLock()
	var others []string
	for path, ds := range v.diags {
		for _, d := range ds {
			var e *dupIDError
			if path != rel && errors.As(d.Err, &e) && e.id == id {
				others = append(others, path)
			}
		}
	}
	v.mu.RUnlock()
	var still []string
	for _, o := range dedupeIDs(others) {
		data, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(o)))
		if err != nil {
			continue
		}
		if m, _ := memory.Parse(o, data, v.now()); m != nil && m.ID == id {
			still = append(still, o)
		}
	}
	if len(still) == 0 {
		return nil
	}
	slices.Sort(still)
	return fmt.Errorf("%w: %s is carried by %s (the memory memvault shows) and by %s; "+
		"memvault does not write to an id two files share: give the other file a new id, or remove it, and try again",
		ErrAmbiguousID, id, rel, strings.Join(still, ", "))
}
