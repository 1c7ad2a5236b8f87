package secret

import (
	"sort"
	"unicode"
)

// printable holds the printable ASCII characters, so that a fold to one of
// them is a substring, not an allocation.
const printable = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

func ascii(c rune) string { return printable[c-' ' : c-' '+1] }

// number spells n, from 0 to 50, as the circled and parenthesised
// numbers that stand for it do.
func number(n rune) string {
	const tens = "0123456789"
	if n < 10 {
		return tens[n : n+1]
	}
	return numbers[2*(n-10) : 2*(n-10)+2]
}

// numbers holds the two-digit numbers 10 to 50, for number.
const numbers = "1011121314151617181920212223242526272829303132333435363738394041424344454647484950"

// foldEntry is one row of foldTable: a code point and its NFKC form.
type foldEntry struct {
	r rune
	s string
}

// foldNFKC returns the NFKC form of r when that form is printable ASCII
// (ok false otherwise). It covers every such code point of Unicode 14, and
// TestFoldMatchesNFKC checks it against Python's unicodedata in both
// directions: the regular blocks are computed here, the rest is foldTable.
func foldNFKC(r rune) (string, bool) {
	if s, ok := foldBlock(r); ok {
		return s, true
	}
	i := sort.Search(len(foldTable), func(i int) bool { return foldTable[i].r >= r })
	if i < len(foldTable) && foldTable[i].r == r {
		return foldTable[i].s, true
	}
	return "", false
}

// foldBlock computes the blocks whose code points map to ASCII in order.
// Unassigned code points inside them (the holes of the mathematical
// alphabets) fold too: no text holds them, and they would read alike.
func foldBlock(r rune) (string, bool) {
	switch {
	case r >= 0xFF01 && r <= 0xFF5E: // full-width forms
		return ascii(r - 0xFF01 + '!'), true
	case r >= 0x2000 && r <= 0x200A: // en quad .. hair space
		return " ", true
	case r >= 0x2074 && r <= 0x2079: // superscript 4-9
		return ascii(r - 0x2074 + '4'), true
	case r >= 0x2080 && r <= 0x2089: // subscript 0-9
		return ascii(r - 0x2080 + '0'), true
	case r >= 0x2460 && r <= 0x2473: // circled 1-20
		return number(r - 0x2460 + 1), true
	case r >= 0x2474 && r <= 0x2487: // parenthesised 1-20
		return "(" + number(r-0x2474+1) + ")", true
	case r >= 0x2488 && r <= 0x249B: // 1. - 20.
		return number(r-0x2488+1) + ".", true
	case r >= 0x249C && r <= 0x24B5: // parenthesised a-z
		return "(" + ascii(r-0x249C+'a') + ")", true
	case r >= 0x24B6 && r <= 0x24CF: // circled A-Z
		return ascii(r - 0x24B6 + 'A'), true
	case r >= 0x24D0 && r <= 0x24E9: // circled a-z
		return ascii(r - 0x24D0 + 'a'), true
	case r == 0x24EA: // circled 0
		return "0", true
	case r >= 0x3251 && r <= 0x325F: // circled 21-35
		return number(r - 0x3251 + 21), true
	case r >= 0x32B1 && r <= 0x32BF: // circled 36-50
		return number(r - 0x32B1 + 36), true
	case r >= 0x1D400 && r <= 0x1D6A3: // mathematical alphabets: 13 of A-Z a-z
		k := (r - 0x1D400) % 52
		if k < 26 {
			return ascii('A' + k), true
		}
		return ascii('a' + k - 26), true
	case r >= 0x1D7CE && r <= 0x1D7FF: // mathematical digits: 5 of 0-9
		return ascii('0' + (r-0x1D7CE)%10), true
	case r == 0x1F100: // digit zero full stop
		return "0.", true
	case r >= 0x1F101 && r <= 0x1F10A: // digit comma
		return ascii(r-0x1F101+'0') + ",", true
	case r >= 0x1F110 && r <= 0x1F129: // parenthesised A-Z
		return "(" + ascii(r-0x1F110+'A') + ")", true
	case r >= 0x1F130 && r <= 0x1F149: // squared A-Z
		return ascii(r - 0x1F130 + 'A'), true
	case r >= 0x1FBF0 && r <= 0x1FBF9: // segmented digits
		return ascii(r - 0x1FBF0 + '0'), true
	}
	return "", false
}

// lookalikes maps letters of other scripts that look like ASCII letters
// and have no NFKC mapping to them: the Cyrillic and Greek letters of
// Unicode's confusables list (confusablesSummary.txt) that are
// indistinguishable from a Latin letter in common fonts, and the negative
// circled and squared Latin capitals. Folding them makes "ghр_" (Cyrillic
// р) read as "ghp_"; Cyrillic and Greek words never spell a rule keyword.
var lookalikes = map[rune]byte{
	// Cyrillic capitals and small letters.
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T',
	'Х': 'X', 'У': 'Y', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ү': 'Y', 'Һ': 'H', 'Ӏ': 'I', 'Ԛ': 'Q', 'Ԝ': 'W',
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j',
	'һ': 'h', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ӏ': 'l', 'ү': 'y',
	// Greek capitals and small letters.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X', 'ο': 'o', 'ν': 'v', 'ι': 'i', 'α': 'a', 'ρ': 'p',
	// Latin letters outside ASCII that read as ASCII ones.
	'ı': 'i', 'ȷ': 'j', 'ɑ': 'a', 'ɡ': 'g', 'ɩ': 'i', 'ʏ': 'y',
}

// lookalike returns the ASCII letter r looks like, for the letters of
// lookalikes and the negative circled and squared capitals.
func lookalike(r rune) (byte, bool) {
	switch {
	case r >= 0x1F150 && r <= 0x1F169: // negative circled A-Z
		return byte('A' + r - 0x1F150), true
	case r >= 0x1F170 && r <= 0x1F189: // negative squared A-Z
		return byte('A' + r - 0x1F170), true
	}
	c, ok := lookalikes[r]
	return c, ok
}

// invisible reports the characters that render as nothing and so can hide
// inside a token: Unicode's default-ignorable code points (format
// characters such as U+200B zero-width space, U+200D zero-width joiner,
// U+00AD soft hyphen, U+2060 word joiner, U+FEFF, the bidirectional
// controls and tag characters; variation selectors; Hangul fillers) and
// the control characters other than tab, line feed, vertical tab, form
// feed and carriage return.
func invisible(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n' && r != '\v' && r != '\f' && r != '\r'
	case r >= 0x7F && r <= 0x9F:
		return r != 0x85 // next line is a line break
	}
	return unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// lineBreak reports the Unicode line breaks that are not ASCII: next line,
// line separator, paragraph separator.
func lineBreak(r rune) bool { return r == 0x85 || r == 0x2028 || r == 0x2029 }

// combining reports a combining mark, which Scan drops after an ASCII
// letter or digit ("g\u0336hp_" is "ghp_" struck through).
func combining(r rune) bool { return unicode.In(r, unicode.Mn, unicode.Me) }
