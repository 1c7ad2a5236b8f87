package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

const commitsPerWriter = 100

// checkLinear verifies that HEAD is a linear chain of want commits on top of
// base, and that every file each writer wrote is in HEAD with its content.
func checkLinear(t *testing.T, s *Store, base string, want int, writers []string) {
	t.Helper()
	h, err := s.resolve("")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for h.String() != base {
		c, err := s.getCommit(h)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.ParentHashes) != 1 {
			t.Fatalf("commit %s has %d parents", h, len(c.ParentHashes))
		}
		n++
		h = c.ParentHashes[0]
	}
	if n != want {
		t.Errorf("%d commits on top of the base, want %d", n, want)
	}
	for _, id := range writers {
		for i := 0; i < commitsPerWriter; i++ {
			rel := fmt.Sprintf("mem/%s/f%03d.md", id, i)
			got, err := s.ReadFile(t.Context(), "", rel)
			if err != nil || string(got) != fmt.Sprintf("%s %d\n", id, i) {
				t.Errorf("%s = %q, %v", rel, got, err)
			}
		}
	}
	if gitPath() != "" {
		if got := runGit(t, s.Root(), "status", "--porcelain"); got != "" {
			t.Errorf("git status = %q", got)
		}
		runGit(t, s.Root(), "fsck", "--strict", "--no-progress")
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two writers of 100 commits each, about 2.5 s of CPU; under -short TestLock and TestCommitWithoutLockRebasesOnMovedBranch check the lock and the compare-and-swap, and this runs without -short, as CI does")
	}
	_, s := newRepo(t)
	base := commitFiles(t, s, "seed", map[string]string{"README.md": "r\n"})
	writers := []string{"g1", "g2"}
	var wg sync.WaitGroup
	errs := make(chan error, len(writers))
	for _, id := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < commitsPerWriter; i++ {
				p := filepath.Join(s.Root(), "mem", id, fmt.Sprintf("f%03d.md", i))
				if err := lockedCommit(t.Context(), s, p, fmt.Sprintf("%s %d\n", id, i)); err != nil {
					errs <- fmt.Errorf("%s commit %d: %w", id, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkLinear(t, s, base.Hash, len(writers)*commitsPerWriter, writers)
}

func TestConcurrentProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two writers of 100 commits each, about 2.5 s of CPU; under -short TestLock and TestCommitWithoutLockRebasesOnMovedBranch check the lock and the compare-and-swap, and this runs without -short, as CI does")
	}
	_, s := newRepo(t)
	base := commitFiles(t, s, "seed", map[string]string{"README.md": "r\n"})
	writers := []string{"p1", "p2"}
	cmds := make([]*exec.Cmd, len(writers))
	for i, id := range writers {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(),
			"GITSTORE_TEST_WORKER="+id,
			"GITSTORE_TEST_REPO="+s.Root(),
			"GITSTORE_TEST_COUNT="+strconv.Itoa(commitsPerWriter),
			// Under -race a process sleeps 1 s at exit by default, which
			// is all waiting and no checking.
			"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("worker %s: %v", writers[i], err)
		}
	}
	checkLinear(t, s, base.Hash, len(writers)*commitsPerWriter, writers)
}

// TestCommitWithoutLockRebasesOnMovedBranch checks the compare-and-swap: a
// branch that moves between reading HEAD and updating it is detected, and
// the commit is rebuilt on the new head.
func TestCommitWithoutLockRebasesOnMovedBranch(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	commitFiles(t, s, "seed", map[string]string{"a.md": "a\n"})
	other, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	h, err := s.readHead()
	if err != nil {
		t.Fatal(err)
	}
	moved := commitFiles(t, other, "moved meanwhile", map[string]string{"b.md": "b\n"})
	// A stale head must be refused...
	if err := s.updateRef(t.Context(), h, plumbing.NewHash(moved.Hash), *testAuthor, s.now(), "x"); err != errRefMoved {
		t.Fatalf("updateRef with a stale old value = %v, want errRefMoved", err)
	}
	// ...and a Commit builds on the current head.
	res := commitFiles(t, s, "mine", map[string]string{"c.md": "c\n"})
	c, err := s.getCommit(plumbing.NewHash(res.Hash))
	if err != nil {
		t.Fatal(err)
	}
	if c.ParentHashes[0].String() != moved.Hash {
		t.Errorf("parent = %s, want %s", c.ParentHashes[0], moved.Hash)
	}
	for _, p := range []string{"a.md", "b.md", "c.md"} {
		if _, err := s.ReadFile(t.Context(), "", p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestLock(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	unlock, err := s.Lock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Held in this process: a second Lock waits until its context ends.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Lock(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second Lock = %v, want DeadlineExceeded", err)
	}
	// Held through the file lock: another Store on the same repository
	// waits too.
	other, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx2, cancel2 := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel2()
	if _, err := other.Lock(ctx2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lock from another Store = %v, want DeadlineExceeded", err)
	}
	unlock()
	unlock() // idempotent
	u2, err := other.Lock(t.Context())
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	u2()

	ctx3, cancel3 := context.WithCancel(t.Context())
	cancel3()
	writeFile(t, filepath.Join(dir, "a.md"), "a\n")
	if _, err := s.Commit(ctx3, Change{Paths: []string{"a.md"}, Message: "x", Author: testAuthor}); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit with a canceled context = %v", err)
	}
	if st, _ := s.State(t.Context()); !st.Unborn {
		t.Error("a canceled Commit made a commit")
	}
}

// TestLockContext: the holder's context takes the lock again at once, on
// this Store or another of the same repository; any other context still
// waits, and after unlock the lock is free.
func TestLockContext(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	other, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	held, unlock, err := s.LockContext(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*Store{s, other} {
		again, err := st.Lock(held)
		if err != nil {
			t.Fatalf("Lock with the holder's context: %v", err)
		}
		again()
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := other.Lock(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("Lock with another context while held = %v, want Canceled", err)
	}
	unlock()
	u, err := other.Lock(t.Context())
	if err != nil {
		t.Errorf("Lock after unlock: %v", err)
	} else {
		u()
	}
}
