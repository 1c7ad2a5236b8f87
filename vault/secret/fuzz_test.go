package secret

import (
	"bytes"
	"slices"
	"testing"

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
		hits, _ := keywords.find(data)
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
