package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestOrphanedLock (issue 27 finding 5): an index.lock with no owner
// record is kept while a git process works in the repository (here one
// waiting on its standard input, as git commit waits on an editor) and
// reported and removed by ClearStaleLocks once no git or memvault
// process is left there, as after kill -9 of a sync's process group.
func TestOrphanedLock(t *testing.T) {
	t.Parallel()
	root, s := newRepo(t)
	commitFiles(t, s, "seed", map[string]string{"a.md": "a\n"})
	lock := filepath.Join(root, ".git", "index.lock")
	writeFile(t, lock, "git's\n")

	git := exec.Command("git", "hash-object", "--stdin")
	git.Dir = root
	stdin, err := git.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := git.Start(); err != nil {
		t.Fatal(err)
	}
	st, err := s.State(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !st.IndexLocked || len(st.Stale) != 0 {
		t.Errorf("with a live git: State = %+v, want the lock held, not stale", st)
	}
	if cleared, err := s.ClearStaleLocks(t.Context()); err != nil || len(cleared) != 0 {
		t.Errorf("with a live git: ClearStaleLocks = %v, %v; want nothing removed", cleared, err)
	}
	if _, err := os.Lstat(lock); err != nil {
		t.Fatalf("the lock of a live git is gone: %v", err)
	}

	stdin.Close()
	if err := git.Wait(); err != nil {
		t.Fatal(err)
	}
	if st, err = s.State(t.Context()); err != nil || len(st.Stale) != 1 || st.Stale[0].Owner != orphanOwner {
		t.Errorf("with no git left: State.Stale = %+v, %v; want the lock orphaned", st.Stale, err)
	}
	cleared, err := s.ClearStaleLocks(t.Context())
	if err != nil || len(cleared) != 1 || cleared[0].Path != lock {
		t.Errorf("ClearStaleLocks = %v, %v; want %s removed", cleared, err, lock)
	}
	if _, err := os.Lstat(lock); !os.IsNotExist(err) {
		t.Errorf("the orphaned lock is still there: %v", err)
	}
}
