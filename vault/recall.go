package vault

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/rank"
)

// Ranking constants; docs/ranking.md explains each one.
const (
	// poolFactor x limit (at least minPool) candidates are ranked before
	// the structure rules reorder them and the tail is cut.
	poolFactor = 2
	minPool    = 16
	// DefaultLimit is the number of results when a query sets none.
	DefaultLimit = 8
	// DefaultSnippetRunes is the snippet size around the best match.
	DefaultSnippetRunes = 150
)

// The ranking's names in vault (vault/rank decides the order and the
// cut).
type (
	// Result is one recalled memory with why it ranks where it does.
	Result = rank.Result
	// Ref names another memory.
	Ref = rank.Ref
	// Adjustment is one structure rule applied to a result after the
	// text ranked it.
	Adjustment = rank.Adjustment
)

// Match strengths (Result.Match) and the structure rules an Adjustment
// names.
const (
	MatchStrong         = rank.MatchStrong
	MatchWeak           = rank.MatchWeak
	AdjustLink          = rank.AdjustLink
	AdjustSupersession  = rank.AdjustSupersession
	AdjustNearDuplicate = rank.AdjustNearDuplicate
	AdjustCrossVault    = rank.AdjustCrossVault
)

// RivalPairsOf is rank.RivalPairsOf: the rival rules among candidate
// pairs of memories.
func RivalPairsOf(ms []*Memory, candidates [][2]int) [][2]int {
	return rank.RivalPairsOf(ms, candidates)
}

// Query asks the vault for memories.
type Query struct {
	Text   string
	Limit  int      // 0 means DefaultLimit
	Layers []Layer  // empty means every layer
	Tags   []string // a memory must carry at least one of them (case-insensitive)
	// AsOf is the instant at which filters and decay are evaluated; zero
	// means the vault's clock.
	AsOf time.Time
	// Since keeps memories updated at or after it; zero keeps all.
	Since time.Time
	// IncludeInactive also returns archived, superseded, expired and
	// not-yet-effective memories, labelled by State.
	IncludeInactive bool
	// SnippetRunes sizes each snippet; 0 means DefaultSnippetRunes.
	SnippetRunes int
	// Explain fills Result.Explain: which query terms each result
	// matched, where they came from, and how much of the query it covers.
	Explain bool
	// MinImportance keeps memories of at least this importance (the
	// digest's key rules); 0 keeps all.
	MinImportance int
}

// Recall ranks memories for q: relevance x layer weight x time decay x a
// bounded importance boost, after the time, status, layer and tag filters.
// An empty query text lists the most recently updated memories. Recall
// takes q as it is, for callers inside the program (a title to dedupe,
// an evaluation query); a query from outside goes through RecallContext
// or Set.Recall, which refuse one past the limits.
func (v *Vault) Recall(q Query) []Result { return v.recall(q, rank.DefaultCut()) }

// recall is Recall with the given strength and cut rules.
func (v *Vault) recall(q Query, cut rank.Cut) []Result {
	out, _ := v.rank(context.Background(), q, cut, false)
	return out
}

// recallContext is recall that stops with ctx's error once ctx is done
// (see RecallContext); it does not check the query's size.
func (v *Vault) recallContext(ctx context.Context, q Query, cut rank.Cut) ([]Result, error) {
	return v.rank(ctx, q, cut, false)
}

