//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMergeDriverEndsOnSignal (issue 27 finding 2): SIGTERM and SIGINT end
// the driver at once, whatever it is doing; ours stays as it was. The
// driver is held on a FIFO as theirs: the test knows it is reading when
// its own open of the FIFO for writing returns.
func TestMergeDriverEndsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			base, ours, theirs := filepath.Join(dir, "base"), filepath.Join(dir, "ours"), filepath.Join(dir, "theirs")
			for _, p := range []string{base, ours} {
				if err := os.WriteFile(p, []byte(mergeBase), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := syscall.Mkfifo(theirs, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(buildMemvault(t), "merge-driver", base, ours, theirs, mergeMemory)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Opening for writing returns once the driver opened it to
			// read (its read then waits for data that never comes).
			w, err := os.OpenFile(theirs, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() <= 128 && ee.ExitCode() != -1 {
				t.Errorf("driver after %v: %v, want an exit status over 128\n%s", sig, err, stderr.String())
			}
			if got := readFile(t, ours); got != mergeBase {
				t.Errorf("ours changed:\n%s", got)
			}
		})
	}
}
