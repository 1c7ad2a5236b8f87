package secret

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"
)

// normalized is the text Scan searches besides the input: the input with
// evasions undone (see normalize), and where each of its bytes came from.
type normalized struct {
	text []byte
	// from[i] is the offset in the input of the character, escape or
	// entity that produced text[i]; from[len(text)] is len(input). It is
	// filled only when asked for (see normalize).
	from []int32
	// changed holds, in order, the offsets in text where it differs from
	// the input: where a character was replaced or removed, and where a
	// line begins that a decoded line break started. A line of text
	// without one is a line of the input, byte for byte.
	changed []int
}

// lineChanged reports whether the line of text from start to end (the
// offset of its line feed, or len(text)) holds a change.
func (n *normalized) lineChanged(start, end int) bool {
	k, _ := slices.BinarySearch(n.changed, start)
	return k < len(n.changed) && n.changed[k] <= end
}

// origin maps a span of the normalised text to the input: from the start
// of the character that produced its first byte to the start of the one
// after its last byte (so it includes characters normalize removed there).
func (n *normalized) origin(start, end int) (int, int) {
	return int(n.from[start]), int(n.from[end])
}

// normalize undoes the ways a secret can be written so that it reads the
// same to a person or a program but not to a pattern. In one pass over
// the input it:
//
//   - removes invisible characters (zero-width space and joiners, soft
//     hyphen, word joiner, byte-order mark, bidirectional controls,
//     variation selectors, control characters; see invisible) and
//     combining marks after an ASCII letter, digit or underscore;
//   - folds every character whose NFKC form is ASCII to that form
//     (full-width ｇｈｐ＿, mathematical 𝐠𝐡𝐩, circled ⓖ, ideographic and
//     other spaces, ligatures; see foldNFKC) and the Cyrillic and Greek
//     letters that look like Latin ones (see lookalike);
//   - reads Unicode line and paragraph separators as line feeds;
//   - decodes the escapes of JSON, JavaScript, Go and Python strings
//     (\n \t \r \f \v \b \0 \" \' \\ \/, \xHH, \uHHHH with surrogate
//     pairs, \u{H...}, \UHHHHHHHH), so that "x\nghp_…" has a line break
//     before the token, not the letter n; an escaped control character
//     becomes a space, a boundary;
//   - decodes HTML character references: &#NNN;, &#xHHH; and the named
//     ones that stand for ASCII punctuation, spaces or invisible characters.
//
// Decoded characters are folded like the others. It reports false, and
// allocates nothing, when the input has nothing to normalise. With
// origins it also fills normalized.from; Scan asks for it only when the
// normalised text holds a finding to place.
func normalize(src []byte, origins bool) (normalized, bool) {
	b := builder{src: src, origins: origins}
	b.run()
	return b.done()
}

// mayReveal reports whether the normalised text of data may hold a
// finding that the plain scan of data, with these keyword hits, has not
// made. It says no, without building that text, when each change is inert
// (see inert) and none lies on a line with a keyword hit, and no keyword
// of a multiline rule is present: every keyword of the normalised text is
// then one of data, on a line left as it was, which the plain scan has
// searched. This is the common case of Chinese prose, whose full-width
// punctuation is normalised but holds no secret.
func mayReveal(data []byte, hits []hit, present uint64) bool {
	if present&multilineKeywords != 0 {
		return true
	}
	b := builder{src: data, dry: true}
	for _, h := range hits {
		if n := len(b.hitLines); n > 0 && h.pos <= b.hitLines[n-1][1] {
			continue // on the line of the previous hit
		}
		ls := bytes.LastIndexByte(data[:h.pos], '\n') + 1
		le := len(data)
		if j := bytes.IndexByte(data[h.pos:], '\n'); j >= 0 {
			le = h.pos + j
		}
		b.hitLines = append(b.hitLines, [2]int{ls, le})
	}
	b.run()
	return b.reveal
}

