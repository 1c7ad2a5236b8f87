//go:build unix

package teamsync

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCancelKillsGitAndWhatItStarted (issue 27 finding 5): a sync
// cancelled while git runs a child (here an alias's shell that became a
// sleep, as a merge runs its driver) kills the child too, not git alone:
// the child, which holds a FIFO open for writing, is gone when the FIFO
// reads end of file. Killing git alone left the child running outside
// sync's write lock.
func TestCancelKillsGitAndWhatItStarted(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "held")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := CLI{Dir: dir}.Run(ctx, nil, "-c", "alias.hold=!exec sleep 3600 3>"+fifo, "hold")
		done <- err
	}()
	// Opening for reading waits until the child opens it for writing: it
	// runs.
	f, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	gone := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(f) // end of file once no writer is left
		gone <- err
	}()
	guard := time.NewTimer(30 * time.Second) // only ends the wait for a child never killed
	defer guard.Stop()
	select {
	case err := <-gone:
		if err != nil {
			t.Fatal(err)
		}
	case <-guard.C:
		t.Fatal("git's child still runs after its sync was cancelled")
	}
	if err := <-done; err == nil || !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Run = %v, want an error after the cancel", err)
	}
}
