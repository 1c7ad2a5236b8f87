package vault

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
)

// Structure rules: what the vault knows beyond the text of each memory.
// docs/ranking.md explains each constant.
const (
	// poolFactor x limit (at least minPool) candidates are ranked before
	// the structure rules reorder them and the tail is cut.
	poolFactor = 2
	minPool    = 16
	// A memory the query matches gains indexLinkGain of its score when a
	// strongly matching L5 index note links to it, linkGain when another
	// strongly matching memory does. A linked memory the query does not
	// match joins the results at pullShare of the lowest score found by
	// the text (never above a textual match), weak, with the link as its
	// reason.
	indexLinkGain = 0.25
	linkGain      = 0.1
	pullShare     = 0.9
	// nearDuplicate is the term overlap (Jaccard of title and text
	// terms) above which two memories say the same thing.
	nearDuplicate = 0.8
	// distinctTop is how many first places near-duplicates may not share.
	distinctTop = 3
	// dupScoreRatio: two memories whose scores differ more than this
	// are not compared for near-duplication.
	dupScoreRatio = 0.8
	// inferredRatio: a memory whose title declares it an old rule moves
	// below a result on its topic that scores at least this share of it
	// (see inferredSuccessor).
	inferredRatio = 0.5
)

// sortResults orders by score, then id.
func sortResults(rs []Result) {
	slices.SortStableFunc(rs, func(a, b Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.Memory.ID, b.Memory.ID)
	})
}

// linkEvidenceLocked lets strongly matching memories about the query's
// subject vouch for the memories they link to (front-matter links and [[wiki links]]): a linked
// result gains a share of its own score, and a linked memory that the text
// did not find joins the results below every textual match, weak, with
// the link as its reason. Caller holds v.mu for reading.
func (v *Vault) linkEvidenceLocked(rs []Result, query string, keep func(index.DocID, *Memory) (string, bool), at time.Time, cut cutRules) []Result {
	if len(rs) == 0 {
		return rs
	}
	var qset map[string]bool
	best, lowest := 0.0, math.Inf(1)
	for _, r := range rs {
		best, lowest = max(best, r.Score), min(lowest, r.Score)
	}
	pos := make(map[string]int, len(rs))
	for i, r := range rs {
		pos[r.Memory.ID] = i
	}
	type gain struct {
		share float64
		from  *Memory
	}
	gains := map[string]gain{}
	for _, r := range rs {
		m := r.Memory
		if len(m.Links) == 0 && len(m.WikiLinks) == 0 {
			continue
		}
		if r.Coverage < cut.fullCoverage || r.Score < cut.strongRatio*best {
			continue
		}
		// A note vouches for its links on the query's subject only when
		// that subject is what the note is about: its title shares a
		// word with the query. A note that mentions the words in passing
		// links to memories of another subject.
		if qset == nil {
			qset = tokenSet(query)
		}
		if !overlaps(tokenSet(m.Title), qset) {
			continue
		}
		g := linkGain
		if m.Layer == Meta {
			g = indexLinkGain
		}
		for _, id := range v.linkedIDsLocked(m) {
			if id != m.ID && g > gains[id].share {
				gains[id] = gain{g, m}
			}
		}
	}
	for _, id := range sortedKeys(gains) {
		g := gains[id]
		reason := fmt.Sprintf("linked from %q", g.from.Title)
		if i, ok := pos[id]; ok {
			rs[i].Score *= 1 + g.share
			rs[i].MatchReason = reason
			rs[i].linked = true
			rs[i].Adjustments = append(rs[i].Adjustments, Adjustment{Rule: AdjustLink, Factor: 1 + g.share,
				Note: fmt.Sprintf("+%.0f%%: %s, which matches the query strongly", 100*g.share, reason)})
			continue
		}
		d, ok := v.byID[id]
		if !ok {
			continue
		}
		m := v.entries[d]
		state, ok := keep(d, m)
		if !ok {
			continue
		}
		// Below every textual match, ordered by the linked memory's own
		// layer, age and importance.
		score := lowest * pullShare * Weight(m, at) / memory.MaxWeight()
		rs = append(rs, Result{Memory: m, Score: score, State: state, MatchReason: reason, linked: true,
			Adjustments: []Adjustment{{Rule: AdjustLink, Note: fmt.Sprintf("joined the results below every text match: %s", reason)}}})
	}
	return rs
}