// run is normalize's pass over the input.
func (b *builder) run() {
	src := b.src
	for i := 0; i < len(src) && !b.reveal; {
		// Skip what normalize never changes: ASCII but for backslash,
		// ampersand and control characters, and Han (see odd).
		for i < len(src) && odd[src[i]] == 0 {
			i++
		}
		if i == len(src) {
			break
		}
		c := src[i]
		switch {
		case c == 0xE3 && plainCJK(src, i):
			i += 3
			continue
		case c == 0xEF && i+2 < len(src) && (src[i+1] == 0xBC || src[i+1] == 0xBD && src[i+2] <= 0x9E) && src[i+2] >= 0x80 && src[i+2] <= 0xBF:
			// U+FF00 to U+FF5E: full-width forms, as common as
			// punctuation in Chinese text.
			if r := rune(src[i+1]&0x3F)<<6 | rune(src[i+2]&0x3F) | 0xF000; r >= 0xFF01 {
				b.put(i, i+3, ascii(r-0xFF01+'!'))
				i += 3
				continue
			}
		}
		var out string
		size := 1
		switch {
		case c == '\\' || c == '&':
			var r rune
			var ok bool
			if c == '\\' {
				r, size, ok = unescape(src[i:])
			} else {
				r, size, ok = entity(src[i:])
			}
			if !ok {
				i++
				continue
			}
			out = decoded(r)
		case c < 0x80: // other control characters
			out = ""
		default:
			var r rune
			r, size = utf8.DecodeRune(src[i:])
			var ok bool
			if out, ok = foldRune(r, b.last(i)); !ok {
				i += size
				continue
			}
		}
		b.put(i, i+size, out)
		i += size
	}
}

// plainCJK reports a character at src[i] that normalize leaves as it is
// and can tell from its bytes alone: Han from U+4000 to U+9FFF, the bulk of
// Chinese text; CJK punctuation from U+3001 to U+3029 (、。「」《》) and
// kana from U+3040 to U+30FF, but the combining kana marks U+3099 and
// U+309A (and a few kana sharing their last byte).
func plainCJK(src []byte, i int) bool {
	if i+2 >= len(src) || src[i+1]&0xC0 != 0x80 || src[i+2]&0xC0 != 0x80 {
		return false
	}
	switch c, c1, c2 := src[i], src[i+1], src[i+2]; {
	case c >= 0xE4 && c <= 0xE9:
		return true
	case c == 0xE3:
		return c1 == 0x80 && c2 >= 0x81 && c2 <= 0xA9 || c1 >= 0x81 && c1 <= 0x83 && c2 != 0x99 && c2 != 0x9A
	}
	return false
}

// builder collects normalize's output. It copies nothing while the input
// stays as it is: the first change copies what came before, and after
// that runs of unchanged input are copied at once.
type builder struct {
	src      []byte
	origins  bool
	building bool
	kept     int // start of the unchanged run not yet copied
	n        normalized
	// dry builds nothing: it only looks for a change that may reveal a
	// finding (see mayReveal), and sets reveal and stops at the first.
	dry      bool
	hitLines [][2]int // lines of data with a keyword hit, in order
	reveal   bool
}

// flush copies the unchanged run before the input's byte at i.
func (b *builder) flush(i int) {
	if b.kept >= i {
		return
	}
	b.n.text = append(b.n.text, b.src[b.kept:i]...)
	if b.origins {
		for k := b.kept; k < i; k++ {
			b.n.from = append(b.n.from, int32(k))
		}
	}
	b.kept = i
}