// rank is recallContext. With pooled, the results of a query text are the
// whole ranked pool, neither labelled strong or weak nor cut, without
// explanations or conflicts: Set.Recall merges the pools of its vaults and
// decides those once, on the merged list (rank.Finish).
func (v *Vault) rank(ctx context.Context, q Query, cut rank.Cut, pooled bool) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	at := q.AsOf
	if at.IsZero() {
		at = v.now()
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	snippetRunes := q.SnippetRunes
	if snippetRunes <= 0 {
		snippetRunes = DefaultSnippetRunes
	}
	tags := rank.TagSet(q.Tags)

	v.mu.RLock()
	defer v.mu.RUnlock()
	succ := v.successors()
	keep := func(id index.DocID, m *Memory) (string, bool) {
		if !q.selects(m, tags) {
			return "", false
		}
		state := v.stateLocked(id, m, at, succ)
		if state == "unborn" {
			return "", false // did not exist yet at the query instant
		}
		return state, state == string(StatusActive) || q.IncludeInactive
	}

	text := strings.TrimSpace(q.Text) != ""
	if text && v.ix == nil {
		return nil, ErrHeadersOnly
	}
	var hits []index.Hit
	if !text {
		hits = v.recentLocked(keep, at, limit)
	} else {
		// A pool larger than the limit lets the structure rules below
		// reorder and pull in memories before the tail is cut.
		var err error
		hits, err = v.ix.SearchContext(ctx, index.Query{Text: q.Text, Limit: max(poolFactor*limit, minPool), Weight: func(id index.DocID, rel float64) float64 {
			m := v.entries[id]
			if _, ok := keep(id, m); !ok {
				return 0
			}
			return rel * Weight(m, at)
		}, MaxWeight: memory.MaxWeight()})
		if err != nil {
			return nil, err
		}
	}

	out := make([]Result, 0, len(hits))
	terms := make(map[*Memory][]string, len(hits))
	for _, h := range hits {
		m := v.entries[h.ID]
		state, _ := keep(h.ID, m)
		out = append(out, rank.FromHit(m, state, h))
		terms[m] = h.Terms
	}
	if text {
		out = v.linkEvidenceLocked(out, q.Text, keep, at, cut)
		rank.Sort(out)
		out = rank.SuccessorsFirst(out)
		if !pooled {
			out = rank.Finish(out, cut, limit, nil)
		}
	}
	for i := range out {
		r := &out[i]
		m := r.Memory
		if q.Explain && text && !pooled {
			r.Explain = v.ix.Explain(q.Text, v.byID[m.ID])
		}
		if pooled && text {
			r.DeferSnippet(terms[m], snippetRunes)
		} else {
			r.Snippet = index.Snippet(m.PlainText(), terms[m], snippetRunes)
		}
		base := v.resultLocked(m, r.State, at, succ, q.IncludeInactive)
		r.Memory, r.Supersedes, r.SupersededBy = base.Memory, base.Supersedes, base.SupersededBy
	}
	if !(pooled && text) {
		rank.MarkConflicts(out, nil)
	}
	return out, nil
}

// explain is index.Explain for the memory id in v; nil when v does not
// hold it.
func (v *Vault) explain(text, id string) *index.Explanation {
	v.mu.RLock()
	defer v.mu.RUnlock()
	d, ok := v.byID[id]
	if !ok {
		return nil
	}
	return v.ix.Explain(text, d)
}

// selects reports whether m passes q's layer, since and tag filters; tags
// is rank.TagSet(q.Tags).
func (q Query) selects(m *Memory, tags map[string]bool) bool {
	switch {
	case m == nil, len(q.Layers) > 0 && !slices.Contains(q.Layers, m.Layer):
		return false
	case !q.Since.IsZero() && m.UpdatedAt.Before(q.Since):
		return false
	case m.Importance < q.MinImportance:
		return false
	}
	return len(tags) == 0 || hasAnyTag(m, tags)
}

// stateLocked is the state of m (entry id) at instant at, "unborn" before
// it was created; caller holds v.mu.
func (v *Vault) stateLocked(id index.DocID, m *Memory, at time.Time, succ map[string][]string) string {
	if int(id) < len(v.replaced) && v.replaced[id] {
		return v.stateAt(m, at, succ)
	}
	return plainState(m, at)
}

// resultLocked is m's result in state: the memories it supersedes and,
// with successors, the in-force ones that supersede it. Caller holds v.mu.
func (v *Vault) resultLocked(m *Memory, state string, at time.Time, succ map[string][]string, successors bool) Result {
	r := Result{Memory: m.Clone(), State: state}
	for _, id := range m.Supersedes {
		r.Supersedes = append(r.Supersedes, v.refLocked(id))
	}
	if successors {
		for _, s := range succ[m.ID] {
			if sm := v.memLocked(s); sm != nil && sm.Status == StatusActive && sm.InForce(at) {
				r.SupersededBy = append(r.SupersededBy, Ref{ID: sm.ID, Title: sm.Title})
			}
		}
	}
	return r
}

