package secret

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzScan checks that Scan never panics, that findings lie within the
// input in order, that scanning is deterministic, and that redaction is
// idempotent and leaves nothing to find.
func FuzzScan(f *testing.F) {
	for _, name := range []string{positivesFile, negativesFile} {
		a, err := txtar.ParseFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range a.Files {
			f.Add(file.Data)
		}
	}
	for _, r := range rules {
		for _, p := range r.positives {
			f.Add([]byte(p))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		found := Scan(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		prev := 0
		for _, x := range found {
			if x.Start < prev || x.Start >= x.End || x.End > len(data) {
				t.Fatalf("finding %v spans [%d,%d) in %d bytes (previous start %d)", x, x.Start, x.End, len(data), prev)
			}
			if x.Line < 1 || x.Line > lines || x.Column < 1 || x.Column > x.Start+1 {
				t.Fatalf("finding %v is outside the input's %d lines", x, lines)
			}
			prev = x.Start
		}
		if again := Scan(data); !slices.Equal(found, again) {
			t.Fatalf("Scan is not deterministic: %v then %v", found, again)
		}
		red := Redact(data)
		if len(found) == 0 && !bytes.Equal(red, data) {
			t.Fatalf("Redact changed input without findings")
		}
		if left := Scan(red); len(left) > 0 {
			t.Fatalf("Scan(Redact(data)) = %v, want none\nredacted: %q", left, red)
		}
		if twice := Redact(red); !bytes.Equal(twice, red) {
			t.Fatalf("Redact is not idempotent:\n%q\n%q", red, twice)
		}
	})
}

// FuzzTokenMode checks that searching token-mode rules token by token
// finds exactly the matches that searching every line finds: the
// shortcut may skip text, never a secret.
func FuzzTokenMode(f *testing.F) {
	for _, s := range []string{
		"see [the doc](https://example.com/x) and postgres://app:Zq8v2Lr7mN0p@db:5432/app",
		"a.b+c://u:p@h x://y:z@w",
		"_postgres://app:Zq8v2Lr7mN0p@db",
		"\"mysql://root:S3cr3t!x9@10.0.0.5\"",
		"http://a@b://c:d@e",
		"postgres://a:b:c@d\tredis://:x@y",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		hits, _, _ := keywords.find(data)
		for i := range rules {
			r := &rules[i]
			if !r.token {
				continue
			}
			var byLine, byToken [][]int
			for ls := 0; ls <= len(data); {
				le := bytes.IndexByte(data[ls:], '\n')
				if le < 0 {
					le = len(data)
				} else {
					le += ls
				}
				for _, loc := range r.re.FindAllSubmatchIndex(data[ls:le], -1) {
					byLine = append(byLine, shift(loc, ls))
				}
				ls = le + 1
			}
			r.tokenMatches(data, hits, func(base int, loc []int) {
				byToken = append(byToken, shift(loc, base))
			})
			if !slices.EqualFunc(byLine, byToken, slices.Equal) {
				t.Fatalf("rule %s on %q: by line %v, by token %v", r.id, data, byLine, byToken)
			}
		}
	})
}

func shift(loc []int, base int) []int {
	out := make([]int, len(loc))
	for i, x := range loc {
		out[i] = x
		if x >= 0 {
			out[i] = x + base
		}
	}
	return out
}

// FuzzNormalisedScan checks that the normalised scan never finds fewer
// secrets than the raw one: every finding of the rules over the input as
// it is (what Scan did before it normalised) overlaps a finding of Scan,
// of its rule or of a specific rule where it was a generic one (as
// dropOverlaps decides). It also checks normalize's map from its text to
// the input.
func FuzzNormalisedScan(f *testing.F) {
	addCorpusSeeds(f)
	for _, s := range []string{
		"password=ab\\ncdEF12#xyZ9", "token: Xk9#mP2$vLq7&lt;x", "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES\\u200b",
		"密码：Xk9#ｍP2$vLq7", "&#103;hp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES", "\\\\nghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if n, ok := normalize(data, true); ok {
			if len(n.from) != len(n.text)+1 || int(n.from[len(n.text)]) != len(data) {
				t.Fatalf("normalize(%q): %d origins for %d bytes, last %d", data, len(n.from), len(n.text), n.from[len(n.from)-1])
			}
			for i := 1; i < len(n.from); i++ {
				if n.from[i] < n.from[i-1] {
					t.Fatalf("normalize(%q): origins decrease at %d", data, i)
				}
			}
		}
		hits, present, _ := keywords.find(data)
		raw := scan(data, hits, present, nil)
		if len(raw) == 0 {
			return
		}
		raw = place(data, dropOverlaps(raw))
		found := Scan(data)
		for _, r := range raw {
			covered := func(f Finding) bool {
				return f.Start < r.End && r.Start < f.End && (f.Rule == r.Rule || isGeneric(r.Rule) && !isGeneric(f.Rule))
			}
			if !slices.ContainsFunc(found, covered) {
				t.Fatalf("raw finding %v [%d,%d) is not covered by any finding of Scan %v\ninput: %q", r, r.Start, r.End, found, data)
			}
		}
	})
}

