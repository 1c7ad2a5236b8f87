package vault

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
)

// Ranking constants; docs/ranking.md explains each one.
const (
	// DefaultLimit is the number of results when a query sets none.
	DefaultLimit = 8
	// DefaultSnippetRunes is the snippet size around the best match.
	DefaultSnippetRunes = 150
	// conflictTitleOverlap is the title token overlap (Jaccard) that makes
	// two results rivals on its own; with a shared tag, rivalTagOverlap.
	conflictTitleOverlap = 0.5
	rivalTagOverlap      = 0.2
	// Rules written in different languages share few title tokens; a
	// mostly shared tag set (Jaccard >= sameTopicTags, at least two tags)
	// with a little title overlap marks them as rivals too.
	sameTopicTags       = 0.5
	sameTopicTitleFloor = 0.1
)

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

// Ref names another memory.
type Ref struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Result is one recalled memory with why it ranks where it does.
type Result struct {
	Memory    *Memory `json:"memory"`
	Score     float64 `json:"score"`
	Relevance float64 `json:"relevance"`
	Snippet   string  `json:"snippet"`
	// State is the memory's state at the query instant: active, archived,
	// superseded, expired or future.
	State string `json:"state"`
	// Supersedes names the memories this one replaces.
	Supersedes []Ref `json:"supersedes,omitempty"`
	// SupersededBy names the in-force memories that replace this one
	// (only with IncludeInactive).
	SupersededBy []Ref `json:"superseded_by,omitempty"`
	// PossibleConflict lists the ids of other results that look like rival
	// rules on the same subject, neither superseding the other.
	PossibleConflict []string `json:"possible_conflict,omitempty"`
	// Match is MatchStrong or MatchWeak: how well the memory answers the
	// query. Empty for a query without text (a list of recent memories).
	Match string `json:"match,omitempty"`
	// MatchReason says why a weak result is weak ("matches 1 of 3 query
	// concepts") or what lifted it ("linked from ...").
	MatchReason string `json:"match_reason,omitempty"`
	// Coverage is the rarity-weighted share of the query's concepts the
	// memory matched (typed words, identifiers, Chinese words, each
	// directly or through a translation); Matched of Concepts counts them.
	Coverage float64 `json:"coverage,omitempty"`
	Matched  int     `json:"matched,omitempty"`
	Concepts int     `json:"concepts,omitempty"`
	// Explain says why the memory matched (with Query.Explain); its
	// Format method writes it as text.
	Explain *index.Explanation `json:"explain,omitempty"`
	// Adjustments are the structure rules that changed the result's score
	// or place after the text ranked it (links, supersession,
	// near-duplicates, ranking across vaults), in the order they applied.
	Adjustments []Adjustment `json:"adjustments,omitempty"`

	linked bool    // a strong match links to it: kept below the tail cut
	norm   float64 // index.Hit.Norm, for the strength analysis in eval_test.go
	// snip holds what the snippet needs until the result survives the
	// cut (a pooled recall leaves the snippet to its Set): each snippet
	// parses the memory's body (see Memory.PlainText).
	snip *snipSpec
}

// The structure rules an Adjustment names.
const (
	AdjustLink          = "link"
	AdjustSupersession  = "supersession"
	AdjustNearDuplicate = "near-duplicate"
	AdjustCrossVault    = "cross-vault"
)

// Adjustment is one structure rule applied to a result after the text
// ranked it.
type Adjustment struct {
	// Rule is AdjustLink, AdjustSupersession, AdjustNearDuplicate or
	// AdjustCrossVault.
	Rule string `json:"rule"`
	// Factor multiplied the score; 0 when the rule set the score or only
	// moved the result.
	Factor float64 `json:"factor,omitempty"`
	// Note says what the rule did, for people.
	Note string `json:"note"`
}

// Recall ranks memories for q: relevance x layer weight x time decay x a
// bounded importance boost, after the time, status, layer and tag filters.
// An empty query text lists the most recently updated memories. Recall
// takes q as it is, for callers inside the program (a title to dedupe,
// an evaluation query); a query from outside goes through RecallContext
// or Set.Recall, which refuse one past the limits.
func (v *Vault) Recall(q Query) []Result { return v.recall(q, defaultCut) }

