package vault

import (
	"context"
	"fmt"
	"slices"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/title"
)

// dedupCandidates is how many recall hits are compared with a new title.
const dedupCandidates = 10

// nearDuplicate finds an active memory of the given layer whose title is
// near-identical to title (see title.Title.Same), leaving out the ids in exempt:
// models often remember the same thing twice, and one memory that evolves
// is better than two that drift apart. The rule is one; where the
// candidates come from is the vault's mode: the best recall hits for the
// title, or, in a headers-only vault, which has no index to recall with,
// every memory of the layer (which finds whatever the recall finds among
// its hits, and also a same-titled memory ranked below them).
func (v *Vault) nearDuplicate(title string, layer Layer, exempt []string) *Memory {
	if layer == 0 {
		layer = Project
	}
	want := newTitleSig(title)
	same := func(m *Memory, sig titleSig) bool {
		return !slices.Contains(exempt, m.ID) && want.Same(sig)
	}
	if v.headersOnly {
		return v.sameTitleScan(layer, same)
	}
	for _, r := range v.Recall(Query{Text: title, Limit: dedupCandidates + len(exempt), Layers: []Layer{layer}}) {
		if r.State == string(StatusActive) && same(r.Memory, newTitleSig(r.Memory.Title)) {
			return r.Memory
		}
	}
	return nil
}

// sameTitleScan returns a copy of the first active memory of layer that
// same accepts, every memory of the layer a candidate, with the title
// signatures the headers-only load computed.
func (v *Vault) sameTitleScan(layer Layer, same func(*Memory, titleSig) bool) *Memory {
	at := v.now()
	v.mu.RLock()
	defer v.mu.RUnlock()
	succ := v.successors()
	for id, m := range v.entries {
		if m == nil || m.Layer != layer {
			continue
		}
		if v.stateLocked(index.DocID(id), m, at, succ) != string(StatusActive) {
			continue
		}
		var sig titleSig
		if sigs := v.load.titleSigs; id < len(sigs) && sigs[id].mem == m {
			sig = sigs[id].sig
		} else {
			sig = newTitleSig(m.Title) // written since the load
		}
		if same(m, sig) {
			return m.Clone()
		}
	}
	return nil
}

// titleSig is a title as the same-title rule compares it (vault/title),
// computed once.
type titleSig = title.Title

func newTitleSig(s string) titleSig { return title.New(s) }

// DuplicateError refuses a Remember whose title is the same as, or
// near-identical to, the title of an active memory in the same layer of
// the target vault. It names that memory so the caller can change it
// instead. It wraps ErrDuplicate.
type DuplicateError struct {
	ID      string // the existing memory
	Version int    // its current version: the expected version of an update
	Title   string
	Path    string // vault-relative
	Vault   string // the member holding it: ProjectVault or UserVault
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("an active memory in the %s vault has the same or a near-identical title: %q (id %s, version %d, %s); "+
		"nothing was written. Update that memory with expected version %d, supersede it (list %s in supersedes), or choose a distinct title",
		e.Vault, e.Title, e.ID, e.Version, e.Path, e.Version, e.ID)
}

// Unwrap returns ErrDuplicate.
func (e *DuplicateError) Unwrap() error { return ErrDuplicate }

// Remembered reports a Remember: the write and the vault it went to.
type Remembered struct {
	WriteResult
	// Vault is the name of the member written.
	Vault string
}

// Remember adds a new memory to the vault that Target picks for its layer
// and scope, as one commit in that vault's repository. It never changes
// an existing memory's text:
//
//   - An active memory of the same layer in that vault whose title is the
//     same or near-identical (sameTitle) refuses the write with a
//     *DuplicateError naming it, unless the new memory lists it in
//     supersedes: superseding a same-titled rule is how it is replaced.
//   - Supersedes may name memories of any vault of the set. The target
//     vault's own are marked superseded in the same commit. Those another
//     vault holds are recorded in the new memory's supersedes (and the
//     commit's trailers) but their files are left alone: marking them would
//     be a second commit in another repository, and would hide a user
//     preference in every other project, and before a successor with a
//     later effective_at applies. Recall applies them across the set.
//   - An id no vault holds is refused with ErrNotFound; nothing is written.
func (s *Set) Remember(ctx context.Context, n NewMemory, scope string, by Author) (Remembered, error) {
	target, err := s.Target(n.Layer, scope)
	if err != nil {
		return Remembered{}, err
	}
	v := target.Vault
	var foreign map[string]bool
	for _, id := range n.Supersedes {
		if _, err := v.Get(id); err == nil || !s.heldElsewhere(v, id) {
			continue // the target's own, or unknown: Create marks or refuses it
		}
		if foreign == nil {
			foreign = map[string]bool{}
		}
		foreign[id] = true
	}
	check := func(n *NewMemory) error {
		if dup := v.nearDuplicate(n.Title, n.Layer, n.Supersedes); dup != nil {
			return &DuplicateError{ID: dup.ID, Version: dup.Version, Title: dup.Title, Path: dup.Path, Vault: target.Name}
		}
		return nil
	}
	res, err := v.create(ctx, n, by, createOptions{foreign: foreign, check: check})
	if err != nil {
		return Remembered{}, err
	}
	return Remembered{WriteResult: res, Vault: target.Name}, nil
}
