package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitHealsIndexLaggingHead leaves the index as a process killed
// between moving the branch and publishing the index does (HEAD has the
// commit, the index is the one from before), then commits the same paths
// again, as recovery does: nothing to commit, but the index catches up.
func TestCommitHealsIndexLaggingHead(t *testing.T) {
	t.Parallel()
	requireGit(t)
	root, s := newRepo(t)
	commitFiles(t, s, "first", map[string]string{"mem/a.md": "a\n"})
	indexPath := filepath.Join(root, ".git", "index")
	before := readFile(t, indexPath)
	commitFiles(t, s, "second", map[string]string{"mem/b.md": "b\n", "mem/a.md": "a2\n"})
	if err := os.WriteFile(indexPath, before, 0o644); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err := Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st := runGit(t, root, "status", "--porcelain"); st == "" {
		t.Fatal("the restored index does not lag HEAD; the test sets up nothing")
	}
	paths := []string{filepath.Join(root, "mem", "a.md"), filepath.Join(root, "mem", "b.md")}
	_, err = s.Commit(t.Context(), Change{Paths: paths, Message: "again", Author: testAuthor})
	if !errors.Is(err, ErrNoChange) {
		t.Fatalf("Commit = %v, want ErrNoChange", err)
	}
	if st := strings.TrimSpace(runGit(t, root, "status", "--porcelain")); st != "" {
		t.Errorf("git status after the repeated commit:\n%s\nwant clean", st)
	}
	// With the index in step, a repeated commit leaves it untouched.
	fi1, _ := os.Stat(indexPath)
	if _, err := s.Commit(t.Context(), Change{Paths: paths, Message: "again", Author: testAuthor}); !errors.Is(err, ErrNoChange) {
		t.Fatalf("second Commit = %v, want ErrNoChange", err)
	}
	if fi2, _ := os.Stat(indexPath); !os.SameFile(fi1, fi2) {
		t.Error("the index was rewritten although it was in step")
	}
}

// TestStateReportsRefLock leaves the branch's lock file as a killed commit
// does and checks that State names it.
func TestStateReportsRefLock(t *testing.T) {
	t.Parallel()
	root, s := newRepo(t)
	commitFiles(t, s, "first", map[string]string{"mem/a.md": "a\n"})
	st, err := s.State(t.Context())
	if err != nil || st.RefLock != "" {
		t.Fatalf("State = %+v, %v; want no ref lock", st, err)
	}
	lock := filepath.Join(root, ".git", "refs", "heads", st.Branch+".lock")
	writeFile(t, lock, "")
	if st, err = s.State(t.Context()); err != nil || st.RefLock != lock {
		t.Fatalf("State.RefLock = %q (%v), want %q", st.RefLock, err, lock)
	}
}
