package vault

import (
	"slices"
)

// Change tells subscribers what an index update touched, so a server can
// notify its clients without diffing the vault itself or keeping a copy of
// its ids.
type Change struct {
	// IDs are the memories added, changed, marked stale or removed, each
	// once, sorted: Added, Changed and Removed together. Empty when Full
	// is set.
	IDs []string
	// Added are the ids the index did not hold before the update and
	// holds after it; Removed the ids it held before and no longer does
	// (a file deleted, or its id changed by hand: the old id is removed,
	// the new one added). Changed are the ids held before and after whose
	// entry changed (an edit, a file that no longer parses marked stale).
	// Each list is sorted; an id is in exactly one of them.
	Added, Changed, Removed []string
	// Full is set after a whole-vault reload: anything may have changed,
	// and the three lists are empty.
	Full bool
}

// Subscribe calls fn after every index update that changed something: a
// write through this vault, a Refresh of edited files, a Reload. fn runs on
// the updating goroutine after the vault's locks are released, so it may
// read the vault but should return quickly. cancel stops the calls.
func (v *Vault) Subscribe(fn func(Change)) (cancel func()) {
	v.subMu.Lock()
	defer v.subMu.Unlock()
	if v.subs == nil {
		v.subs = make(map[int]func(Change))
	}
	n := v.nextSub
	v.nextSub++
	v.subs[n] = fn
	return func() {
		v.subMu.Lock()
		delete(v.subs, n)
		v.subMu.Unlock()
	}
}

func (v *Vault) publish(c Change) {
	v.mu.Lock()
	v.changedAt = v.now()
	v.mu.Unlock()
	v.subMu.Lock()
	fns := make([]func(Change), 0, len(v.subs))
	for _, fn := range v.subs {
		fns = append(fns, fn)
	}
	v.subMu.Unlock()
	for _, fn := range fns {
		fn(c)
	}
}

func dedupe(ids []string) []string {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Transition names how a memory went from before to after, both
// present, as history's diff and the session digest tell it:
// "superseded" or "archived" when its status became so, else "changed".
func Transition(before, after *Memory) string {
	switch {
	case after.Status == StatusSuperseded && before.Status != StatusSuperseded:
		return "superseded"
	case after.Status == StatusArchived && before.Status != StatusArchived:
		return "archived"
	default:
		return "changed"
	}
}

// NewSupersedes lists, as Refs without titles, the ids after supersedes
// that before did not; all of them when before is nil (a new memory).
func NewSupersedes(before, after *Memory) []Ref {
	var out []Ref
	for _, id := range after.Supersedes {
		if before == nil || !slices.Contains(before.Supersedes, id) {
			out = append(out, Ref{ID: id})
		}
	}
	return out
}