// stateAt is a memory's state at instant at. A superseded memory whose
// successors are not in force yet is still active: future rules are not
// applied early. An active memory replaced by an in-force successor counts
// as superseded even if its own file was not updated.
func (v *Vault) stateAt(m *Memory, at time.Time, succ map[string][]string) string {
	if s := plainState(m, at); s != string(StatusActive) && s != string(StatusSuperseded) {
		return s
	}
	replaced, pending := false, false
	for _, s := range succ[m.ID] {
		sm := v.memLocked(s)
		if sm == nil || sm.Status != StatusActive || at.Before(sm.CreatedAt) {
			continue
		}
		if sm.InForce(at) {
			replaced = true
		} else {
			pending = true
		}
	}
	switch {
	case replaced:
		return string(StatusSuperseded)
	case m.Status == StatusSuperseded && !pending:
		return string(StatusSuperseded)
	}
	return string(StatusActive)
}

// plainState is a memory's state at instant at from its own fields, for
// memories that no other memory supersedes.
func plainState(m *Memory, at time.Time) string {
	switch {
	case at.Before(m.CreatedAt):
		return "unborn"
	case m.Status == StatusArchived:
		return string(StatusArchived)
	case !m.EffectiveAt.IsZero() && at.Before(m.EffectiveAt):
		return "future"
	case !m.ExpiresAt.IsZero() && !at.Before(m.ExpiresAt):
		return "expired"
	case m.Status == StatusSuperseded:
		return string(StatusSuperseded)
	}
	return string(StatusActive)
}

// successors maps an id to the ids of memories that list it in supersedes.
// Caller holds v.mu.
func (v *Vault) successors() map[string][]string { return v.succ }

// rebuildSuccLocked recomputes the successor map after the entries changed;
// caller holds v.mu for writing. Supersession is rare, so this is a scan of
// the entries with few map writes.
func (v *Vault) rebuildSuccLocked() {
	succ := map[string][]string{}
	for _, m := range v.entries {
		if m == nil {
			continue
		}
		for _, old := range m.Supersedes {
			succ[old] = append(succ[old], m.ID)
		}
	}
	replaced := make([]bool, len(v.entries))
	for old := range succ {
		if d, ok := v.byID[old]; ok {
			replaced[d] = true
		}
	}
	v.succ, v.replaced = succ, replaced
	v.cycles = nil
	if len(succ) > 0 {
		v.cycles = supersessionCycles(v.entries, v.memLocked)
	}
}

// touchesSuccLocked reports whether m takes part in supersession: it
// lists memories in supersedes, or another memory lists it. A change to
// a memory that does not leaves the successor map and the replaced flags
// as they are (a freed DocID's stale flag only sends its next memory
// through stateAt, which gives plainState's answer without successors).
// Caller holds v.mu.
func (v *Vault) touchesSuccLocked(m *Memory) bool {
	if m == nil {
		return false
	}
	_, superseded := v.succ[m.ID]
	return len(m.Supersedes) > 0 || superseded
}

func (v *Vault) memLocked(id string) *Memory {
	if d, ok := v.byID[id]; ok {
		return v.entries[d]
	}
	return nil
}

func (v *Vault) refLocked(id string) Ref {
	if m := v.memLocked(id); m != nil {
		return Ref{ID: id, Title: m.Title}
	}
	return Ref{ID: id}
}

