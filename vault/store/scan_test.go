package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScanMatchesWalk checks scan against filepath.WalkDir on a tree with
// the cases scan skips or enters: dot-files and dot-folders, nested and
// oddly named folders, the root README.md, files that are not Markdown.
//
// The folders-only tree has no file at the top level, where scan joins
// the folders' sorted lists and need not sort them again: folders whose
// names sort differently with a slash after them ("a-b/" before "a/")
// must still come out in path order.
func TestScanMatchesWalk(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files []string
	}{
		{"mixed", []string{
			"README.md", "notes.md", "Upper.MD", "notes.txt", ".hidden.md",
			"project/a.md", "project/b.md", "project/README.md", "project/.x.md",
			"project/sub/deep/c.md", "project/sub/d.markdown",
			".git/x.md", ".obsidian/y.md", "x.md/inside.md", "a-b.md", "a/b.md",
			"meta/中文.md", "meta/_under.md", "meta/-dash.md",
		}},
		{"folders only", []string{
			"a/x.md", "a/sub/q.md", "a/z.md", "a-b/y.md", "a.b/z.md", "ab/w.md",
			"a b/v.md", "a0/u.md", "A/t.md", "project/b.md", "project/a.md",
			"meta/中文.md", "meta/-dash.md", "meta/_under.md", "meta/sub/x.md",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { checkScan(t, tc.files) })
	}
}

func checkScan(t *testing.T, files []string) {
	dir := t.TempDir()
	for _, p := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	var want []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name()[0] == '.':
			return fs.SkipDir
		case d.Type().IsRegular() && IsMemoryPath(rel):
			want = append(want, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	got, err := Scan(t.Context(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("scan = %q\nwant %q", got, want)
	}
	if len(want) < 10 {
		t.Errorf("only %d files in the reference: the tree is not what the test means", len(want))
	}
	missing, err := Scan(t.Context(), filepath.Join(dir, "nope"), nil)
	if err != nil || missing != nil {
		t.Errorf("scan(missing) = %q, %v; want nothing, no error", missing, err)
	}
}

// TestIsMemoryPath checks which paths name memory files, and that the
// ".md" test without lowering the path agrees with lowering it first on
// paths whose lower case changes their bytes.
func TestIsMemoryPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"project/a.md", true}, {"project/A.MD", true}, {"meta/中文.Md", true}, {"x.mD", true},
		{"README.md", false}, {"readme.MD", false}, {"project/README.md", true},
		{".hidden.md", false}, {"project/.x.md", false}, {".git/x.md", false}, {"a//b.md", false},
		{"../a.md", false}, {"a.markdown", false}, {"a.md.txt", false}, {"md", false}, {".md", false},
		{"a.m", false}, {"a.nd", false}, {"a,md", false}, {"a.\u212Ad", false}, {"İSTANBUL.MD", true},
		{"a.\xffmd", false}, {"\xff.md", true}, {"a.Ｍd", false},
	} {
		if got := IsMemoryPath(tc.rel); got != tc.want {
			t.Errorf("IsMemoryPath(%q) = %v, want %v", tc.rel, got, tc.want)
		}
		lowered := strings.HasSuffix(strings.ToLower(tc.rel), ".md")
		n := len(tc.rel)
		direct := n >= 3 && tc.rel[n-3] == '.' && tc.rel[n-2]|0x20 == 'm' && tc.rel[n-1]|0x20 == 'd'
		if lowered != direct {
			t.Errorf("%q: lowered path ends in .md: %v; last three bytes say %v", tc.rel, lowered, direct)
		}
	}
}
