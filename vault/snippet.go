package vault

import (
	"sort"
	"strings"
	"unicode"
)

// snippet returns about maxRunes runes of text around the densest cluster
// of matched terms, with "…" where it was cut; the whole text (newlines
// folded) when it is short enough. Terms are index tokens: lower-case
// words, word stems, CJK bigrams; a term matches where it occurs in the
// lower-cased text.
func snippet(text string, terms []string, maxRunes int) string {
	runes := []rune(strings.Join(strings.Fields(text), " "))
	if len(runes) <= maxRunes {
		return string(runes)
	}
	lower := make([]rune, len(runes))
	for i, r := range runes {
		lower[i] = unicode.ToLower(r)
	}
	type hit struct{ pos, term int }
	var hits []hit
	for ti, t := range terms {
		tr := []rune(t)
		if len(tr) == 0 {
			continue
		}
		for i := 0; i+len(tr) <= len(lower); i++ {
			if lower[i] == tr[0] && string(lower[i:i+len(tr)]) == t {
				hits = append(hits, hit{i, ti})
			}
		}
	}
	start := 0
	if len(hits) > 0 {
		sort.Slice(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
		// Slide a window of maxRunes over the hits; keep the one covering
		// the most distinct terms, then the most hits.
		best, bestDistinct, bestCount := 0, -1, -1
		counts := map[int]int{}
		j := 0
		for i := range hits {
			for j < len(hits) && hits[j].pos < hits[i].pos+maxRunes*3/4 {
				counts[hits[j].term]++
				j++
			}
			if d := len(counts); d > bestDistinct || d == bestDistinct && j-i > bestCount {
				best, bestDistinct, bestCount = i, d, j-i
			}
			if counts[hits[i].term]--; counts[hits[i].term] == 0 {
				delete(counts, hits[i].term)
			}
		}
		// Some context before the first match, snapped to a word start.
		start = max(0, hits[best].pos-maxRunes/6)
		for k := start; k > 0 && k > start-12; k-- {
			if unicode.IsSpace(runes[k-1]) || isCJKRune(runes[k]) {
				start = k
				break
			}
		}
	}
	end := min(len(runes), start+maxRunes)
	if end == len(runes) {
		start = max(0, end-maxRunes)
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(strings.TrimSpace(string(runes[start:end])))
	if end < len(runes) {
		b.WriteString("…")
	}
	return b.String()
}

func isCJKRune(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
