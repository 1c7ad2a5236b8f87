package secret

import "math/bits"

// keywordTable locates the rules' keywords in one pass over the input: a
// byte triple (a, b, c) can start keyword k only if bit k is set in
// first[a], second[b] and third[c], which rules out almost every position
// before any comparison. Common English pairs ("as", "se", "to", "pa")
// start keywords; the third byte rules most of them out as well.
type keywordTable struct {
	words                []string
	first, second, third [256]uint64
	// two holds the keywords of two bytes: the only ones that can start
	// at the second-to-last byte, and the ones every third byte allows.
	two uint64
}

func newKeywordTable(words []string) *keywordTable {
	if len(words) > 64 {
		panic("secret: more than 64 keywords")
	}
	t := &keywordTable{words: words}
	for k, w := range words {
		if len(w) < 2 {
			panic("secret: keyword shorter than 2 bytes: " + w)
		}
		for _, c := range []byte{w[0], upper(w[0])} {
			t.first[c] |= 1 << k
		}
		for _, c := range []byte{w[1], upper(w[1])} {
			t.second[c] |= 1 << k
		}
		if len(w) == 2 {
			t.two |= 1 << k
			continue
		}
		for _, c := range []byte{w[2], upper(w[2])} {
			t.third[c] |= 1 << k
		}
	}
	for c := range t.third {
		t.third[c] |= t.two
	}
	return t
}

// hit is one keyword occurrence: keyword index k at byte offset pos.
type hit struct{ pos, k int }

// odd marks the bytes that may start something normalize changes: a
// backslash, an ampersand, a control character other than the line and
// tab ones, and every byte of a multi-byte character but those of U+4000
// to U+9FFF (lead bytes E4 to E9) and continuation bytes. Text of ASCII
// and Han alone has none.
var odd = func() (t [256]byte) {
	for c := range 256 {
		switch {
		case c == '\\' || c == '&' || c == 0x7F:
			t[c] = 1
		case c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r':
			t[c] = 1
		case c >= 0xC0 && (c < 0xE4 || c > 0xE9):
			t[c] = 1
		}
	}
	return t
}()

// find returns every keyword occurrence in data, in order, the set of
// keywords seen as a bit set indexed like words, and whether data holds
// an odd byte (see odd), in the same pass.
func (t *keywordTable) find(data []byte) ([]hit, uint64, bool) {
	var hits []hit
	var found uint64
	var strange byte // odd bytes seen, ORed (branch-free)
	if n := len(data); n > 0 {
		strange = odd[data[n-1]]
	}
	for i := 0; i+1 < len(data); i++ {
		strange |= odd[data[i]]
		cand := t.first[data[i]] & t.second[data[i+1]]
		if cand == 0 {
			continue
		}
		if i+2 < len(data) {
			cand &= t.third[data[i+2]]
		} else {
			cand &= t.two
		}
		for cand != 0 {
			k := bits.TrailingZeros64(cand)
			cand &^= 1 << k
			if hasPrefixFold(data[i:], t.words[k]) {
				hits = append(hits, hit{i, k})
				found |= 1 << k
			}
		}
	}
	return hits, found, strange != 0
}

// hasPrefixFold reports whether s starts with the lower-case word, ignoring
// ASCII case.
func hasPrefixFold(s []byte, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
