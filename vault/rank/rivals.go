package rank

import (
	"slices"
	"strings"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
)

const (
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

// TagSet is the set of tags a query asks for, as hasAnyTag compares them.
func TagSet(tags []string) map[string]bool {
	out := make(map[string]bool, len(tags))
	for _, t := range tags {
		out[strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))] = true
	}
	return out
}

// MarkConflicts flags pairs of active results that look like rival rules
// on one subject: strongly overlapping titles, or a shared tag with some
// title overlap, and neither superseding the other. Only L3 decisions and
// L4 preferences are rules; L1/L2 notes are task state and L5 notes are
// indexes, so they never conflict.
func MarkConflicts(rs []Result, texts *TextMemo) {
	ms := make([]*Memory, len(rs))
	for i := range rs {
		ms[i] = rs[i].Memory
	}
	active := func(i, j int) bool {
		return rs[i].State == string(memory.StatusActive) && rs[j].State == string(memory.StatusActive)
	}
	for _, p := range rivalPairs(ms, active, texts) {
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
	return rivalPairs(ms, consider, nil)
}

// rivalPairs is RivalPairs with the titles' token sets from texts.
func rivalPairs(ms []*Memory, consider func(i, j int) bool, texts *TextMemo) [][2]int {
	rivals := rivalTest(ms, texts)
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

func isRuleLayer(l memory.Layer) bool { return l == memory.Project || l == memory.Preference }

// RivalPairsOf is RivalPairs for the candidate pairs (i, j), i < j, of ms
// only, in their order. Every one of RivalPairs' criteria needs the two
// titles to share an index term, so a check over a whole vault can pair
// the memories whose titles share one (few) and leave the rest (most)
// unread, instead of weighing every pair.
func RivalPairsOf(ms []*Memory, candidates [][2]int) [][2]int {
	rivals := rivalTest(ms, nil)
	var out [][2]int
	for _, p := range candidates {
		if rivals(p[0], p[1]) {
			out = append(out, p)
		}
	}
	return out
}

// rivalTest is rivalPair over ms by index, analysing each title once
// (or remembering it in texts).
func rivalTest(ms []*Memory, texts *TextMemo) func(i, j int) bool {
	toks := make([]map[string]bool, len(ms))
	title := func(i int) map[string]bool {
		if toks[i] == nil {
			toks[i] = texts.titleSet(ms[i])
		}
		return toks[i]
	}
	return func(i, j int) bool { return rivalPair(title(i), title(j), ms[i], ms[j]) }
}
