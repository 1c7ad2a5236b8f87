package review

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/title"
)

// duplicates lists the clusters of near-duplicate memories (titles at
// least NearDuplicate alike, in one layer), then the clusters of L2 notes
// in force on one topic (TopicTags shared tags, or one and TopicTitle of
// title overlap). It also returns the near-duplicate pairs, which are not
// reported again as rivals.
func duplicates(live []*vault.Memory, now time.Time) ([]Entry, map[[2]string]bool) {
	ms := slices.Clone(live)
	slices.SortFunc(ms, older)
	toks := make([]map[string]bool, len(ms))
	titles := make([]title.Title, len(ms))
	for i, m := range ms {
		toks[i], titles[i] = tokens(m.Title), title.New(m.Title)
	}
	dupPairs := map[[2]string]bool{}
	near := newClusters(len(ms))
	sims := map[[2]int]float64{}
	// Near-duplicates are within one layer: pair the titles of each layer
	// that share a term.
	for _, l := range vault.AllLayers() {
		var idx []int
		var lt []map[string]bool
		for i, m := range ms {
			if m.Layer == l {
				idx = append(idx, i)
				lt = append(lt, toks[i])
			}
		}
		for _, q := range candidates(lt) {
			x, y := idx[q[0]], idx[q[1]]
			s := titles[x].Similarity(titles[y])
			if s < NearDuplicate {
				continue
			}
			near.join(x, y)
			sims[[2]int{x, y}] = s
			dupPairs[pairKey(ms[x].ID, ms[y].ID)] = true
		}
	}
	var out []Entry
	for _, c := range near.groups() {
		e := clusterEntry(ms, c, "near_duplicate")
		best := 0.0
		for i, x := range c {
			for _, y := range c[i+1:] {
				best = max(best, sims[[2]int{min(x, y), max(x, y)}])
			}
		}
		e.Reason = fmt.Sprintf("%d %s memories with titles %.0f%% alike: keep one, fold in what the others add, and forget or supersede them", len(c), ms[c[0]].Layer, best*100)
		e.Suggested = mergedTitle(ms, c)
		out = append(out, e)
	}

	topic := newClusters(len(ms))
	shared := map[[2]int][]string{}
	for _, p := range byTag(ms, now) {
		a, b := ms[p[0]], ms[p[1]]
		if dupPairs[pairKey(a.ID, b.ID)] {
			continue
		}
		tags := sharedTags(a, b)
		if len(tags) >= TopicTags || (len(tags) > 0 && jaccard(toks[p[0]], toks[p[1]]) >= TopicTitle) {
			topic.join(p[0], p[1])
			shared[p] = tags
		}
	}
	for _, c := range topic.groups() {
		e := clusterEntry(ms, c, "same_topic")
		var tags []string
		for i, x := range c {
			for _, y := range c[i+1:] {
				for _, t := range shared[[2]int{min(x, y), max(x, y)}] {
					if !slices.Contains(tags, t) {
						tags = append(tags, t)
					}
				}
			}
		}
		e.Reason = fmt.Sprintf("%d short-term notes on one topic (shared tags: %s): one note is easier to find, to update and to expire", len(c), strings.Join(tags, ", "))
		e.Suggested = mergedTitle(ms, c)
		out = append(out, e)
	}
	return out, dupPairs
}

// older orders memories by creation, then id.
func older(a, b *vault.Memory) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
}

// candidates returns the pairs (i < j) of titles, given as term sets,
// that share a term: the only ones title.Similarity or RivalPairs can find
// alike.
func candidates(toks []map[string]bool) [][2]int {
	byTok := map[string][]int{}
	for i := range toks {
		for t := range toks[i] {
			byTok[t] = append(byTok[t], i)
		}
	}
	return pairsOf(byTok)
}

// byTag returns the pairs (i < j) of in-force short-term notes of ms
// that share a tag (case-insensitively): both same-topic criteria need
// one.
func byTag(ms []*vault.Memory, now time.Time) [][2]int {
	idx := map[string][]int{}
	for i, m := range ms {
		if m.Layer != vault.ShortTerm || !m.InForce(now) {
			continue
		}
		for _, t := range m.Tags {
			k := strings.ToLower(t)
			if l := idx[k]; len(l) == 0 || l[len(l)-1] != i {
				idx[k] = append(l, i)
			}
		}
	}
	return pairsOf(idx)
}

// pairsOf returns once each pair (i < j) found together in one of
// groups, sorted.
func pairsOf(groups map[string][]int) [][2]int {
	seen := map[[2]int]bool{}
	var out [][2]int
	for _, is := range groups {
		for x, i := range is {
			for _, j := range is[x+1:] {
				p := [2]int{min(i, j), max(i, j)}
				if !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	return out
}

func sharedTags(a, b *vault.Memory) []string {
	var out []string
	for _, t := range a.Tags {
		if slices.ContainsFunc(b.Tags, func(u string) bool { return strings.EqualFold(t, u) }) {
			out = append(out, t)
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

// clusterEntry is the entry of cluster c (indexes into ms, oldest first):
// the oldest memory, with the others.
func clusterEntry(ms []*vault.Memory, c []int, kind string) Entry {
	e := entryOf(ms[c[0]])
	e.Kind = kind
	for _, i := range c[1:] {
		e.With = append(e.With, otherOf(ms[i]))
	}
	return e
}

// mergedTitle suggests a title for the memory a cluster becomes: the
// words every title shares, in the oldest title's order, when there are
// at least two; else the oldest title, which the others joined.
func mergedTitle(ms []*vault.Memory, c []int) string {
	first := words(ms[c[0]].Title)
	var common []string
	for _, w := range first {
		lw := strings.ToLower(w)
		all := true
		for _, i := range c[1:] {
			if !slices.ContainsFunc(words(ms[i].Title), func(x string) bool { return strings.ToLower(x) == lw }) {
				all = false
				break
			}
		}
		if all && !slices.ContainsFunc(common, func(x string) bool { return strings.ToLower(x) == lw }) {
			common = append(common, w)
		}
	}
	if len(common) < 2 {
		return ms[c[0]].Title
	}
	return capitalise(strings.Join(common, " "))
}

// words splits a title at anything that is not a letter or a digit.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '.' })
}

// clusters is a union-find over n items.
type clusters struct{ parent []int }

func newClusters(n int) *clusters {
	c := &clusters{parent: make([]int, n)}
	for i := range c.parent {
		c.parent[i] = i
	}
	return c
}

func (c *clusters) find(i int) int {
	for c.parent[i] != i {
		c.parent[i] = c.parent[c.parent[i]]
		i = c.parent[i]
	}
	return c.parent[i]
}

func (c *clusters) join(i, j int) {
	a, b := c.find(i), c.find(j)
	if a != b {
		c.parent[max(a, b)] = min(a, b)
	}
}

// groups returns the clusters of two or more, each sorted, ordered by
// their first item.
func (c *clusters) groups() [][]int {
	by := map[int][]int{}
	for i := range c.parent {
		r := c.find(i)
		by[r] = append(by[r], i)
	}
	var out [][]int
	for _, g := range by {
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
	return out
}
