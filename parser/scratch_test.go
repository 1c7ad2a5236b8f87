package parser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// dirtyScratch returns a Scratch that has already served a document with
// more front matter, so that reuse bugs (stale nodes, stale text) show.
func dirtyScratch(t testing.TB) *Scratch {
	t.Helper()
	s := new(Scratch)
	prev := []byte("---\nid: 01PREV\ntitle: previous document\nlayer: meta\nimportance: 9\n" +
		"tags: [x, y, z, w]\naliases: [old name]\nsource: {client: prev, kind: manual}\n" +
		"links: [a, b]\nsupersedes: [c]\nstatus: archived\nversion: 7\n---\n# Prev\n\nold text `code` #oldtag\n")
	if d, _ := (Options{Scratch: s}).Parse("prev.md", prev); d == nil {
		t.Fatal("previous document did not parse")
	}
	return s
}

// checkScratch fails t if parsing data with a used Scratch yields other
// Meta, Body, keys or field lines than parsing it without.
func checkScratch(t *testing.T, s *Scratch, data []byte) {
	t.Helper()
	want, wantDiags := Parse("f.md", data)
	got, gotDiags := Options{Scratch: s}.Parse("f.md", data)
	if (want == nil) != (got == nil) || len(wantDiags) != len(gotDiags) {
		t.Fatalf("with Scratch: document %v, %d diagnostics; want %v, %d", got != nil, len(gotDiags), want != nil, len(wantDiags))
	}
	if want == nil {
		return
	}
	if d := cmp.Diff(want.Meta, got.Meta); d != "" {
		t.Fatalf("Meta with Scratch differs (-without +with):\n%s", d)
	}
	if d := cmp.Diff(want.Body, got.Body); d != "" {
		t.Fatalf("Body with Scratch differs (-without +with):\n%s", d)
	}
	if d := cmp.Diff(want.Keys(), got.Keys()); d != "" {
		t.Fatalf("Keys with Scratch differ (-without +with):\n%s", d)
	}
	for _, k := range want.Keys() {
		if w, g := want.FieldLine(k), got.FieldLine(k); w != g {
			t.Fatalf("FieldLine(%q) with Scratch = %d, want %d", k, g, w)
		}
	}
}

func TestScratchMatchesFreshParse(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob("testdata/roundtrip/*.md")
	samples, _ := filepath.Glob("../sample-vault/*/*.md")
	paths = append(paths, samples...)
	if len(paths) < 10 {
		t.Fatalf("found %d test files", len(paths))
	}
	s := dirtyScratch(t)
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			checkScratch(t, s, data)
			checkScratch(t, dirtyScratch(t), data)
		})
	}
}