// FuzzEvasion writes plain ASCII input the ways an evasion would (a
// zero-width space, a soft hyphen or a word joiner between characters,
// full-width or HTML-escaped characters, chosen by the mask) and checks
// that Scan finds at least what it finds in the plain input, at the same
// places: normalising the evasion gives back the plain input.
func FuzzEvasion(f *testing.F) {
	addCorpusSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range data {
			if c >= 0x80 || c < 0x20 && c != '\n' || c == '\\' || c == '&' || c == 0x7F {
				return // normalize changes such input itself
			}
		}
		want := Scan(data)
		if len(want) == 0 {
			return
		}
		// The evasion, and where each input byte went in it.
		var ev []byte
		at := make([]int, len(data)+1)
		for i, c := range data {
			at[i] = len(ev)
			switch (i*7 + int(c)) % 11 {
			case 0:
				ev = append(ev, "\u200b"...)
				ev = append(ev, c)
			case 1:
				ev = append(ev, c)
				ev = append(ev, "\u00ad"...)
			case 2:
				if c > ' ' && c < 0x7F {
					ev = utf8.AppendRune(ev, rune(c)-'!'+0xFF01)
				} else {
					ev = append(ev, c)
				}
			case 3:
				ev = append(ev, fmt.Sprintf("&#%d;", c)...)
			case 4:
				ev = append(ev, c)
				ev = append(ev, "\u2060"...)
			default:
				ev = append(ev, c)
			}
		}
		at[len(data)] = len(ev)
		got := Scan(ev)
		for _, w := range want {
			start, end := at[w.Start], at[w.End]
			if !slices.ContainsFunc(got, func(f Finding) bool { return f.Start < end && start < f.End }) {
				t.Fatalf("plain finding %v at [%d,%d) lost in the evasion (%v)\nplain:   %q\nevasion: %q", w, start, end, got, data, ev)
			}
		}
	})
}

// addCorpusSeeds seeds a fuzz target with the corpus and the rules'
// examples.
func addCorpusSeeds(f *testing.F) {
	for _, name := range []string{positivesFile, negativesFile} {
		a, err := txtar.ParseFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range a.Files {
			f.Add(file.Data)
		}
	}
	for _, r := range rules {
		for _, p := range r.positives {
			f.Add([]byte(p))
		}
	}
}

// FuzzChangedLines checks the shortcut of the normalised scan: searching
// only the lines normalize changed gives exactly what searching the whole
// normalised text gives, once merged with the plain scan.
func FuzzChangedLines(f *testing.F) {
	addCorpusSeeds(f)
	for _, s := range []string{
		"ok line\nghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES\n中文，\npassword=Xk9#mP2$vLq7",
		"x\\nghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES", "a\u200b\nAKIAUJZDEGXDNCF32EPF", "\u2028AKIAUJZDEGXDNCF32EPF",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		hits, present, _ := keywords.find(data)
		want := scan(data, hits, present, nil)
		if n, ok := normalize(data, true); ok {
			nhits, npresent, _ := keywords.find(n.text)
			for _, x := range scan(n.text, nhits, npresent, nil) {
				x.Start, x.End = n.origin(x.Start, x.End)
				want = append(want, x)
			}
		}
		if len(want) > 0 {
			want = place(data, dropOverlaps(want))
		} else {
			want = nil
		}
		if got := Scan(data); !slices.Equal(got, want) {
			t.Fatalf("Scan(%q) = %v, searching every normalised line gives %v", data, got, want)
		}
	})
}
