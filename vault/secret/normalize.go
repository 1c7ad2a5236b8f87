package secret

import (
	"unicode/utf8"
)

// normalized is the text Scan searches besides the input: the input with
// evasions undone (see normalize), and where each of its bytes came from.
type normalized struct {
	text []byte
	// from[i] is the offset in the input of the character, escape or
	// entity that produced text[i]; from[len(text)] is len(input).
	from []int32
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
//     (\n \t \r \f \v \b \0 \" \' \\ \/, \xHH, \uHHHH with surrogate pairs,
//     \u{H...}, \UHHHHHHHH), so that "x\nghp_…" has a line break before
//     the token, not the letter n; an escaped control character becomes a
//     space, a boundary;
//   - decodes HTML character references: &#NNN;, &#xHHH; and the named
//     ones that stand for ASCII punctuation, spaces or invisible characters.
//
// Decoded characters are folded like the others. It reports false, and
// allocates nothing, when the input has nothing to normalise.
func normalize(src []byte) (normalized, bool) {
	var n normalized
	building := false
	// start builds the output from what was copied as is so far.
	start := func(upTo int) {
		building = true
		n.text = make([]byte, upTo, len(src)+16)
		copy(n.text, src[:upTo])
		n.from = make([]int32, upTo, len(src)+17)
		for i := range upTo {
			n.from[i] = int32(i)
		}
	}
	emit := func(at int, s string) {
		for i := 0; i < len(s); i++ {
			n.text = append(n.text, s[i])
			n.from = append(n.from, int32(at))
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		if c >= 0x20 && c < 0x7F && c != '\\' && c != '&' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			if building {
				n.text = append(n.text, c)
				n.from = append(n.from, int32(i))
			}
			i++
			continue
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
				if building {
					n.text = append(n.text, c)
					n.from = append(n.from, int32(i))
				}
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
			if out, ok = foldRune(r, lastByte(src, i, &n, building)); !ok {
				if building {
					n.text = append(n.text, src[i:i+size]...)
					for range size {
						n.from = append(n.from, int32(i))
					}
				}
				i += size
				continue
			}
		}
		if !building {
			start(i)
		}
		emit(i, out)
		i += size
	}
	if !building {
		return normalized{}, false
	}
	n.from = append(n.from, int32(len(src)))
	return n, true
}

// lastByte is the byte before src[i] in the output being built: the last
// output byte, or the input's while nothing has changed yet.
func lastByte(src []byte, i int, n *normalized, building bool) byte {
	if building {
		if len(n.text) == 0 {
			return 0
		}
		return n.text[len(n.text)-1]
	}
	if i == 0 {
		return 0
	}
	return src[i-1]
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
