package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUnmergedFiles reads the stages of several unmerged paths of one
// merge (content conflicts, modified/deleted both ways, add/add, an
// empty file), under a prefix, and stages a resolution and a deletion.
func TestUnmergedFiles(t *testing.T) {
	requireGit(t)
	dir, s := newRepo(t)
	runGit(t, dir, "checkout", "-q", "-b", "main")
	commitFiles(t, s, "base", map[string]string{"m/a.md": "a\n", "m/b.md": "b\n", "m/c.md": "c\n", "m/d.md": "d\n", "other.txt": "o\n"})
	runGit(t, dir, "checkout", "-q", "-b", "theirs")
	commitFiles(t, s, "theirs", map[string]string{"m/a.md": "a theirs\n", "m/b.md": "", "m/c.md": "c theirs\n", "m/new.md": "new theirs\n", "m/d.md": "", "other.txt": "o theirs\n"})
	runGit(t, dir, "checkout", "-q", "main")
	commitFiles(t, s, "ours", map[string]string{"m/a.md": "a ours\n", "m/b.md": "b ours\n", "m/c.md": "", "m/new.md": "new ours\n", "other.txt": "o ours\n"})
	// d: deleted on theirs, emptied on ours.
	if err := os.WriteFile(filepath.Join(dir, "m", "d.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "commit", "-q", "-am", "empty d")
	if _, err := gitOutput(dir, nil, "merge", "-q", "theirs"); err == nil {
		t.Fatal("the merge did not stop")
	}
	got, err := s.UnmergedFiles(t.Context(), "m")
	if err != nil {
		t.Fatal(err)
	}
	b := func(s string) []byte { return []byte(s) }
	want := []Unmerged{
		{Path: "m/a.md", Base: b("a\n"), Ours: b("a ours\n"), Theirs: b("a theirs\n")},
		{Path: "m/b.md", Base: b("b\n"), Ours: b("b ours\n")},
		{Path: "m/c.md", Base: b("c\n"), Theirs: b("c theirs\n")},
		{Path: "m/d.md", Base: b("d\n"), Ours: b("")},
		{Path: "m/new.md", Ours: b("new ours\n"), Theirs: b("new theirs\n")},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("unmerged (-want +got):\n%s", d)
	}
	if got[3].Ours == nil || got[3].Theirs != nil {
		t.Errorf("an empty stage must be non-nil, an absent one nil: %#v", got[3])
	}
	writeFile(t, filepath.Join(dir, "m", "a.md"), "a merged\n")
	os.Remove(filepath.Join(dir, "m", "b.md"))
	if err := s.StageWorkTree(t.Context(), []string{"m/a.md", "m/b.md"}); err != nil {
		t.Fatal(err)
	}
	left, err := s.UnmergedFiles(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, u := range left {
		paths = append(paths, u.Path)
	}
	if d := cmp.Diff([]string{"m/c.md", "m/d.md", "m/new.md", "other.txt"}, paths); d != "" {
		t.Errorf("unmerged after staging (-want +got):\n%s", d)
	}
	if st := runGit(t, dir, "status", "--porcelain", "--", "m/a.md", "m/b.md"); st != "M  m/a.md\nD  m/b.md\n" {
		t.Errorf("status of the staged paths:\n%q", st)
	}
}