// put writes s for the input's character at i, which ends at end.
func (b *builder) put(i, end int, s string) {
	if b.dry {
		for len(b.hitLines) > 0 && b.hitLines[0][1] < i {
			b.hitLines = b.hitLines[1:]
		}
		onHitLine := len(b.hitLines) > 0 && b.hitLines[0][0] <= i
		b.reveal = onHitLine || !inert(s, b.src, end)
		b.building, b.kept = true, end
		return
	}
	if !b.building {
		b.building = true
		b.n.text = make([]byte, 0, len(b.src)+16)
		if b.origins {
			b.n.from = make([]int32, 0, len(b.src)+17)
		}
	}
	b.flush(i)
	// The change, and the start of a line it makes, are where the
	// normalised text differs from the input (see normalized.changed).
	at := len(b.n.text)
	b.n.changed = append(b.n.changed, at)
	if k := strings.LastIndexByte(s, '\n'); k >= 0 {
		b.n.changed = append(b.n.changed, at+k+1)
	}
	b.n.text = append(b.n.text, s...)
	if b.origins {
		for range len(s) {
			b.n.from = append(b.n.from, int32(i))
		}
	}
	b.kept = end
}

// last is the byte written before the input's character at i.
func (b *builder) last(i int) byte {
	if b.kept < i || !b.building || b.dry {
		if i == 0 {
			return 0
		}
		return b.src[i-1]
	}
	if len(b.n.text) == 0 {
		return 0
	}
	return b.n.text[len(b.n.text)-1]
}

func (b *builder) done() (normalized, bool) {
	if !b.building {
		return normalized{}, false
	}
	b.flush(len(b.src))
	if b.origins {
		b.n.from = append(b.n.from, int32(len(b.src)))
	}
	return b.n, true
}

// inert reports a change that can neither make nor complete a keyword:
// it writes at least one byte (a removal joins its neighbours) and only
// ASCII bytes that no keyword holds, or a colon not followed by what may
// be a slash (":" only occurs in keywords as "://"). Full-width commas,
// full stops, brackets and colons of Chinese prose are inert.
func inert(s string, src []byte, end int) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return false
		case !keywordBytes[c]:
		case c != ':' || i+1 < len(s):
			return false
		case end == len(src):
		case src[end] < 0x80:
			// An escape or entity could stand for a slash.
			if src[end] == '/' || src[end] == '\\' || src[end] == '&' {
				return false
			}
		case !plainCJK(src, end):
			return false // a full-width slash, or a character removed before one
		}
	}
	return true
}

// foldRune returns what normalize writes for the non-ASCII r, with prev
// the byte written before it; ok is false when r stays as it is.
func foldRune(r rune, prev byte) (string, bool) {
	switch {
	case r >= 0x3400 && r <= 0x9FFF, r >= 0xAC00 && r <= 0xD7A3:
		return "", false // Han and Hangul syllables: the common case, and nothing to fold
	case r >= 0xFF01 && r <= 0xFF5E:
		return ascii(r - 0xFF01 + '!'), true // full-width forms, as common in Chinese text
	case invisible(r):
		return "", true
	case lineBreak(r):
		return "\n", true
	}
	if s, ok := foldNFKC(r); ok {
		return s, true
	}
	if c, ok := lookalike(r); ok {
		return ascii(rune(c)), true
	}
	if isWordByte(prev) && combining(r) {
		return "", true
	}
	return "", false
}

// decoded is what normalize writes for a character an escape or entity
// stands for: control characters other than the line and tab ones become a
// space (a boundary), ASCII is itself, anything else is folded.
func decoded(r rune) string {
	switch {
	case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r':
		return lineChars[r-'\t' : r-'\t'+1]
	case r < 0x20 || r == 0x7F:
		return " "
	case r < 0x7F:
		return ascii(r)
	}
	if s, ok := foldRune(r, 0); ok {
		return s
	}
	return string(r)
}

// lineChars holds tab to carriage return, which decoded returns as
// substrings.
const lineChars = "\t\n\v\f\r"

