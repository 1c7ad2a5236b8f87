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
