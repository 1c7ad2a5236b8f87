package merge

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/memvault/memvault/parser"
	"github.com/rogpeppe/go-internal/txtar"
)

// FuzzFiles merges three arbitrary inputs: Files never panics, and when it
// merges, the result parses, keeps our id, holds a record when it reports
// conflicts, and holds no conflict marker no input had. Seeds: the rule archives and the sample vault.
func FuzzFiles(f *testing.F) {
	files, _ := filepath.Glob("testdata/rules/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		sec := map[string][]byte{}
		for _, x := range ar.Files {
			sec[x.Name] = x.Data
		}
		f.Add(sec["base.md"], sec["ours.md"], sec["theirs.md"])
	}
	samples, _ := filepath.Glob("../../sample-vault/*/*.md")
	for i := 0; i+2 < len(samples) && i < 12; i += 3 {
		var in [3][]byte
		for k := range in {
			b, err := os.ReadFile(samples[i+k])
			if err != nil {
				f.Fatal(err)
			}
			in[k] = b
		}
		f.Add(in[0], in[1], in[2])
	}
	f.Fuzz(func(t *testing.T, base, ours, theirs []byte) {
		res, err := Files(base, ours, theirs)
		if err != nil {
			if errors.Is(err, ErrUnmergeable) {
				return
			}
			// Anything else is a merge that broke its promise.
			t.Fatalf("Files: %v", err)
		}
		o, _ := parser.Parse("ours", ours)
		d, _ := parser.Parse("merged", res.Data)
		// A file without an id (a hand-written note) may take one theirs
		// added; one with an id keeps it.
		if d == nil || (o.Meta.ID != "" && d.Meta.ID != o.Meta.ID) {
			t.Fatalf("merged file does not parse or lost the id:\n%s", res.Data)
		}
		if MarkerLine(res.Data) > 0 && MarkerLine(base) == 0 && MarkerLine(ours) == 0 && MarkerLine(theirs) == 0 {
			t.Fatalf("the merge wrote a conflict marker:\n%s", res.Data)
		}
		if len(res.Conflicts) > 0 && fieldsOf(d) == nil {
			t.Fatalf("conflicts %v but no record:\n%s", res.Conflicts, res.Data)
		}
	})
}
