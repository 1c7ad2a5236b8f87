//go:build linux

package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDoctorFixRemovesAKilledMergesLeftovers (issue 27 finding 5): after
// kill -9 of a sync's process group in its merge, .git/index.lock has no
// owner record and .merge_file_* copies lie at the top of the work tree.
// doctor names both; doctor --fix removes them, as no git process works
// in the repository; then memvault sync and the user's own git commit
// succeed.
func TestDoctorFixRemovesAKilledMergesLeftovers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs git")
	}
	_, a, _ := sharedTeam(t)
	lock := filepath.Join(a.git.root, ".git", "index.lock")
	leftover := filepath.Join(a.git.root, ".merge_file_Ab12Cd")
	for _, f := range []string{lock, leftover} {
		if err := os.WriteFile(f, []byte("killed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out := a.git.memvault("doctor")
	if code != 1 || !strings.Contains(out, lock+" was left by a git process that is gone") || !strings.Contains(out, ".merge_file_Ab12Cd; doctor --fix removes them") {
		t.Errorf("doctor: exit %d\n%s", code, out)
	}
	out = a.memvault("doctor", "--fix")
	if !strings.Contains(out, "fixed    git       removed "+lock) || !strings.Contains(out, "removed a killed merge's temporary files: .merge_file_Ab12Cd") {
		t.Errorf("doctor --fix:\n%s", out)
	}
	for _, f := range []string{lock, leftover} {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", f, err)
		}
	}
	a.memvault("sync")
	a.git.write("notes.txt", "mine\n")
	a.git.git("add", "notes.txt")
	a.git.git("commit", "-q", "-m", "my own commit")
}

// TestKilledSyncTakesItsGitAlong (issue 27 finding 5): kill -9 of memvault
// sync while its git fetch waits on the remote ends the fetch too (the
// kernel kills it with its parent), instead of leaving an orphaned git
// working in the repository outside sync's lock. The remote is a local
// listener that never answers; git's connection to it closes when git
// dies.
func TestKilledSyncTakesItsGitAlong(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs git")
	}
	_, a, _ := sharedTeam(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no local TCP listener:", err)
	}
	defer ln.Close()
	a.git.git("remote", "set-url", "origin", "git://"+ln.Addr().String()+"/team.git")
	sync := exec.Command(buildMemvault(t), "sync", "--network-timeout", "-1s")
	sync.Dir = a.git.root
	if err := sync.Start(); err != nil {
		t.Fatal(err)
	}
	defer sync.Wait()
	conn, err := ln.Accept() // sync's git fetch is connected and waiting
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := sync.Process.Kill(); err != nil { // SIGKILL, memvault alone
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, conn) // returns when git's end closes
		close(closed)
	}()
	guard := time.NewTimer(30 * time.Second) // only ends the wait for a git never killed
	defer guard.Stop()
	select {
	case <-closed:
	case <-guard.C:
		t.Fatal("sync's git fetch still runs after sync was killed")
	}
}
