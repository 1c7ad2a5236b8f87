package secret

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readNFKCTable reads testdata/fold/nfkc-ascii.txt: every code point above
// U+007F whose NFKC form is printable ASCII, from Python's unicodedata
// (testdata/fold/gen.py).
func readNFKCTable(t *testing.T) map[rune]string {
	t.Helper()
	f, err := os.Open("testdata/fold/nfkc-ascii.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref := map[rune]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		cp, form, ok := strings.Cut(line, " ")
		n, err := strconv.ParseUint(cp, 16, 32)
		if !ok || err != nil {
			t.Fatalf("bad line %q", line)
		}
		var s string
		if err := json.Unmarshal([]byte(form), &s); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		ref[rune(n)] = s
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ref
}

// assigned reports a code point with a general category, as far as Go's
// Unicode tables know: the holes of the mathematical alphabets are not.
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf)
}

// TestFoldMatchesNFKC checks foldNFKC against NFKC in both directions over
// every code point: each one whose NFKC form is ASCII folds to that form,
// and no other assigned code point folds at all.
func TestFoldMatchesNFKC(t *testing.T) {
	t.Parallel()
	ref := readNFKCTable(t)
	if len(ref) < 1400 {
		t.Fatalf("the reference has %d entries; regenerate it with testdata/fold/gen.py", len(ref))
	}
	folded := 0
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue // surrogates
		}
		got, ok := foldNFKC(r)
		want, inRef := ref[r]
		switch {
		case inRef && (!ok || got != want):
			t.Errorf("fold(%U %q) = %q, %v; NFKC is %q", r, r, got, ok, want)
		case !inRef && ok && assigned(r):
			t.Errorf("fold(%U %q) = %q; NFKC leaves it or is not ASCII", r, r, got)
		case ok:
			folded++
		}
	}
	if folded < len(ref) {
		t.Errorf("%d code points fold, want at least the reference's %d", folded, len(ref))
	}
}

func TestLookalikes(t *testing.T) {
	t.Parallel()
	ref := readNFKCTable(t)
	tests := []struct {
		r    rune
		want byte
	}{
		{'р', 'p'}, {'А', 'A'}, {'К', 'K'}, {'І', 'I'}, {'о', 'o'}, {'с', 'c'}, {'ѕ', 's'},
		{'Κ', 'K'}, {'Α', 'A'}, {'ο', 'o'}, {'ı', 'i'}, {0x1F150, 'A'}, {0x1F189, 'Z'},
	}
	for _, tt := range tests {
		if got, ok := lookalike(tt.r); !ok || got != tt.want {
			t.Errorf("lookalike(%U %q) = %q, %v; want %q", tt.r, tt.r, got, ok, tt.want)
		}
	}
	for r, c := range lookalikes {
		if _, ok := ref[r]; ok {
			t.Errorf("%U is in the NFKC table too", r)
		}
		if !unicode.IsLetter(r) || c >= 0x80 || !unicode.IsLetter(rune(c)) {
			t.Errorf("lookalike %U -> %q is not a letter for a letter", r, c)
		}
	}
	for _, r := range []rune{'б', 'д', 'ж', 'λ', 'ω', '中', 'é'} {
		if c, ok := lookalike(r); ok {
			t.Errorf("lookalike(%q) = %q; it looks like no ASCII letter", r, c)
		}
	}
}

func TestInvisible(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD, 0x202E, 0x2066, 0xFE0F, 0xE0041,
		0x180E, 0x034F, 0x115F, 0x3164, 0x0000, 0x001B, 0x007F, 0x009B} {
		if !invisible(r) {
			t.Errorf("invisible(%U) = false", r)
		}
	}
	for _, r := range []rune{' ', 'a', '中', '\n', '\t', '\r', 0x85, 0x3000, 0x00A0, 'é', '，'} {
		if invisible(r) {
			t.Errorf("invisible(%U) = true", r)
		}
	}
}
