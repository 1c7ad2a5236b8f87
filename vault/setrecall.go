package vault

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/rank"
)

// Within one vault, Recall hides a memory that an in-force memory
// supersedes and marks rival rules, but it cannot see the other vaults: a
// project rule that supersedes a user preference names an id its own vault
// does not hold. Set.Recall applies the same rules (docs/ranking.md) to
// the results merged from every vault of the set.

// SetResult is a recall result with the name of the vault it came from.
type SetResult struct {
	Result
	// Vault is the member's name: ProjectVault or UserVault.
	Vault string
}

// setVault is one vault a recall reads: a member's live vault (whose
// superseding memories the cache may keep), or its past state for an
// as-of in the past (read once, never cached).
type setVault struct {
	name string
	v    *Vault
	live bool
}

// Recall runs q on every vault of the set and merges the results: by
// score, or by update time for an empty query (which lists recent
// memories). Everything is evaluated at q.AsOf, or at the set's now.
//
// An as-of before now reads each vault as it was recorded then (through
// Member.AsOf, when set), so the answer is what was believed at that
// instant and not only what was valid. An as-of at or after now reads the
// live vaults, so memories never recorded (the transient layer) are kept:
// "what applies in a minute" includes the note written a minute ago.
//
// Supersession and rival rules across the vaults are applied as within
// one; with results from two or more vaults and a query text, the
// candidates are ranked again together so that scores compare.
//
// A query past the limits (CheckQuery) is refused with a
// *QueryTooLargeError; once ctx is done the recall stops with its error.
func (s *Set) Recall(ctx context.Context, q Query) ([]SetResult, error) {
	if err := CheckQuery(q.Text); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	now := s.now()
	at := q.AsOf
	if at.IsZero() {
		at = now
	}
	past := AsOfReadsPast(q.AsOf, now)
	vaults := make([]setVault, 0, len(s.members))
	for _, m := range s.members {
		sv := setVault{name: m.Name, v: m.Vault, live: true}
		if past && m.AsOf != nil {
			v, err := m.AsOf(ctx, q.AsOf)
			if err != nil {
				return nil, fmt.Errorf("as_of: read the %s vault at %s: %w", m.Name, q.AsOf.UTC().Format(time.RFC3339), err)
			}
			sv.v, sv.live = v, false
		}
		vaults = append(vaults, sv)
	}
	succ := s.crossSuccessors(vaults)
	vq := q
	vq.AsOf = at
	if !q.IncludeInactive {
		// Each memory another vault supersedes may drop out below: ask
		// for that many more, so the answer still has limit results.
		vq.Limit = limit + len(succ)
	}
	empty := strings.TrimSpace(q.Text) == ""
	var out []SetResult
	for _, sv := range vaults {
		// For a query text each vault gives its ranked pool, unlabelled
		// and uncut: strength, the tail cut and near-duplicates are
		// decided once, on the merged list (finishSet).
		rs, err := sv.v.rank(ctx, vq, rank.DefaultCut(), !empty)
		if err != nil {
			return nil, fmt.Errorf("recall the %s vault: %w", sv.name, err)
		}
		for _, r := range rs {
			out = append(out, SetResult{Result: r, Vault: sv.name})
		}
	}
	out = applyCrossSupersession(out, succ, vaults, at, q.IncludeInactive)
	from := map[string]bool{} // the vaults that answered
	for _, r := range out {
		from[r.Vault] = true
	}
	if empty {
		slices.SortStableFunc(out, func(a, b SetResult) int { return b.Memory.UpdatedAt.Compare(a.Memory.UpdatedAt) })
		if len(out) > limit {
			out = out[:limit]
		}
		if len(from) > 1 {
			MarkCrossConflicts(out)
		}
		return out, nil
	}
	if len(from) > 1 {
		pool := &rankPool{}
		if s.Cache != nil {
			pool = &s.Cache.pool
		}
		out = pool.rescore(q.Text, out, at)
	}
	var texts *rank.TextMemo
	if s.Cache != nil {
		texts = &s.Cache.texts
	}
	return finishSet(out, vaults, q, limit, texts), nil
}

// finishSet orders the results merged from the vaults by score (a
// replaced rule below its successor, across vaults too), labels them
// strong or weak and cuts them as Vault.Recall does its own, then marks
// rival rules among the answers and explains them when q asks.
func finishSet(out []SetResult, vaults []setVault, q Query, limit int, texts *rank.TextMemo) []SetResult {
	slices.SortStableFunc(out, func(a, b SetResult) int { return cmp.Compare(b.Score, a.Score) })
	rs := make([]Result, len(out))
	from := make(map[*Memory]string, len(out))
	for i, r := range out {
		rs[i] = r.Result
		from[r.Memory] = r.Vault
	}
	rs = rank.Finish(rank.SuccessorsFirst(rs), rank.DefaultCut(), limit, texts)
	rank.MarkConflicts(rs, texts)
	out = out[:0]
	for _, r := range rs {
		r.FillSnippet(texts)
		name := from[r.Memory]
		if q.Explain {
			for _, sv := range vaults {
				if sv.name == name {
					r.Explain = sv.v.explain(q.Text, r.Memory.ID)
				}
			}
		}
		out = append(out, SetResult{Result: r, Vault: name})
	}
	return out
}