// recentLocked lists the most recently updated kept memories.
func (v *Vault) recentLocked(keep func(index.DocID, *Memory) (string, bool), at time.Time, limit int) []index.Hit {
	var hits []index.Hit
	for i, m := range v.entries {
		if _, ok := keep(index.DocID(i), m); ok {
			hits = append(hits, index.Hit{ID: index.DocID(i), Score: Weight(m, at)})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := v.entries[hits[i].ID], v.entries[hits[j].ID]
		if !a.UpdatedAt.Equal(b.UpdatedAt) {
			return a.UpdatedAt.After(b.UpdatedAt)
		}
		return a.ID < b.ID
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

func hasAnyTag(m *Memory, want map[string]bool) bool {
	for _, t := range m.Tags {
		if want[strings.ToLower(t)] {
			return true
		}
	}
	return false
}

// Limits on a recall query. A query is a question, a sentence or a
// pasted paragraph; the index searches its 64 heaviest terms and tracks
// 32 of its concepts, so a longer text adds work, not answers. The caps
// keep the work of one recall small (docs/hardening.md): a query past
// either is refused with a *QueryTooLargeError.
const (
	// MaxQueryBytes is the largest query text, in bytes: about 1,300
	// English words or 2,700 Chinese characters.
	MaxQueryBytes = 8 << 10
	// MaxQueryTerms is the most distinct terms (words, identifier parts,
	// Chinese bigrams, as index.Tokenize finds them) a query may have.
	// Natural text at MaxQueryBytes has under 1,000 in either language;
	// only made-up input (every word different, identifier soup) reaches
	// it.
	MaxQueryTerms = 2048
)

// QueryTooLargeError is the error of a recall whose query is past
// MaxQueryBytes or MaxQueryTerms.
type QueryTooLargeError struct {
	// Unit is "bytes" or "distinct terms".
	Unit string
	// Size is how many the query has; Limit how many it may have.
	Size, Limit int
}

func (e *QueryTooLargeError) Error() string {
	return fmt.Sprintf("query too large: %d %s, limit %d: ask with the question itself, not a whole document", e.Size, e.Unit, e.Limit)
}

// ErrorKind says the caller can shorten the query.
func (e *QueryTooLargeError) ErrorKind() string { return string(fault.Invalid) }

// CheckQuery returns a *QueryTooLargeError when text is past
// MaxQueryBytes or MaxQueryTerms, else nil. Its work is bounded by
// MaxQueryBytes whatever the size of text.
func CheckQuery(text string) error {
	if len(text) > MaxQueryBytes {
		return &QueryTooLargeError{Unit: "bytes", Size: len(text), Limit: MaxQueryBytes}
	}
	if n := index.DistinctTerms(text); n > MaxQueryTerms {
		return &QueryTooLargeError{Unit: "distinct terms", Size: n, Limit: MaxQueryTerms}
	}
	return nil
}

// RecallContext is Recall for a query from outside: it refuses a query
// past the limits (CheckQuery) and stops once ctx is done, returning
// ctx's error. Recall's scoring is linear in the query's length, and
// RecallContext looks at ctx while it plans the query, before each
// term's postings and every few thousand candidates, so a client that
// gives up, a deadline or a shutdown ends the work and releases the
// vault's read lock for the writes waiting on it.
func (v *Vault) RecallContext(ctx context.Context, q Query) ([]Result, error) {
	if err := CheckQuery(q.Text); err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	return v.recallContext(ctx, q, rank.DefaultCut())
}

// linkEvidenceLocked is rank.LinkEvidence over v's memories: keep says
// which the query keeps, in which state. Caller holds v.mu for reading.
func (v *Vault) linkEvidenceLocked(rs []Result, query string, keep func(index.DocID, *Memory) (string, bool), at time.Time, cut rank.Cut) []Result {
	return rank.LinkEvidence(rs, query, at, cut, v.linkedIDsLocked, func(id string) (*Memory, string, bool) {
		d, ok := v.byID[id]
		if !ok {
			return nil, "", false
		}
		m := v.entries[d]
		state, ok := keep(d, m)
		return m, state, ok
	})
}

// linkedIDsLocked resolves m's front-matter links and wiki links to ids.
func (v *Vault) linkedIDsLocked(m *Memory) []string {
	ids := slices.Clone(m.Links)
	if len(m.WikiLinks) > 0 {
		names := v.namesRLocked()
		for _, w := range m.WikiLinks {
			if d, ok := names[strings.ToLower(strings.TrimSpace(w))]; ok {
				ids = append(ids, v.entries[d].ID)
			}
		}
	}
	return ids
}
