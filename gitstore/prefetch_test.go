package gitstore

import (
	"path/filepath"
	"testing"
)

// TestPrefetchIndex checks that a Commit after PrefetchIndex uses the
// index it decoded while the file is unchanged, and reads the file again
// when the user's git changed it in between: what the user staged after
// the prefetch survives the commit.
func TestPrefetchIndex(t *testing.T) {
	t.Parallel()
	requireGit(t)
	cases := []struct {
		name         string
		stageBetween bool // git add a file after the prefetch, before the commit
		wantStatus   string
	}{
		{name: "index unchanged", wantStatus: ""},
		{name: "user staged a file after the prefetch", stageBetween: true, wantStatus: "A  staged.txt\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, seed := newRepo(t)
			commitFiles(t, seed, "seed", map[string]string{"mem/a.md": "a\n", "src/x.txt": "x\n"})
			s, err := Open(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.PrefetchIndex()
			s.prefetch.Wait()
			s.mu.Lock()
			prefetched := <-s.prefetched // put back for Commit
			s.prefetched <- prefetched
			s.mu.Unlock()
			if prefetched == nil {
				t.Fatal("PrefetchIndex decoded no index")
			}
			if tc.stageBetween {
				writeFile(t, filepath.Join(dir, "staged.txt"), "staged\n")
				runGit(t, dir, "add", "staged.txt")
			}
			commitFiles(t, s, "add b", map[string]string{"mem/b.md": "b\n"})
			if got := runGit(t, dir, "status", "--porcelain"); got != tc.wantStatus {
				t.Errorf("git status = %q, want %q", got, tc.wantStatus)
			}
			if got := runGit(t, dir, "diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"); got != "mem/b.md\n" {
				t.Errorf("commit changed %q, want mem/b.md", got)
			}
			s.mu.Lock()
			reused := s.index == prefetched
			s.mu.Unlock()
			if reused == tc.stageBetween {
				t.Errorf("commit reused the prefetched index: %v, want %v", reused, !tc.stageBetween)
			}
		})
	}
}

// TestPrefetchIndexThenClose checks that Close waits for a prefetch in
// flight, and that a prefetch in a repository without an index leaves
// the first commit to create it.
func TestPrefetchIndexThenClose(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	s.PrefetchIndex()
	commitFiles(t, s, "first", map[string]string{"mem/a.md": "a\n"})
	s2, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	s2.PrefetchIndex()
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if s2.index != nil || s2.prefetched != nil {
		t.Error("a closed Store keeps an index")
	}
}