// unescape decodes the backslash escape at the start of s.
func unescape(s []byte) (r rune, size int, ok bool) {
	if len(s) < 2 {
		return 0, 0, false
	}
	switch s[1] {
	case 'n':
		return '\n', 2, true
	case 't':
		return '\t', 2, true
	case 'r':
		return '\r', 2, true
	case 'f':
		return '\f', 2, true
	case 'v':
		return '\v', 2, true
	case 'b', '0', 'a', 'e':
		return 0, 2, true // a control character: read as a boundary
	case '"', '\'', '\\', '/', '`':
		return rune(s[1]), 2, true
	case 'x':
		if v, ok := hexValue(s[2:], 2); ok {
			return v, 4, true
		}
	case 'u':
		if len(s) > 2 && s[2] == '{' {
			end := 3
			for end < len(s) && end < 10 && s[end] != '}' {
				end++
			}
			if end < len(s) && s[end] == '}' && end > 3 {
				if v, ok := hexValue(s[3:end], end-3); ok && utf8.ValidRune(v) {
					return v, end + 1, true
				}
			}
			return 0, 0, false
		}
		v, ok := hexValue(s[2:], 4)
		if !ok {
			return 0, 0, false
		}
		if v >= 0xD800 && v < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if lo, ok := hexValue(s[8:], 4); ok && lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (v-0xD800)<<10 + (lo - 0xDC00), 12, true
			}
		}
		if !utf8.ValidRune(v) {
			return utf8.RuneError, 6, true
		}
		return v, 6, true
	case 'U':
		if v, ok := hexValue(s[2:], 8); ok && utf8.ValidRune(v) {
			return v, 10, true
		}
	}
	return 0, 0, false
}

// hexValue reads exactly n hex digits at the start of s.
func hexValue(s []byte, n int) (rune, bool) {
	if len(s) < n || n == 0 {
		return 0, false
	}
	var v rune
	for _, c := range s[:n] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | rune(d)
	}
	return v, true
}

// namedEntities are the HTML character references normalize decodes by
// name: those for ASCII punctuation and spaces, which can stand inside or
// around a token, and the invisible ones.
var namedEntities = map[string]rune{
	"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\'', "nbsp": ' ', "ensp": ' ', "emsp": ' ', "thinsp": ' ',
	"lowbar": '_', "UnderBar": '_', "colon": ':', "equals": '=', "sol": '/', "bsol": '\\', "period": '.',
	"hyphen": '-', "dash": '-', "minus": '-', "plus": '+', "num": '#', "commat": '@', "excl": '!', "percnt": '%',
	"dollar": '$', "lpar": '(', "rpar": ')', "ast": '*', "comma": ',', "semi": ';', "quest": '?',
	"lsqb": '[', "rsqb": ']', "lbrack": '[', "rbrack": ']', "lcub": '{', "rcub": '}', "lbrace": '{', "rbrace": '}',
	"Hat": '^', "grave": '`', "verbar": '|', "vert": '|', "tilde": '~', "Tab": '\t', "NewLine": '\n',
	"shy": 0xAD, "zwj": 0x200D, "zwnj": 0x200C, "ZeroWidthSpace": 0x200B, "NoBreak": 0x2060, "lrm": 0x200E, "rlm": 0x200F,
}

// entity decodes the HTML character reference at the start of s: &#NNN;,
// &#xHHH; or a name of namedEntities, each ending in a semicolon.
func entity(s []byte) (r rune, size int, ok bool) {
	end := 1
	for end < len(s) && end < 32 && s[end] != ';' {
		end++
	}
	if end >= len(s) || s[end] != ';' || end < 2 {
		return 0, 0, false
	}
	body := s[1:end]
	if body[0] != '#' {
		r, ok := namedEntities[string(body)]
		return r, end + 1, ok
	}
	digits := body[1:]
	base := rune(10)
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		base, digits = 16, digits[1:]
	}
	if len(digits) == 0 || len(digits) > 7 {
		return 0, 0, false
	}
	var v rune
	for _, c := range digits {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		default:
			return 0, 0, false
		}
		v = v*base + d
	}
	if !utf8.ValidRune(v) {
		v = utf8.RuneError
	}
	return v, end + 1, true
}
