package main

import (
	"slices"
	"sync"
	"time"

	"github.com/memvault/memvault/vault"
)

// Within one vault, vault.Recall hides a memory that an in-force memory
// supersedes and marks rival rules, but it cannot see the other vault: a
// project rule that supersedes a user preference names an id its own vault
// does not hold. The functions here apply the same rules (docs/ranking.md)
// to the results merged from both vaults.

// supersedeIndex caches, per served vault, the memories that supersede
// something. Supersession is rare, so the list is short, but finding it
// means reading every memory: it is rebuilt only after the vault changed.
type supersedeIndex struct {
	mu    sync.Mutex
	lists map[*vault.Vault]*supList
}

// supList is one vault's cached list; dirty means a change came in since
// it was built.
type supList struct {
	dirty bool
	ms    []*vault.Memory
}

// of returns the memories of v that list others in supersedes.
func (x *supersedeIndex) of(v *vault.Vault) []*vault.Memory {
	if x == nil {
		return superseding(v)
	}
	x.mu.Lock()
	l, ok := x.lists[v]
	if !ok {
		if x.lists == nil {
			x.lists = map[*vault.Vault]*supList{}
		}
		l = &supList{dirty: true}
		x.lists[v] = l
		// Served vaults live as long as the server: the subscription
		// does too.
		v.Subscribe(func(vault.Change) {
			x.mu.Lock()
			l.dirty = true
			x.mu.Unlock()
		})
	}
	if !l.dirty {
		ms := l.ms
		x.mu.Unlock()
		return ms
	}
	l.dirty = false
	x.mu.Unlock()
	// Read outside the lock; a change meanwhile sets dirty again, so the
	// next call reads once more.
	ms := superseding(v)
	x.mu.Lock()
	l.ms = ms
	x.mu.Unlock()
	return ms
}

// superseding lists the memories of v that list others in supersedes.
func superseding(v *vault.Vault) []*vault.Memory {
	var out []*vault.Memory
	for _, m := range v.All() {
		if len(m.Supersedes) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// scopedVault is one vault a recall reads: a served vault (cached), or
// its past state for as_of (not cached: it is read once).
type scopedVault struct {
	scope  string
	v      *vault.Vault
	cached bool
}

// crossSuccessors maps the id of a memory in one vault to the memories of
// the other vaults that list it in supersedes.
func crossSuccessors(vaults []scopedVault, x *supersedeIndex) map[string][]*vault.Memory {
	if len(vaults) < 2 {
		return nil
	}
	var out map[string][]*vault.Memory
	for _, a := range vaults {
		var ms []*vault.Memory
		if a.cached {
			ms = x.of(a.v)
		} else {
			ms = superseding(a.v)
		}
		for _, m := range ms {
			for _, id := range m.Supersedes {
				if _, err := a.v.Get(id); err == nil {
					continue // within its own vault: vault.Recall handles it
				}
				for _, b := range vaults {
					if b.v == a.v {
						continue
					}
					if _, err := b.v.Get(id); err == nil {
						if out == nil {
							out = map[string][]*vault.Memory{}
						}
						out[id] = append(out[id], m)
						break
					}
				}
			}
		}
	}
	return out
}

// applyCrossSupersession labels the results that a memory of another
// vault supersedes as vault.Recall labels them within a vault: superseded
// once an active successor that exists at at is in force (a successor
// whose effective_at is still to come does not replace the rule early),
// hidden unless includeInactive, naming the successors in SupersededBy
// (with includeInactive, as vault.Recall does). It also gives titles to
// the Supersedes refs that point into another vault.
func applyCrossSupersession(rs []scopedResult, succ map[string][]*vault.Memory, vaults []scopedVault, at time.Time, includeInactive bool) []scopedResult {
	if len(vaults) < 2 {
		return rs
	}
	out := make([]scopedResult, 0, len(rs))
	gone := map[string]bool{} // no longer active: not a rival of anything
	for _, r := range rs {
		replaced := false
		for _, sm := range succ[r.Memory.ID] {
			if sm.Status != vault.StatusActive || at.Before(sm.CreatedAt) || !sm.InForce(at) {
				continue
			}
			replaced = true
			if includeInactive {
				r.SupersededBy = append(slices.Clip(r.SupersededBy), vault.Ref{ID: sm.ID, Title: sm.Title})
			}
		}
		if replaced && r.State == string(vault.StatusActive) {
			r.State = string(vault.StatusSuperseded)
			r.PossibleConflict = nil
			gone[r.Memory.ID] = true
		}
		if r.State != string(vault.StatusActive) && !includeInactive {
			continue
		}
		if refs := r.Supersedes; slices.ContainsFunc(refs, func(ref vault.Ref) bool { return ref.Title == "" }) {
			r.Supersedes = slices.Clone(refs)
			for i, ref := range r.Supersedes {
				if ref.Title == "" {
					r.Supersedes[i].Title = titleIn(vaults, ref.ID)
				}
			}
		}
		out = append(out, r)
	}
	if len(gone) > 0 {
		for i := range out {
			if pc := out[i].PossibleConflict; slices.ContainsFunc(pc, func(id string) bool { return gone[id] }) {
				out[i].PossibleConflict = slices.DeleteFunc(slices.Clone(pc), func(id string) bool { return gone[id] })
			}
		}
	}
	return out
}

// titleIn finds a memory's title in any of the vaults; "" when none has it.
func titleIn(vaults []scopedVault, id string) string {
	for _, sv := range vaults {
		if m, err := sv.v.Get(id); err == nil {
			return m.Title
		}
	}
	return ""
}

// markCrossConflicts flags pairs of active rules from different vaults
// that look like rivals on one subject, by vault.Recall's criteria:
// strongly overlapping titles, or a shared tag with some title overlap, or
// (rules in two languages) a mostly shared tag set with a little title
// overlap, and neither superseding the other. Pairs within one vault were
// judged by that vault; pairs marked already are left as they are.
func markCrossConflicts(rs []scopedResult) {
	ms := make([]*vault.Memory, len(rs))
	for i := range rs {
		ms[i] = rs[i].Memory
	}
	consider := func(i, j int) bool {
		return rs[i].scope != rs[j].scope && // else judged by its vault
			!slices.Contains(rs[i].PossibleConflict, rs[j].Memory.ID) && // marked already
			rs[i].State == string(vault.StatusActive) && rs[j].State == string(vault.StatusActive)
	}
	for _, p := range vault.RivalPairs(ms, consider) {
		i, j := p[0], p[1]
		rs[i].PossibleConflict = append(slices.Clip(rs[i].PossibleConflict), ms[j].ID)
		rs[j].PossibleConflict = append(slices.Clip(rs[j].PossibleConflict), ms[i].ID)
	}
}
