package index

import (
	"unicode"
	"unicode/utf8"
)

// tokKind says where a token came from; queries weight the kinds differently.
type tokKind uint8

const (
	kindWord     tokKind = iota // a standalone Latin word, number or version, lowercased and stemmed
	kindPart                    // a word inside an identifier, path or dotted name
	kindCompound                // a whole identifier, path segment or camelCase piece, lowercased, unstemmed
	kindBigram                  // two adjacent CJK characters
	kindUnigram                 // a CJK character standing alone (a one-character run)
	kindCJKRun                  // a whole CJK run before stop-word splitting (query analysis only)
)

// token is one analyser output. text is only valid during the callback.
type token struct {
	text       []byte
	kind       tokKind
	stop       bool // an English stop word (only reported when analyzer.keepStops)
	start, end int  // byte offsets in the analysed string
}

// Limits that keep garbage (base64 blobs, minified code) out of the index.
const (
	maxWordBytes     = 64
	maxCompoundBytes = 128
)

// runeAt is a folded rune with its byte offset in the original string.
type runeAt struct {
	r   rune
	off int
}

// span is a word inside a Latin run: runes [from, to) of analyzer.rs.
type span struct {
	from, to int
	version  bool
}

// analyzer is the tokenizer. It keeps scratch buffers so that indexing does
// not allocate per token; it is not safe for concurrent use.
type analyzer struct {
	keepStops bool // report English stop words flagged instead of dropping them
	runs      bool // report kindCJKRun tokens
	slow      bool // never take the plainWord shortcut (tests compare both)

	rs    []runeAt
	words []span
	buf   []byte
	tok   token
	fn    func(*token)
}

// Tokenize returns the index terms of s in order of appearance: lowercased,
// lightly stemmed Latin words, identifier parts plus the whole identifier,
// versions kept whole, and overlapping bigrams for Chinese (and other CJK)
// text. English stop words and Chinese function words are dropped. The same
// analyser builds the index, so two texts that share terms here share them
// in search too.
func Tokenize(s string) []string {
	var a analyzer
	var out []string
	a.analyze(s, func(t *token) { out = append(out, string(t.text)) })
	return out
}

// fold maps full-width ASCII forms and the ideographic space to ASCII.
func fold(r rune) rune {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0
	case r == 0x3000:
		return ' '
	}
	return r
}

