package vault

// RivalPairsOf is RivalPairs for the candidate pairs (i, j), i < j, of ms
// only, in their order. Every one of RivalPairs' criteria needs the two
// titles to share an index term, so a check over a whole vault can pair
// the memories whose titles share one (few) and leave the rest (most)
// unread, instead of weighing every pair.
func RivalPairsOf(ms []*Memory, candidates [][2]int) [][2]int {
	toks := make([]map[string]bool, len(ms))
	title := func(i int) map[string]bool {
		if toks[i] == nil {
			toks[i] = tokenSet(ms[i].Title)
		}
		return toks[i]
	}
	var out [][2]int
	for _, p := range candidates {
		if i, j := p[0], p[1]; rivalPair(title(i), title(j), ms[i], ms[j]) {
			out = append(out, p)
		}
	}
	return out
}