// AsOfReadsPast reports whether a recall as of asOf reads the vaults as
// recorded then rather than live: when asOf is set and before now. From
// now on, the live vaults answer, evaluated at asOf, so what was never
// recorded (the transient layer) is kept.
func AsOfReadsPast(asOf, now time.Time) bool { return !asOf.IsZero() && asOf.Before(now) }

// crossSuccessors maps the id of a memory in one vault to the memories of
// the other vaults that list it in supersedes.
func (s *Set) crossSuccessors(vaults []setVault) map[string][]*Memory {
	if len(vaults) < 2 {
		return nil
	}
	var out map[string][]*Memory
	for _, a := range vaults {
		var ms []*Memory
		if a.live {
			ms = s.Cache.superseding(a.v)
		} else {
			ms = superseding(a.v)
		}
		for _, m := range ms {
			for _, id := range m.Supersedes {
				if _, err := a.v.Get(id); err == nil {
					continue // within its own vault: Vault.Recall handles it
				}
				for _, b := range vaults {
					if b.v == a.v {
						continue
					}
					if _, err := b.v.Get(id); err == nil {
						if out == nil {
							out = map[string][]*Memory{}
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
// vault supersedes as Vault.Recall labels them within a vault: superseded
// once an active successor that exists at at is in force (a successor
// whose effective_at is still to come does not replace the rule early),
// hidden unless includeInactive, naming the successors in SupersededBy
// (with includeInactive, as Vault.Recall does). It also gives titles to
// the Supersedes refs that point into another vault.
func applyCrossSupersession(rs []SetResult, succ map[string][]*Memory, vaults []setVault, at time.Time, includeInactive bool) []SetResult {
	if len(vaults) < 2 {
		return rs
	}
	out := make([]SetResult, 0, len(rs))
	gone := map[string]bool{} // no longer active: not a rival of anything
	for _, r := range rs {
		replaced := false
		for _, sm := range succ[r.Memory.ID] {
			if sm.Status != StatusActive || at.Before(sm.CreatedAt) || !sm.InForce(at) {
				continue
			}
			replaced = true
			if includeInactive {
				r.SupersededBy = append(slices.Clip(r.SupersededBy), Ref{ID: sm.ID, Title: sm.Title})
			}
		}
		if replaced && r.State == string(StatusActive) {
			r.State = string(StatusSuperseded)
			r.PossibleConflict = nil
			gone[r.Memory.ID] = true
		}
		if r.State != string(StatusActive) && !includeInactive {
			continue
		}
		if refs := r.Supersedes; slices.ContainsFunc(refs, func(ref Ref) bool { return ref.Title == "" }) {
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
func titleIn(vaults []setVault, id string) string {
	for _, sv := range vaults {
		if m, err := sv.v.Get(id); err == nil {
			return m.Title
		}
	}
	return ""
}

// MarkCrossConflicts flags pairs of active rules from different vaults
// that look like rivals on one subject, by Vault.Recall's criteria
// (RivalPairs): strongly overlapping titles, or a shared tag with some
// title overlap, or (rules in two languages) a mostly shared tag set with
// a little title overlap, and neither superseding the other. Pairs within
// one vault were judged by that vault; pairs marked already are left as
// they are. Set.Recall marks its results; the digest (vault/digest)
// marks the results of its recalls together.
func MarkCrossConflicts(rs []SetResult) {
	ms := make([]*Memory, len(rs))
	for i := range rs {
		ms[i] = rs[i].Memory
	}
	consider := func(i, j int) bool {
		return rs[i].Vault != rs[j].Vault && // else judged by its vault
			!slices.Contains(rs[i].PossibleConflict, rs[j].Memory.ID) && // marked already
			rs[i].State == string(StatusActive) && rs[j].State == string(StatusActive)
	}
	for _, p := range rank.RivalPairs(ms, consider) {
		i, j := p[0], p[1]
		rs[i].PossibleConflict = append(slices.Clip(rs[i].PossibleConflict), ms[j].ID)
		rs[j].PossibleConflict = append(slices.Clip(rs[j].PossibleConflict), ms[i].ID)
	}
}