func isCJK(r rune) bool {
	switch {
	case r < 0x2E80:
		return false
	case r >= 0x4E00 && r <= 0x9FFF:
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

func isAlnum(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

// isConnector reports runes that join words into one identifier when they
// stand between two letters or digits: snake_case, kebab-case, dotted.names,
// paths/like/this.
func isConnector(r rune) bool {
	return r == '_' || r == '-' || r == '.' || r == '/' || r == '\\'
}

func isSegmentSep(r rune) bool { return r == '/' || r == '\\' }
func isChunkSep(r rune) bool   { return r == '-' || r == '_' }

// decode is utf8.DecodeRuneInString(s[i:]) with inline fast paths for
// ASCII and the three-byte sequences that encode CJK.
func decode(s string, i int) (rune, int) {
	c := s[i]
	if c < utf8.RuneSelf {
		return rune(c), 1
	}
	if c&0xF0 == 0xE0 && i+2 < len(s) {
		c1, c2 := s[i+1], s[i+2]
		if c1&0xC0 == 0x80 && c2&0xC0 == 0x80 {
			r := rune(c&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F)
			if r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
				return r, 3
			}
		}
	}
	return utf8.DecodeRuneInString(s[i:])
}

// analyze tokenizes s and calls fn for every token in order.
func (a *analyzer) analyze(s string, fn func(*token)) {
	a.fn = fn
	i := 0
	for i < len(s) {
		if !a.slow && isASCIIAlnum(s[i]) {
			if j := plainWordEnd(s, i); j > 0 {
				a.plainWord(s, i, j)
				i = j
				continue
			}
			if j := identEnd(s, i); j > 0 {
				a.ident(s, i, j)
				i = j
				continue
			}
		}
		r, size := decode(s, i)
		r = fold(r)
		switch {
		case isCJK(r):
			j := i + size
			for j < len(s) {
				r2, s2 := decode(s, j)
				if !isCJK(r2) {
					break
				}
				j += s2
			}
			a.cjk(s, i, j)
			i = j
		case isAlnum(r):
			a.rs = a.rs[:0]
			a.rs = append(a.rs, runeAt{r, i})
			j := i + size
			prevAlnum := true
			for j < len(s) {
				r2, s2 := decode(s, j)
				r2 = fold(r2)
				if isCJK(r2) {
					break
				}
				if isAlnum(r2) {
					a.rs = append(a.rs, runeAt{r2, j})
					prevAlnum = true
					j += s2
					continue
				}
				if !isConnector(r2) || !prevAlnum || j+s2 >= len(s) {
					break
				}
				r3, _ := decode(s, j+s2)
				r3 = fold(r3)
				if !isAlnum(r3) || isCJK(r3) {
					break
				}
				a.rs = append(a.rs, runeAt{r2, j})
				prevAlnum = false
				j += s2
			}
			a.latin(j)
			i = j
		default:
			i += size
		}
	}
	a.fn = nil
}

// plainWordEnd returns the end of the Latin run starting at s[i] if the
// run is one plain ASCII word (letters and digits, only the first letter
// may be upper case: no camelCase, no connector inside, no other letter
// after it), else -1. Most words are plain; latin would turn them into
// exactly one kindWord token, which plainWord emits without building the
// rune slice.
func plainWordEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && ('a' <= s[j] && s[j] <= 'z' || '0' <= s[j] && s[j] <= '9') {
		j++
	}
	return runEnd(s, j)
}

// runEnd returns j if a Latin run scanned up to s[j] surely ends there,
// else -1: what follows could continue it (an upper-case letter starts a
// camelCase word; a connector continues the run if a letter or digit
// follows it; other letters and digits beyond ASCII), and the shortcuts
// leave such runs to latin.
func runEnd(s string, j int) int {
	if j == len(s) {
		return j
	}
	c := s[j]
	switch {
	case 'A' <= c && c <= 'Z':
		return -1
	case c < utf8.RuneSelf:
		if isConnector(rune(c)) && j+1 < len(s) {
			return -1
		}
		return j
	}
	r, _ := decode(s, j)
	r = fold(r)
	if !isCJK(r) && (isAlnum(r) || isConnector(r)) {
		return -1
	}
	return j
}

// plainWord emits the plain word s[i:j] (see plainWordEnd) as latin would.
func (a *analyzer) plainWord(s string, i, j int) {
	a.buf = append(a.buf[:0], s[i:j]...)
	if c := a.buf[0]; 'A' <= c && c <= 'Z' {
		a.buf[0] = c + 'a' - 'A'
	}
	if len(a.buf) > maxWordBytes {
		return
	}
	stop := isStopWord(a.buf)
	if stop && !a.keepStops {
		return
	}
	a.buf = stem(a.buf)
	a.emit(kindWord, stop, i, j)
}

// identEnd returns the end of the Latin run starting at s[i] if the run
// is a lower-case ASCII identifier such as order_id or dead-letter-queue:
// words of lower-case letters and digits joined by single '_' or '-'.
// Otherwise, or if the run might go on past what it checked, it returns
// -1 and latin handles the run.
func identEnd(s string, i int) int {
	j := i
	parts := 0
	for {
		k := j
		for k < len(s) && ('a' <= s[k] && s[k] <= 'z' || '0' <= s[k] && s[k] <= '9') {
			k++
		}
		if k == j {
			return -1
		}
		parts++
		j = k
		if j+1 < len(s) && (s[j] == '_' || s[j] == '-') &&
			('a' <= s[j+1] && s[j+1] <= 'z' || '0' <= s[j+1] && s[j+1] <= '9') {
			j++
			continue
		}
		break
	}
	if parts < 2 {
		return -1
	}
	return runEnd(s, j)
}

// ident emits the identifier s[i:j] (see identEnd) as latin would: each
// word longer than one letter (or starting with a digit) as a part, then
// the whole identifier as a compound. No piece of it is a version, a
// camelCase word or a compound of its own.
func (a *analyzer) ident(s string, i, j int) {
	for p := i; p < j; {
		q := p
		for q < j && s[q] != '_' && s[q] != '-' {
			q++
		}
		if q-p > 1 || '0' <= s[p] && s[p] <= '9' {
			a.buf = append(a.buf[:0], s[p:q]...)
			if len(a.buf) <= maxWordBytes {
				stop := isStopWord(a.buf)
				if !stop || a.keepStops {
					a.buf = stem(a.buf)
					a.emit(kindPart, stop, p, q)
				}
			}
		}
		p = q + 1
	}
	a.buf = append(a.buf[:0], s[i:j]...)
	if len(a.buf) <= maxCompoundBytes && !isStopWord(a.buf) {
		a.emit(kindCompound, false, i, j)
	}
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// emit reports a token whose text is in a.buf.
func (a *analyzer) emit(kind tokKind, stop bool, start, end int) {
	a.tok = token{text: a.buf, kind: kind, stop: stop, start: start, end: end}
	a.fn(&a.tok)
}

// cjk handles the CJK run s[i:j]: function words split it into sub-runs,
// each sub-run becomes overlapping bigrams, or a unigram when it has a single
// character.
func (a *analyzer) cjk(s string, i, j int) {
	if a.runs {
		a.buf = append(a.buf[:0], s[i:j]...)
		a.emit(kindCJKRun, false, i, j)
	}
	subStart := i
	k := i
	for k < j {
		if n := cjkStopAt(s[k:j]); n > 0 {
			a.cjkSub(s, subStart, k)
			k += n
			subStart = k
			continue
		}
		_, size := decode(s, k)
		k += size
	}
	a.cjkSub(s, subStart, j)
}

func (a *analyzer) cjkSub(s string, i, j int) {
	if i >= j {
		return
	}
	_, s1 := decode(s, i)
	if i+s1 >= j {
		a.buf = append(a.buf[:0], s[i:j]...)
		a.emit(kindUnigram, false, i, j)
		return
	}
	for k := i; k+s1 < j; {
		_, s2 := decode(s, k+s1)
		a.buf = append(a.buf[:0], s[k:k+s1+s2]...)
		a.emit(kindBigram, false, k, k+s1+s2)
		k += s1
		s1 = s2
	}
}

// latin handles the Latin run in a.rs, which ends at byte offset end.
//
// The run is split on '/' into segments, segments on '-' and '_' into chunks,
// chunks on '.' into pieces (unless the chunk is a version such as 3.8.0,
// which stays whole) and pieces on camelCase boundaries into words. Every
// word is reported (stemmed); the whole run, and every segment, chunk or
// piece that has more than one word and differs from the whole, is reported
// lowercased as a compound.
func (a *analyzer) latin(end int) {
	rs := a.rs
	a.words = a.words[:0]
	type group struct{ from, to, w0, w1 int }
	var groups [16]group // compounds below the whole run
	ng := 0
	addGroup := func(from, to, w0 int) {
		if len(a.words)-w0 > 1 && !(from == 0 && to == len(rs)) && ng < len(groups) {
			groups[ng] = group{from, to, w0, len(a.words)}
			ng++
		}
	}
	for segFrom := 0; segFrom < len(rs); {
		segTo := segFrom
		for segTo < len(rs) && !isSegmentSep(rs[segTo].r) {
			segTo++
		}
		segW0 := len(a.words)
		for chFrom := segFrom; chFrom < segTo; {
			chTo := chFrom
			for chTo < segTo && !isChunkSep(rs[chTo].r) {
				chTo++
			}
			chW0 := len(a.words)
			if isVersion(rs[chFrom:chTo]) {
				a.words = append(a.words, span{chFrom, chTo, true})
			} else {
				for pFrom := chFrom; pFrom < chTo; {
					pTo := pFrom
					for pTo < chTo && rs[pTo].r != '.' {
						pTo++
					}
					pW0 := len(a.words)
					a.camel(pFrom, pTo)
					addGroup(pFrom, pTo, pW0)
					pFrom = pTo + 1
				}
			}
			if ng == 0 || groups[ng-1].from != chFrom || groups[ng-1].to != chTo {
				addGroup(chFrom, chTo, chW0)
			}
			chFrom = chTo + 1
		}
		if ng == 0 || groups[ng-1].from != segFrom || groups[ng-1].to != segTo {
			addGroup(segFrom, segTo, segW0)
		}
		segFrom = segTo + 1
	}

	if len(a.words) == 1 && a.words[0].from == 0 && a.words[0].to == len(rs) {
		a.word(a.words[0], kindWord, end)
		return
	}
	for _, w := range a.words {
		if w.to-w.from > 1 || isDigit(rs[w.from].r) {
			a.word(w, kindPart, end)
		}
	}
	for _, g := range groups[:ng] {
		a.compound(g.from, g.to, end)
	}
	a.compound(0, len(rs), end)
}

// isVersion reports runs like 3.8 or 8.11.2: digits separated by dots.
func isVersion(rs []runeAt) bool {
	dots := 0
	for k, c := range rs {
		switch {
		case isDigit(c.r):
		case c.r == '.' && k > 0 && k < len(rs)-1:
			dots++
		default:
			return false
		}
	}
	return dots > 0
}

// camel appends the camelCase words of runes [from, to) to a.words.
func (a *analyzer) camel(from, to int) {
	rs := a.rs
	start := from
	for k := from + 1; k < to; k++ {
		p, c := rs[k-1].r, rs[k].r
		if isUpper(c) && (isLower(p) || isDigit(p) ||
			isUpper(p) && k+1 < to && isLower(rs[k+1].r)) {
			a.words = append(a.words, span{start, k, false})
			start = k
		}
	}
	if start < to {
		a.words = append(a.words, span{start, to, false})
	}
}

// offsets returns the byte range of runes [from, to) of a.rs.
func (a *analyzer) offsets(from, to, end int) (int, int) {
	e := end
	if to < len(a.rs) {
		e = a.rs[to].off
	}
	return a.rs[from].off, e
}

func (a *analyzer) lower(from, to int) {
	a.buf = a.buf[:0]
	for _, c := range a.rs[from:to] {
		r := c.r
		switch {
		case r == '\\':
			r = '/'
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		case r >= utf8.RuneSelf:
			r = unicode.ToLower(r)
		}
		a.buf = utf8.AppendRune(a.buf, r)
	}
}

func (a *analyzer) word(w span, kind tokKind, end int) {
	a.lower(w.from, w.to)
	if len(a.buf) > maxWordBytes {
		return
	}
	stop := false
	if !w.version {
		stop = isStopWord(a.buf)
		if stop && !a.keepStops {
			return
		}
		a.buf = stem(a.buf)
	}
	s, e := a.offsets(w.from, w.to, end)
	a.emit(kind, stop, s, e)
	if w.version {
		// 3.8.0 also answers to 3.8.
		if i := majorMinor(a.buf); i > 0 {
			a.buf = a.buf[:i]
			a.emit(kindPart, false, s, e)
		}
	}
}

// majorMinor returns the length of the "3.8" prefix of a version with at
// least two dots such as "3.8.0", or 0.
func majorMinor(v []byte) int {
	dots := 0
	for i, c := range v {
		if c == '.' {
			dots++
			if dots == 2 {
				return i
			}
		}
	}
	return 0
}

func (a *analyzer) compound(from, to, end int) {
	a.lower(from, to)
	if len(a.buf) > maxCompoundBytes || isStopWord(a.buf) {
		return
	}
	s, e := a.offsets(from, to, end)
	a.emit(kindCompound, false, s, e)
}

// DistinctTerms returns how many distinct terms Tokenize finds in s.
func DistinctTerms(s string) int {
	seen := map[string]struct{}{}
	var a analyzer
	a.analyze(s, func(t *token) {
		if _, ok := seen[string(t.text)]; !ok {
			seen[string(t.text)] = struct{}{}
		}
	})
	return len(seen)
}
