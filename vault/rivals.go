package vault

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