// recall is Recall with the given strength and cut rules.
func (v *Vault) recall(q Query, cut cutRules) []Result {
	out, _ := v.rank(context.Background(), q, cut, false)
	return out
}

// recallContext is recall that stops with ctx's error once ctx is done
// (see RecallContext); it does not check the query's size.
func (v *Vault) recallContext(ctx context.Context, q Query, cut cutRules) ([]Result, error) {
	return v.rank(ctx, q, cut, false)
}

// rank is recallContext. With pooled, the results of a query text are the
// whole ranked pool, neither labelled strong or weak nor cut, without
// explanations or conflicts: Set.Recall merges the pools of its vaults and
// decides those once, on the merged list (finishText).
func (v *Vault) rank(ctx context.Context, q Query, cut cutRules, pooled bool) ([]Result, error) {
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
	tags := tagSet(q.Tags)

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
		out = append(out, Result{Memory: m, Score: h.Score, Relevance: h.Relevance, State: state,
			Coverage: h.Coverage, Matched: h.Matched, Concepts: h.Concepts, norm: h.Norm})
		terms[m] = h.Terms
	}
	if text {
		out = v.linkEvidenceLocked(out, q.Text, keep, at, cut)
		sortResults(out)
		out = successorsFirst(out)
		if !pooled {
			out = finishText(out, cut, limit, nil)
		}
	}
	for i := range out {
		r := &out[i]
		m := r.Memory
		if q.Explain && text && !pooled {
			r.Explain = v.ix.Explain(q.Text, v.byID[m.ID])
		}
		if pooled && text {
			r.snip = &snipSpec{terms: terms[m], runes: snippetRunes}
		} else {
			r.Snippet = index.Snippet(m.PlainText(), terms[m], snippetRunes)
		}
		base := v.resultLocked(m, r.State, at, succ, q.IncludeInactive)
		r.Memory, r.Supersedes, r.SupersededBy = base.Memory, base.Supersedes, base.SupersededBy
	}
	if !(pooled && text) {
		markConflicts(out)
	}
	return out, nil
}

// snipSpec is a snippet still to be made: the matched terms and its size.
type snipSpec struct {
	terms []string
	runes int
}

// fillSnippet makes the snippet a pooled recall left for later; texts
// remembers the texts' analyses across calls (nil: nothing).
func (r *Result) fillSnippet(texts *textMemo) {
	if r.snip != nil {
		r.Snippet = texts.snippet(r.Memory, r.snip.terms, r.snip.runes)
		r.snip = nil
	}
}

// finishText labels the ranked results of a query text strong or weak,
// cuts the tail, keeps near-duplicates apart, lists the strong results
// before the weak ones (each group in rank order: a result that scores
// high on few of the query's concepts never comes above an answer) and
// cuts the list to limit.
func finishText(rs []Result, cut cutRules, limit int, texts *textMemo) []Result {
	rs = cut.classify(rs)
	rs = spreadNearDuplicates(rs, texts)
	slices.SortStableFunc(rs, func(a, b Result) int {
		return cmp.Compare(strength(a), strength(b))
	})
	if len(rs) > limit {
		rs = rs[:limit]
	}
	return rs
}

// strength orders strong results before weak ones.
func strength(r Result) int {
	if r.Match == MatchStrong {
		return 0
	}
	return 1
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

// tagSet is the set of tags a query asks for, as hasAnyTag compares them.
func tagSet(tags []string) map[string]bool {
	out := make(map[string]bool, len(tags))
	for _, t := range tags {
		out[strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))] = true
	}
	return out
}

// selects reports whether m passes q's layer, since and tag filters; tags
// is tagSet(q.Tags).
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

