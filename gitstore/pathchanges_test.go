package gitstore

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/memvault/memvault/filechange"
)

// TestWalkPathChanges checks the staleness walk: only watched paths are
// reported, newest first, a watched file renamed anywhere is reported with
// its new path, a stop ends the walk, and a stop off the line says so.
func TestWalkPathChanges(t *testing.T) {
	t.Parallel()
	_, s := newRepo(t)
	c1 := commitFiles(t, s, "init", map[string]string{"src/a.go": "package a\n\nfunc A() {}\n", "src/b.go": "package b\n", "docs/x.md": "x\n", "other.txt": "o\n"})
	c2 := commitFiles(t, s, "edit a and other", map[string]string{"src/a.go": "package a\n\nfunc A() { _ = 1 }\n", "other.txt": "o2\n"})
	commitFiles(t, s, "move a", map[string]string{"src/a.go": "", "lib/a.go": "package a\n\nfunc A() { _ = 1 }\n"})
	commitFiles(t, s, "docs", map[string]string{"docs/y.md": "y\n"})
	type seen struct {
		subject string
		changes []string
	}
	walk := func(stop string) ([]seen, error) {
		var out []seen
		err := s.WalkPathChanges(t.Context(), "", stop, []string{"src/a.go", "docs"}, func(c PathCommit) error {
			var chs []string
			for _, ch := range c.Changes {
				chs = append(chs, ch.Kind.String()+" "+ch.OldPath+" -> "+ch.Path)
			}
			if c.Time.IsZero() {
				t.Errorf("%s: no time", c.Subject)
			}
			out = append(out, seen{c.Subject, chs})
			return nil
		})
		return out, err
	}
	got, err := walk("")
	if err != nil {
		t.Fatal(err)
	}
	want := []seen{
		{"docs", []string{"added  -> docs/y.md"}},
		{"move a", []string{"renamed src/a.go -> lib/a.go"}},
		{"edit a and other", []string{"modified src/a.go -> src/a.go"}},
		{"init", []string{"added  -> docs/x.md", "added  -> src/a.go"}},
	}
	if !slices.EqualFunc(got, want, func(a, b seen) bool { return a.subject == b.subject && slices.Equal(a.changes, b.changes) }) {
		t.Fatalf("walk =\n%q\nwant\n%q", got, want)
	}
	got, err = walk(c2.Hash)
	if err != nil || len(got) != 2 {
		t.Fatalf("walk to %s: %d commits, %v; want 2", c2.Hash, len(got), err)
	}
	other := runGit(t, s.Root(), "commit-tree", "-m", "elsewhere", c1.Hash+"^{tree}")
	if _, err := walk(other[:40]); !errors.Is(err, ErrNotAncestor) {
		t.Fatalf("walk to a commit off the line: %v, want ErrNotAncestor", err)
	}
}

// TestUncommitted checks the work tree against HEAD under some paths:
// modified, deleted and new files are reported, unchanged ones and paths
// elsewhere are not.
func TestUncommitted(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	commitFiles(t, s, "init", map[string]string{"src/a.go": "a\n", "src/b.go": "b\n", "src/c.go": "c\n", "docs/x.md": "x\n"})
	writeFile(t, dir+"/src/a.go", "a changed\n")
	writeFile(t, dir+"/src/new.go", "new\n")
	writeFile(t, dir+"/docs/x.md", "x changed\n")
	if err := os.Remove(dir + "/src/b.go"); err != nil {
		t.Fatal(err)
	}
	chs, err := s.Uncommitted(t.Context(), []string{"src", "docs/missing.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ch := range chs {
		got = append(got, ch.Kind.String()+" "+ch.Path)
	}
	slices.Sort(got)
	if want := []string{"added src/new.go", "deleted src/b.go", "modified src/a.go"}; !slices.Equal(got, want) {
		t.Fatalf("Uncommitted = %q, want %q", got, want)
	}
	chs, err = s.Uncommitted(t.Context(), []string{"src/c.go", "docs/x.md"})
	if err != nil || len(chs) != 1 || chs[0].Path != "docs/x.md" || chs[0].Kind != filechange.Modified || chs[0].OldBlob == "" {
		t.Fatalf("Uncommitted(files) = %+v, %v; want docs/x.md modified", chs, err)
	}
	// A folder HEAD does not have, new in the work tree, is scanned.
	writeFile(t, dir+"/lib/new/n.go", "n\n")
	chs, err = s.Uncommitted(t.Context(), []string{"lib"})
	if err != nil || len(chs) != 1 || chs[0].Path != "lib/new/n.go" || chs[0].Kind != filechange.Added {
		t.Fatalf("Uncommitted(new folder) = %+v, %v; want lib/new/n.go added", chs, err)
	}
}
