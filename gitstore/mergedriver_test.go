package gitstore

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestMergeDriverAndAttribute(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git command")
	}
	root := t.TempDir()
	s, err := Init(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if got, err := s.MergeDriver(ctx, "memvault"); err != nil || got != "" {
		t.Fatalf("MergeDriver before = %q, %v; want none", got, err)
	}
	if got, err := s.Attribute(ctx, ".memory/project/a.md", "merge"); err != nil || got != "unspecified" {
		t.Fatalf("Attribute before = %q, %v", got, err)
	}
	cmd := "'/opt/memvault bin/memvault' merge-driver %O %A %B %P"
	if err := s.SetMergeDriver(ctx, "memvault", "memvault memory files", cmd); err != nil {
		t.Fatal(err)
	}
	if got, err := s.MergeDriver(ctx, "memvault"); err != nil || got != cmd {
		t.Errorf("MergeDriver = %q, %v; want %q", got, err, cmd)
	}
	if err := os.MkdirAll(filepath.Join(root, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".memory", ".gitattributes"), []byte("*.md merge=memvault\n/README.md merge=text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(root, ".memory/project/a.md"): "memvault",
		".memory/README.md":                         "text",
		"notes.md":                                  "unspecified",
	} {
		if got, err := s.Attribute(ctx, path, "merge"); err != nil || got != want {
			t.Errorf("Attribute(%s) = %q, %v; want %q", path, got, err, want)
		}
	}
}

// TestMergeBaseAndParents: MergeBase agrees with git on a forked history
// (and on an ancestor), refuses unrelated histories as not found, and a
// merge's history entry lists both parents.
func TestMergeBaseAndParents(t *testing.T) {
	t.Parallel()
	requireGit(t)
	dir, s := newRepo(t)
	ctx := t.Context()
	base := commitFiles(t, s, "base", map[string]string{"a.md": "a\n"}).Hash
	runGit(t, dir, "checkout", "-q", "-b", "side")
	side := commitFiles(t, s, "side", map[string]string{"a.md": "a\nside\n"}).Hash
	runGit(t, dir, "checkout", "-q", "-")
	main := commitFiles(t, s, "main", map[string]string{"a.md": "main\na\n"}).Hash
	for _, tc := range []struct{ a, b, want string }{
		{main, side, base},
		{"HEAD", "side", base},
		{base, side, base},
	} {
		if got, err := s.MergeBase(ctx, tc.a, tc.b); err != nil || got != tc.want {
			t.Errorf("MergeBase(%s, %s) = %s, %v; want %s", tc.a, tc.b, got, err, tc.want)
		}
	}
	if _, err := s.MergeBase(ctx, "--all", "side"); !errors.Is(err, ErrNotFound) {
		t.Errorf("MergeBase with an option for a revision: %v", err)
	}
	runGit(t, dir, "checkout", "-q", "--orphan", "lonely")
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "lonely")
	if _, err := s.MergeBase(ctx, "lonely", "side"); !errors.Is(err, ErrNotFound) {
		t.Errorf("MergeBase of unrelated histories: %v, want ErrNotFound", err)
	}
	runGit(t, dir, "checkout", "-q", "-f", main)
	runGit(t, dir, "merge", "-q", "--no-edit", "side")
	cs, err := s.History(ctx, "a.md", HistoryOptions{Limit: 1})
	if err != nil || len(cs) != 1 {
		t.Fatalf("History: %v, %v", cs, err)
	}
	if len(cs[0].Parents) != 2 || cs[0].Parents[0] != main || cs[0].Parents[1] != side {
		t.Errorf("merge parents %v, want [%s %s]", cs[0].Parents, main, side)
	}
}

// BenchmarkOperation is what every committing write now pays before it
// starts: the stats of git's operation marker files.
func BenchmarkOperation(b *testing.B) {
	_, s := newRepo(b)
	for b.Loop() {
		if op, err := s.Operation(b.Context()); err != nil || op != "" {
			b.Fatal(op, err)
		}
	}
}

// TestHistoryFullHistory: a merge that kept one side's version is never
// listed; by default only that side is followed, with FullHistory the
// other side's commit of the path is listed too.
func TestHistoryFullHistory(t *testing.T) {
	t.Parallel()
	requireGit(t)
	dir, s := newRepo(t)
	ctx := t.Context()
	base := commitFiles(t, s, "base", map[string]string{"a.md": "a\n"}).Hash
	runGit(t, dir, "checkout", "-q", "-b", "side")
	side := commitFiles(t, s, "side edit", map[string]string{"a.md": "a\nside\n"}).Hash
	runGit(t, dir, "checkout", "-q", "-")
	main := commitFiles(t, s, "main edit", map[string]string{"a.md": "main\na\n"}).Hash
	runGit(t, dir, "merge", "-q", "-s", "ours", "--no-edit", "side")
	for _, tc := range []struct {
		full bool
		want []string
	}{
		{false, []string{main, base}},
		{true, []string{main, side, base}},
	} {
		cs, err := s.History(ctx, "a.md", HistoryOptions{FullHistory: tc.full})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cs {
			got = append(got, c.Hash)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("FullHistory %v: %v, want %v", tc.full, got, tc.want)
		}
	}
}

// BenchmarkHead and BenchmarkState: what the served vault pays before
// every call to learn whether HEAD moved, with Head and with the whole
// State it used before.
// BenchmarkHead: aged, HEAD's files are older than the racy window and
// Head stats them; fresh, they were just written and Head reads them, as
// it does in the seconds after each commit.
func BenchmarkHead(b *testing.B) {
	for _, aged := range []bool{true, false} {
		b.Run(map[bool]string{true: "aged", false: "fresh"}[aged], func(b *testing.B) {
			dir, s := newRepo(b)
			commitFiles(b, s, "seed", map[string]string{"m/a.md": "a\n"})
			if aged {
				old := time.Now().Add(-time.Hour)
				for _, p := range []string{"HEAD", "refs/heads/master"} {
					if err := os.Chtimes(filepath.Join(dir, ".git", p), old, old); err != nil {
						b.Fatal(err)
					}
				}
			}
			for b.Loop() {
				if h, err := s.Head(b.Context()); err != nil || h == "" {
					b.Fatal(h, err)
				}
				if !aged {
					s.headSeen = nil // as a file still in the racy window is
				}
			}
		})
	}
}

func BenchmarkState(b *testing.B) {
	_, s := newRepo(b)
	commitFiles(b, s, "seed", map[string]string{"m/a.md": "a\n"})
	for b.Loop() {
		if st, err := s.State(b.Context()); err != nil || st.Head == "" {
			b.Fatal(st, err)
		}
	}
}