// markConflicts flags pairs of active results that look like rival rules
// on one subject: strongly overlapping titles, or a shared tag with some
// title overlap, and neither superseding the other. Only L3 decisions and
// L4 preferences are rules; L1/L2 notes are task state and L5 notes are
// indexes, so they never conflict.
func markConflicts(rs []Result) {
	ms := make([]*Memory, len(rs))
	for i := range rs {
		ms[i] = rs[i].Memory
	}
	active := func(i, j int) bool {
		return rs[i].State == string(StatusActive) && rs[j].State == string(StatusActive)
	}
	for _, p := range RivalPairs(ms, active) {
		i, j := p[0], p[1]
		rs[i].PossibleConflict = append(rs[i].PossibleConflict, ms[j].ID)
		rs[j].PossibleConflict = append(rs[j].PossibleConflict, ms[i].ID)
	}
}

// RivalPairs returns the pairs (i, j), i < j, of ms that look like rival
// rules on one subject by the criteria Recall uses for PossibleConflict,
// among the pairs consider lets through: both are rules (L3 decisions or
// L4 preferences), neither supersedes the other, and their titles overlap
// strongly, or they share a tag and their titles overlap somewhat, or
// (rules in two languages) they share most tags and their titles a little.
// It does not look at status or dates: consider picks the rules in force,
// for example among results from two vaults. Each title is analysed once.
func RivalPairs(ms []*Memory, consider func(i, j int) bool) [][2]int {
	rivals := rivalTest(ms)
	var out [][2]int
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			if consider(i, j) && rivals(i, j) {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// rivalPair applies RivalPairs' criteria to a and b, whose title token
// sets are ta and tb.
func rivalPair(ta, tb map[string]bool, a, b *Memory) bool {
	if !isRuleLayer(a.Layer) || !isRuleLayer(b.Layer) ||
		slices.Contains(a.Supersedes, b.ID) || slices.Contains(b.Supersedes, a.ID) {
		return false
	}
	overlap := jaccard(ta, tb)
	shared, tagJ := tagOverlap(a, b)
	return overlap >= conflictTitleOverlap || (overlap >= rivalTagOverlap && shared > 0) ||
		(overlap >= sameTopicTitleFloor && shared >= 2 && tagJ >= sameTopicTags)
}

func tokenSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, t := range index.Tokenize(s) {
		set[t] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// tagOverlap counts the tags two memories share (case-insensitively) and
// the Jaccard index of their tag sets.
func tagOverlap(a, b *Memory) (shared int, jac float64) {
	for _, x := range a.Tags {
		for _, y := range b.Tags {
			if strings.EqualFold(x, y) {
				shared++
				break
			}
		}
	}
	if union := len(a.Tags) + len(b.Tags) - shared; union > 0 {
		jac = float64(shared) / float64(union)
	}
	return shared, jac
}

func isRuleLayer(l Layer) bool { return l == Project || l == Preference }

// Norm is the result's text relevance divided by that of an ideal match
// for the query (index.Hit.Norm): how fully the memory's text answers the
// words typed, whatever the layer, age and importance. 0 for a query
// without text.
func (r Result) Norm() float64 { return r.norm }

// RivalPairsOf is RivalPairs for the candidate pairs (i, j), i < j, of ms
// only, in their order. Every one of RivalPairs' criteria needs the two
// titles to share an index term, so a check over a whole vault can pair
// the memories whose titles share one (few) and leave the rest (most)
// unread, instead of weighing every pair.
func RivalPairsOf(ms []*Memory, candidates [][2]int) [][2]int {
	rivals := rivalTest(ms)
	var out [][2]int
	for _, p := range candidates {
		if rivals(p[0], p[1]) {
			out = append(out, p)
		}
	}
	return out
}

// rivalTest is rivalPair over ms by index, analysing each title once.
func rivalTest(ms []*Memory) func(i, j int) bool {
	toks := make([]map[string]bool, len(ms))
	title := func(i int) map[string]bool {
		if toks[i] == nil {
			toks[i] = tokenSet(ms[i].Title)
		}
		return toks[i]
	}
	return func(i, j int) bool { return rivalPair(title(i), title(j), ms[i], ms[j]) }
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
	return v.recallContext(ctx, q, defaultCut)
}
