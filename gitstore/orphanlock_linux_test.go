package gitstore

import (
	"context"
	"io"
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

	git, stdin := liveGit(t, root)
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

// TestClearKilled (issue 27 finding 5): the ref locks a fetch or push
// killed in a sync leaves (the remote-tracking ref's, packed-refs') are
// kept while a git process works in the repository; WaitQuiet waits for
// it to end, and ClearKilled then removes them with index.lock, HEAD.lock
// (a merge killed while moving the branch left it, and the user's git
// commit failed on it) and the merge driver's temporary files. A ref
// outside refs/ is refused.
func TestClearKilled(t *testing.T) {
	t.Parallel()
	root, s := newRepo(t)
	commitFiles(t, s, "seed", map[string]string{"a.md": "a\n"})
	locks := []string{
		filepath.Join(root, ".git", "index.lock"),
		filepath.Join(root, ".git", "HEAD.lock"),
		filepath.Join(root, ".git", "refs", "remotes", "origin", "main.lock"),
		filepath.Join(root, ".git", "packed-refs.lock"),
		filepath.Join(root, ".merge_file_Xy12"),
	}
	for _, l := range locks {
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, l, "killed\n")
	}
	refs := []string{"refs/remotes/origin/main"}

	git, stdin := liveGit(t, root)
	if removed, err := s.ClearKilled(t.Context(), refs); err != nil || len(removed) != 0 {
		t.Errorf("with a live git: ClearKilled = %v, %v; want nothing removed", removed, err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if s.WaitQuiet(cancelled) {
		t.Error("WaitQuiet reports quiet while git runs")
	}
	quiet := make(chan bool, 1)
	go func() { quiet <- s.WaitQuiet(t.Context()) }()
	stdin.Close()
	if err := git.Wait(); err != nil {
		t.Fatal(err)
	}
	if !<-quiet {
		t.Fatal("WaitQuiet did not see git end")
	}
	removed, err := s.ClearKilled(t.Context(), refs)
	if err != nil || len(removed) != len(locks) {
		t.Errorf("ClearKilled = %v, %v; want the %d leftovers removed", removed, err, len(locks))
	}
	for _, l := range locks {
		if _, err := os.Lstat(l); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", l, err)
		}
	}
	if _, err := s.ClearKilled(t.Context(), []string{"HEAD"}); err == nil {
		t.Error("ClearKilled accepted a ref outside refs/")
	}
}

// liveGit starts a git process in root that waits on its standard input
// (as git commit waits on an editor) until it is closed.
func liveGit(t *testing.T, root string) (*exec.Cmd, io.Closer) {
	t.Helper()
	git := exec.Command("git", "hash-object", "--stdin")
	git.Dir = root
	stdin, err := git.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := git.Start(); err != nil {
		t.Fatal(err)
	}
	return git, stdin
}

// TestLiveMemvaultLockIsNotOrphaned: a lock a live memvault process holds
// (its owner record is the lock) is never taken for orphaned, though no
// git process works in the repository: doctor --fix clears locks before
// it takes the write lock, while a server may be committing.
func TestLiveMemvaultLockIsNotOrphaned(t *testing.T) {
	t.Parallel()
	root, s := newRepo(t)
	commitFiles(t, s, "seed", map[string]string{"a.md": "a\n"})
	target := filepath.Join(root, ".git", "index")
	rec := currentOwner().recordPath(target)
	writeFile(t, rec, "a live memvault's\n")
	if err := os.Link(rec, target+".lock"); err != nil {
		t.Skip("no hard links here:", err)
	}
	if cleared, err := s.ClearStaleLocks(t.Context()); err != nil || len(cleared) != 0 {
		t.Errorf("ClearStaleLocks = %v, %v; want the live lock kept", cleared, err)
	}
	if _, err := os.Lstat(target + ".lock"); err != nil {
		t.Errorf("a live memvault's lock is gone: %v", err)
	}
}
