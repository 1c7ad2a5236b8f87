package parser

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics, that an untouched document
// formats to its input, that Set("title", x) yields a file whose re-parse
// has Meta.Title == x, the same body bytes and the same other fields, and
// that Delete("title") then leaves no title and the rest unchanged.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/roundtrip/*.md")
	goldens, _ := filepath.Glob("testdata/roundtrip/*.golden")
	samples, _ := filepath.Glob("../sample-vault/*/*.md")
	for _, path := range append(append(seeds, goldens...), samples...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "New title")
	}
	for _, s := range []string{
		"", "---", "---\n", "---\n---\n", "---\nid: a\n", "---\na: b: c\n---\n",
		"---\ntitle: &t x\nalias: *t\n---\n", "---\n{title: x}\n---\n", "---\ntitle: |\n  a\n  b\n---\n",
		"---\n? title\n: x\n---\n", "---\ntitle: x\n...\n---\n", "---\r\ntitle: x # c\r\n---\r\nbody",
		"[[a|b]] #tag `[[c]]` ![[d]] [e](f)\n",
	} {
		f.Add([]byte(s), "yes")
		f.Add([]byte(s), "a: b # c\n'd'")
	}
	f.Fuzz(func(t *testing.T, data []byte, title string) {
		checkScratch(t, dirtyScratch(t), data)
		d, diags := Parse("f.md", data)
		if d == nil {
			if len(diags) != 1 {
				t.Fatalf("nil document with %d diagnostics, want 1", len(diags))
			}
			return
		}
		if got := d.Format(); !bytes.Equal(got, data) {
			t.Fatalf("untouched Format differs from input:\ngot  %q\nwant %q", got, data)
		}
		if d.fmErr != nil {
			if err := d.Set("title", title); err == nil {
				t.Fatalf("Set on broken front matter succeeded")
			}
			return
		}
		before := d.Meta
		body := bytes.Clone(d.BodyBytes())
		err := d.Set("title", title)
		if !utf8.ValidString(title) {
			if !errors.Is(err, ErrValue) {
				t.Fatalf("Set with invalid UTF-8: err = %v, want ErrValue", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Set(title, %q): %v", title, err)
		}
		out := d.Format()
		re, rediags := Options{MaxFileSize: len(out) + 1}.Parse("f.md", out)
		if re == nil {
			t.Fatalf("output does not parse: %v\n%q", rediags, out)
		}
		if re.Meta.Title != title {
			t.Fatalf("re-parsed title = %q, want %q\n%q", re.Meta.Title, title, out)
		}
		if !bytes.Equal(re.BodyBytes(), body) {
			t.Fatalf("body changed:\ngot  %q\nwant %q", re.BodyBytes(), body)
		}
		want := before
		want.Title = title
		if diff := cmp.Diff(want, re.Meta); diff != "" {
			t.Fatalf("other fields changed (-want +got):\n%s\n%q", diff, out)
		}

		// Delete undoes it: no title, the rest as before, the body intact.
		// Delete refuses (leaves the document as is) only when the title's
		// anchor is used elsewhere.
		re.Delete("title")
		if bytes.Equal(re.Format(), out) && bytes.Contains(out, []byte("*")) {
			return
		}
		out = re.Format()
		del, _ := Options{MaxFileSize: len(out) + 1}.Parse("f.md", out)
		want.Title = ""
		if del == nil || !bytes.Equal(del.BodyBytes(), body) {
			t.Fatalf("Delete broke the document:\n%q", out)
		}
		if diff := cmp.Diff(want, del.Meta); diff != "" {
			t.Fatalf("Delete changed other fields (-want +got):\n%s\n%q", diff, out)
		}
	})
}
