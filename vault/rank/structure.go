package rank

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/memory"
)

// Structure rules: what the vault knows beyond the text of each memory.
// docs/ranking.md explains each constant.
const (
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
	// DistinctTop is how many first places near-duplicates may not share.
	DistinctTop = 3
	// dupScoreRatio: two memories whose scores differ more than this
	// are not compared for near-duplication.
	dupScoreRatio = 0.8
	// inferredRatio: a memory whose title declares it an old rule moves
	// below a result on its topic that scores at least this share of it
	// (see inferredSuccessor).
	inferredRatio = 0.5
)

// Sort orders by score, then id.
func Sort(rs []Result) {
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

// LinkEvidence lets strongly matching memories about the query's
// subject vouch for the memories they link to (front-matter links and [[wiki links]]): a linked
// result gains a share of its own score, and a linked memory that the text
// did not find joins the results below every textual match, weak, with
// the link as its reason. linked resolves a memory's links to ids; pull
// is the memory of an id and its state, when the query keeps it.
func LinkEvidence(rs []Result, query string, at time.Time, cut Cut, linked func(*Memory) []string, pull func(id string) (*Memory, string, bool)) []Result {
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
		if r.Coverage < cut.FullCoverage || r.Score < cut.StrongRatio*best {
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
		if m.Layer == memory.Meta {
			g = indexLinkGain
		}
		for _, id := range linked(m) {
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
		m, state, ok := pull(id)
		if !ok {
			continue
		}
		// Below every textual match, ordered by the linked memory's own
		// layer, age and importance.
		score := lowest * pullShare * memory.Weight(m, at) / memory.MaxWeight()
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
	at := TagSet(a.Memory.Tags)
	for t := range TagSet(b.Memory.Tags) {
		if at[t] {
			return true
		}
	}
	return false
}

// SuccessorsFirst moves every result that another result supersedes to
// just below its lowest-ranked successor among the results: a replaced
// rule, shown with include_inactive, never outranks its replacement. A
// result whose title declares it an old rule, with no recorded successor
// among the results, is treated alike below a result on the same topic
// (a shared tag) that covers at least as much of the query.
func SuccessorsFirst(rs []Result) []Result {
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
// first DistinctTop places: the lower copy moves down to just below them,
// weak, named as a near-duplicate of the one above. texts remembers the
// texts' token sets across calls (nil: nothing).
func spreadNearDuplicates(rs []Result, texts *TextMemo) []Result {
	sets, titleSets := map[*Memory]map[string]bool{}, map[*Memory]map[string]bool{}
	titles := func(m *Memory) map[string]bool {
		if titleSets[m] == nil {
			titleSets[m] = texts.titleSet(m)
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
	for i := 1; i < min(len(rs), DistinctTop); i++ {
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
				Note: fmt.Sprintf("moved down to place %d: says what %q says", min(len(rs)-1, DistinctTop)+1, rs[x].Memory.Title)})
			moved[r.Memory] = true
			to := min(len(rs)-1, DistinctTop)
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