func overlaps(a, b map[string]bool) bool {
	for t := range a {
		if b[t] {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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

// oldMarkers are what a title says when its memory is an old rule kept
// for the record: a vault that never recorded supersedes still says so in
// words. Matched case-insensitively in the title only.
var oldMarkers = []string{"old rule", "deprecated", "obsolete", "superseded", "旧规则", "已废弃", "已过时", "已弃用"}

// declaresOld reports whether m's title says it is an old rule.
func declaresOld(m *Memory) bool {
	t := strings.ToLower(m.Title)
	for _, w := range oldMarkers {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// inferredSuccessor reports whether b stands in for a as its successor
// when a declares itself old but no memory records supersedes for it: b
// does not declare itself old, shares a tag with a, covers at least as
// much of the query and scores at least inferredRatio of it (a memory far
// below on a broad tag is no successor).
func inferredSuccessor(a, b Result) bool {
	if !declaresOld(a.Memory) || declaresOld(b.Memory) || b.Coverage < a.Coverage || b.Score < inferredRatio*a.Score {
		return false
	}
	at := tagSet(a.Memory.Tags)
	for t := range tagSet(b.Memory.Tags) {
		if at[t] {
			return true
		}
	}
	return false
}

// successorsFirst moves every result that another result supersedes to
// just below its lowest-ranked successor among the results: a replaced
// rule, shown with include_inactive, never outranks its replacement. A
// result whose title declares it an old rule, with no recorded successor
// among the results, is treated alike below a result on the same topic
// (a shared tag) that covers at least as much of the query.
func successorsFirst(rs []Result) []Result {
	for pass := 0; pass < len(rs); pass++ {
		moved := false
		for i := range rs {
			// The lowest-ranked result that supersedes rs[i].
			last, inferred := -1, false
			for j := i + 1; j < len(rs); j++ {
				if slices.Contains(rs[j].Memory.Supersedes, rs[i].Memory.ID) {
					last = j
				}
			}
			if last < 0 && declaresOld(rs[i].Memory) {
				for j := i + 1; j < len(rs); j++ {
					if inferredSuccessor(rs[i], rs[j]) {
						last, inferred = j, true
					}
				}
			}
			if last < 0 {
				continue
			}
			r := rs[i]
			// Set.Recall applies this rule again to the merged list: one
			// note per successor is enough.
			note := fmt.Sprintf("moved below %q, which supersedes it", rs[last].Memory.Title)
			if inferred {
				note = fmt.Sprintf("moved below %q: its title says it is an old rule, and that result is on the same topic", rs[last].Memory.Title)
			}
			adj := Adjustment{Rule: AdjustSupersession, Note: note}
			if !slices.Contains(r.Adjustments, adj) {
				r.Adjustments = append(slices.Clip(r.Adjustments), adj)
			}
			copy(rs[i:last], rs[i+1:last+1])
			rs[last] = r
			if rs[last].Score > rs[last-1].Score {
				rs[last].Score = rs[last-1].Score
			}
			moved = true
			break
		}
		if !moved {
			break
		}
	}
	return rs
}

// spreadNearDuplicates keeps near-identical memories from sharing the
// first distinctTop places: the lower copy moves down to just below them,
// weak, named as a near-duplicate of the one above. texts remembers the
// texts' token sets across calls (nil: nothing).
func spreadNearDuplicates(rs []Result, texts *textMemo) []Result {
	sets, titleSets := map[*Memory]map[string]bool{}, map[*Memory]map[string]bool{}
	titles := func(m *Memory) map[string]bool {
		if titleSets[m] == nil {
			titleSets[m] = tokenSet(m.Title)
		}
		return titleSets[m]
	}
	set := func(m *Memory) map[string]bool {
		if sets[m] == nil {
			sets[m] = texts.set(m)
		}
		return sets[m]
	}
	similar := func(a, b *Result) bool {
		// Memories that say the same thing match the same query
		// concepts, score alike and have similar titles: check those
		// cheap signs before comparing the texts.
		if min(a.Score, b.Score) < dupScoreRatio*max(a.Score, b.Score) ||
			math.Abs(a.Coverage-b.Coverage) > 0.05 || a.Matched != b.Matched ||
			jaccard(titles(a.Memory), titles(b.Memory)) < 0.5 {
			return false
		}
		return jaccard(set(a.Memory), set(b.Memory)) >= nearDuplicate
	}
	// Each pass moves at most one copy down, behind the places it must
	// leave; a copy already moved is not moved again.
	moved := map[*Memory]bool{}
	for i := 1; i < min(len(rs), distinctTop); i++ {
		if moved[rs[i].Memory] {
			continue
		}
		for x := range i {
			if !similar(&rs[i], &rs[x]) {
				continue
			}
			r := rs[i]
			r.Match = MatchWeak
			r.MatchReason = fmt.Sprintf("near-duplicate of %q", rs[x].Memory.Title)
			r.Adjustments = append(slices.Clip(r.Adjustments), Adjustment{Rule: AdjustNearDuplicate,
				Note: fmt.Sprintf("moved down to place %d: says what %q says", min(len(rs)-1, distinctTop)+1, rs[x].Memory.Title)})
			moved[r.Memory] = true
			to := min(len(rs)-1, distinctTop)
			copy(rs[i:to], rs[i+1:to+1])
			rs[to] = r
			if to > i {
				i-- // look at what moved up
			}
			break
		}
	}
	return rs
}

// Match strengths of a result (Result.Match).
const (
	// MatchStrong marks a result that answers the query: it covers most
	// of the query's concepts and scores close to the best result.
	MatchStrong = "strong"
	// MatchWeak marks a result kept for what it shares with the query;
	// Result.MatchReason says what that is.
	MatchWeak = "weak"
)

// cutRules decide which results are strong and where the list ends. The
// rules look at each result relative to the best one and at how much of
// the query it covers, never at a raw score: BM25 scores grow with the
// number and rarity of query terms, so no absolute threshold means the
// same thing for two queries. docs/ranking.md explains each constant.
type cutRules struct {
	// The best result is strong when it covers at least minCoverage of
	// the query's concepts (rarity-weighted) and either stands out (the
	// next result scores at most standout of it) or covers at least
	// fullCoverage: an answer either says clearly more than the rest or
	// says nearly everything the question asks.
	minCoverage  float64
	standout     float64
	fullCoverage float64
	// rivals is how many results after the best one may not cover more
	// of the query than it does for it to be strong: when one of them
	// does, the best result won on how often or where it names part of
	// the question, not on answering more of it, and neither answers
	// clearly.
	rivals int
	// Below a strong best result, a result is strong too when it covers
	// at least minCoverage and scores at least strongRatio of the best.
	strongRatio float64
	// keepRatio and keepCoverage bound the weak tail: a weak result is
	// kept while it scores at least keepRatio of the best one and covers
	// at least keepCoverage of the query.
	keepRatio    float64
	keepCoverage float64
	// minWeak is how many weak results are kept whatever their score,
	// when no result is strong, so a query never comes back empty while
	// something matched it.
	minWeak int
}

var defaultCut = cutRules{
	minCoverage:  0.3,
	standout:     0.4,
	fullCoverage: 0.7,
	rivals:       4,
	strongRatio:  0.5,
	keepRatio:    0.3,
	keepCoverage: 0.15,
	minWeak:      3,
}

// classify labels rs (in their final order) strong or weak, with a reason
// for the weak ones, and returns the results to show: the strong ones and
// the weak ones above the relevance tail.
func (c cutRules) classify(rs []Result) []Result {
	if len(rs) == 0 {
		return rs
	}
	best := 0.0
	for _, r := range rs {
		best = math.Max(best, r.Score)
	}
	next := 0.0
	if len(rs) > 1 {
		next = rs[1].Score
	}
	top := &rs[0]
	rival, rivalCov := c.rival(rs), 0.0
	if rival > 0 {
		rivalCov = rs[rival].Coverage // read now: the loop below reuses rs
	}
	topStrong := best > 0 && top.Coverage >= c.minCoverage &&
		(next <= c.standout*best || top.Coverage >= c.fullCoverage) && rival < 0
	out := rs[:0]
	strong := 0
	for i := range rs {
		r := &rs[i]
		ratio := 0.0
		if best > 0 {
			ratio = r.Score / best
		}
		isStrong := topStrong && r.Coverage >= c.minCoverage && (i == 0 || ratio >= c.strongRatio)
		if isStrong {
			r.Match = MatchStrong
			strong++
		} else {
			r.Match = MatchWeak
			if r.MatchReason == "" {
				r.MatchReason = weakReason(r, i, ratio, topStrong, next/math.Max(best, 1e-300), rival, rivalCov, c)
			}
		}
		keep := isStrong || r.linked ||
			(ratio >= c.keepRatio && r.Coverage >= c.keepCoverage) ||
			(strong == 0 && len(out) < c.minWeak)
		if keep {
			out = append(out, *r)
		}
	}
	return out
}

// rival returns the index of the first of the c.rivals results after the
// best one that covers more of the query than the best, or -1.
func (c cutRules) rival(rs []Result) int {
	for i := 1; i < len(rs) && i <= c.rivals; i++ {
		if rs[i].Coverage > rs[0].Coverage {
			return i
		}
	}
	return -1
}

// weakReason says in a few words why a weak result is weak.
func weakReason(r *Result, i int, ratio float64, topStrong bool, runnerUp float64, rival int, rivalCov float64, c cutRules) string {
	switch {
	case r.Coverage < c.minCoverage && r.Concepts > 0:
		return fmt.Sprintf("matches %d of %d query concepts", r.Matched, r.Concepts)
	case r.Coverage < c.minCoverage:
		return "matches little of the query"
	case !topStrong && i == 0 && rival > 0 && r.Coverage >= c.minCoverage:
		return fmt.Sprintf("covers %.0f%% of the query and result %d covers %.0f%%", 100*r.Coverage, rival+1, 100*rivalCov)
	case !topStrong && i == 0:
		return fmt.Sprintf("covers %.0f%% of the query and the next result scores %.0f%% of it", 100*r.Coverage, 100*runnerUp)
	case !topStrong:
		return "no result answers the query clearly"
	}
	return fmt.Sprintf("scores %.0f%% of the best result", 100*ratio)
}
