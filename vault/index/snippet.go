package index

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis marks where Snippet cut the text.
const Ellipsis = "…"

// maxSnippetMatches bounds the work Snippet does on huge texts.
const maxSnippetMatches = 2000

// Snippet returns a window of text of at most maxRunes runes (ellipses
// included) around the densest cluster of the given terms, with Ellipsis at
// each end where the text was cut. Terms may be index terms (Hit.Terms) or
// plain words; both are matched through the analyzer, so "Orders" finds
// "order" and "订单" finds itself inside longer Chinese text. A text that
// fits is returned whole; without matches the snippet is the text's start.
// Cuts never split a rune and avoid splitting a Latin word when they can.
func Snippet(text string, terms []string, maxRunes int) string {
	return snippet(text, nil, terms, maxRunes)
}

// SnippetText is a text analysed for Snippet once, to cut snippets of it
// for any terms without analysing it again (a memory recalled often).
type SnippetText struct {
	text  string
	runes []rune         // the text's, which every cut indexes
	words string         // the tokens' texts, one after another
	toks  []snippetToken // in the analyser's order
}

// snippetToken is one token of a SnippetText: its text is
// words[word:word+n], at its byte offset in the text (which orders the
// matches as Snippet does), and start and end are its rune offsets.
type snippetToken struct {
	word, n, at, start, end int32
}

// AnalyseSnippetText analyses text for SnippetText.Snippet.
func AnalyseSnippetText(text string) *SnippetText {
	st := &SnippetText{text: text, runes: []rune(text)}
	var words []byte
	var a analyzer
	a.analyze(text, func(t *token) {
		st.toks = append(st.toks, snippetToken{int32(len(words)), int32(len(t.text)), int32(t.start), int32(t.start), int32(t.end)})
		words = append(words, t.text...)
	})
	st.words = string(words)
	st.toks = slices.Clip(st.toks)
	if len(st.toks) > 0 {
		toRune := runeIndexer(text)
		for i := range st.toks {
			st.toks[i].start, st.toks[i].end = int32(toRune(int(st.toks[i].start))), int32(toRune(int(st.toks[i].end)))
		}
	}
	return st
}

// Snippet is Snippet(text, terms, maxRunes) for st's text.
func (st *SnippetText) Snippet(terms []string, maxRunes int) string {
	return snippet(st.text, st, terms, maxRunes)
}

// snippet is Snippet, reading the text's tokens from st when it is not
// nil.
func snippet(text string, st *SnippetText, terms []string, maxRunes int) string {
	if maxRunes <= 0 {
		return ""
	}
	var runes []rune // the text's, made only when a window is cut
	n := 0
	if st != nil {
		runes, n = st.runes, len(st.runes)
	} else {
		n = utf8.RuneCountInString(text)
	}
	if n <= maxRunes {
		return text
	}
	if maxRunes <= 2 {
		return text[:byteOffset(text, maxRunes)]
	}

	want := map[string]int{}
	for _, t := range terms {
		want[strings.ToLower(t)] = len(want)
		for _, tok := range Tokenize(t) {
			if _, ok := want[tok]; !ok {
				want[tok] = len(want)
			}
		}
	}
	// The matches in the analyser's order, then by byte offset (at); a
	// SnippetText has their rune offsets already.
	type match struct{ at, start, end, term int }
	var ms []match
	if st != nil {
		for _, t := range st.toks {
			if len(ms) >= maxSnippetMatches {
				break
			}
			if id, ok := want[st.words[t.word:t.word+t.n]]; ok {
				ms = append(ms, match{int(t.at), int(t.start), int(t.end), id})
			}
		}
		slices.SortFunc(ms, func(x, y match) int { return x.at - y.at })
	} else {
		var a analyzer
		a.analyze(text, func(t *token) {
			if len(ms) >= maxSnippetMatches {
				return
			}
			if id, ok := want[string(t.text)]; ok {
				ms = append(ms, match{t.start, t.start, t.end, id})
			}
		})
		// Byte offsets -> rune offsets in one pass.
		slices.SortFunc(ms, func(x, y match) int { return x.at - y.at })
		if len(ms) > 0 {
			toRune := runeIndexer(text)
			for i := range ms {
				ms[i].start, ms[i].end = toRune(ms[i].start), toRune(ms[i].end)
			}
		}
	}

	// The densest window: most distinct terms, then most matches.
	width := maxRunes - 2
	cs, ce := 0, 0
	bestDistinct, bestCount := 0, 0
	seen := map[int]int{}
	for i := range ms {
		clear(seen)
		for j := i; j < len(ms) && ms[j].end-ms[i].start <= width; j++ {
			seen[ms[j].term]++
			if d, c := len(seen), j-i+1; d > bestDistinct || d == bestDistinct && c > bestCount {
				bestDistinct, bestCount = d, c
				cs, ce = ms[i].start, ms[j].end
			}
		}
	}

	// Place the window: the cluster, with a third of the slack before it.
	start := 0
	if bestDistinct > 0 {
		start = max(cs-(width-(ce-cs))/3, 0)
		start = min(start, n-width)
	}
	if runes == nil {
		runes = []rune(text)
	}
	if start > 0 {
		// Do not start inside a Latin word: move to its end if that keeps
		// the cluster in the window.
		for k := start; k < min(start+12, cs+1, n); k++ {
			if !isWordRune(runes[k-1]) || !isWordRune(runes[k]) {
				start = k
				break
			}
		}
	}
	avail := maxRunes
	if start > 0 {
		avail--
	}
	end := n
	if n-start > avail {
		end = start + avail - 1
		// Do not end inside a Latin word either.
		for k := end; k > max(end-12, ce, start+1); k-- {
			if !isWordRune(runes[k-1]) || !isWordRune(runes[k]) {
				end = k
				break
			}
		}
	}
	var sb strings.Builder
	if start > 0 {
		sb.WriteString(Ellipsis)
		sb.WriteString(strings.TrimLeftFunc(string(runes[start:end]), unicode.IsSpace))
	} else {
		sb.WriteString(string(runes[start:end]))
	}
	if end < n {
		s := strings.TrimRightFunc(sb.String(), unicode.IsSpace)
		sb.Reset()
		sb.WriteString(s)
		sb.WriteString(Ellipsis)
	}
	return sb.String()
}

// isWordRune reports Latin letters and digits, the runes a cut should not
// fall between.
func isWordRune(r rune) bool { return isAlnum(r) && !isCJK(r) }

// byteOffset returns the byte offset of rune index k in s.
func byteOffset(s string, k int) int {
	i := 0
	for j := range s {
		if i == k {
			return j
		}
		i++
	}
	return len(s)
}

// runeIndexer returns a function mapping byte offsets of s (at rune
// boundaries, in any order) to rune offsets.
func runeIndexer(s string) func(int) int {
	idx := make([]int32, 0, len(s)+1)
	r := int32(0)
	for i := range s {
		for len(idx) < i {
			idx = append(idx, r) // inside an invalid or multi-byte rune
		}
		idx = append(idx, r)
		r++
	}
	for len(idx) <= len(s) {
		idx = append(idx, r)
	}
	return func(b int) int { return int(idx[b]) }
}
