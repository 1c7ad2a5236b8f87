package vault

import (
	"cmp"
	"slices"
	"time"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/rank"
)

// ListQuery selects the memories Set.List returns.
type ListQuery struct {
	// Layers keeps the memories of these layers; empty keeps every layer.
	Layers []Layer
	// Statuses keeps the memories whose state now is one of these:
	// active (in force), archived, superseded, or, beyond the statuses a
	// file may declare, expired and future (not yet effective), as
	// Result.State names them. Empty keeps every state.
	Statuses []Status
	// Tags keeps the memories carrying at least one of these tags
	// (case-insensitive, a leading # ignored); empty keeps all.
	Tags []string
	// Limit caps the number of results; 0 returns them all.
	Limit int
}

// List returns the memories of every vault of the set that q selects,
// most recently updated first (ties by id, the project vault first). It
// ranks nothing and hides nothing: each result carries its state at the
// set's now, with supersession across the vaults applied as Recall
// applies it, the memories it supersedes and the in-force ones that
// supersede it, and the start of its text as the snippet. Score and
// PossibleConflict are left empty: rival rules are judged among the
// answers to a question (Recall), not over a whole vault.
func (s *Set) List(q ListQuery) []SetResult {
	at := s.now()
	vaults := make([]setVault, 0, len(s.members))
	var out []SetResult
	for _, m := range s.members {
		vaults = append(vaults, setVault{name: m.Name, v: m.Vault, live: true})
		for _, r := range m.Vault.list(q, at) {
			out = append(out, SetResult{Result: r, Vault: m.Name})
		}
	}
	out = applyCrossSupersession(out, s.crossSuccessors(vaults), vaults, at, true)
	if len(q.Statuses) > 0 {
		out = slices.DeleteFunc(out, func(r SetResult) bool { return !slices.Contains(q.Statuses, Status(r.State)) })
	}
	slices.SortStableFunc(out, func(a, b SetResult) int {
		return cmp.Or(b.Memory.UpdatedAt.Compare(a.Memory.UpdatedAt), cmp.Compare(a.Memory.ID, b.Memory.ID))
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	// Snippets last, for the memories returned only: each derives the
	// memory's plain text from its body.
	for i := range out {
		out[i].Snippet = index.Snippet(out[i].Memory.PlainText(), nil, DefaultSnippetRunes)
	}
	return out
}

// list returns the memories of v in q's layers and tags with their state
// at instant at, in no particular order; the ones not yet created at at
// are left out, as Recall leaves them out. Snippets are left to List.
func (v *Vault) list(q ListQuery, at time.Time) []Result {
	sel := Query{Layers: q.Layers}
	tags := rank.TagSet(q.Tags)
	v.mu.RLock()
	defer v.mu.RUnlock()
	succ := v.successors()
	var out []Result
	for i, m := range v.entries {
		if !sel.selects(m, tags) {
			continue
		}
		state := v.stateLocked(index.DocID(i), m, at, succ)
		if state == "unborn" {
			continue
		}
		out = append(out, v.resultLocked(m, state, at, succ, true))
	}
	return out
}
