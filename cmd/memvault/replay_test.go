package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
)

// TestSampleHistory replays the sample vault's history once, through the
// sample-history command, and runs the tests that need a past on it. They
// run in order: the read-only ones first, then those that commit. The
// replay itself is tested in internal/samplehistory.
func TestSampleHistory(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	root := filepath.Join(t.TempDir(), "shopflow")
	r := &cliRepo{t: t, root: root, dir: filepath.Join(root, samplehistory.VaultDir), now: gitTestNow, home: t.TempDir()}
	sample := filepath.Join("..", "..", "sample-vault")
	if out := r.ok("sample-history", root, "--sample", sample); !strings.Contains(out, "HEAD ") {
		t.Errorf("sample-history printed %q", out)
	}
	t.Run("why chain", func(t *testing.T) { testWhyChain(t, r) })
	t.Run("why rivals", func(t *testing.T) { testWhySampleRivals(t, r) })
	t.Run("recall as-of", func(t *testing.T) { testRecallAsOf(t, r) })
	t.Run("diff", func(t *testing.T) { testDiffSample(t, r) })
	t.Run("refuses a repository with commits", func(t *testing.T) {
		if code, _ := r.run("", "sample-history", root, "--sample", sample); code == 0 {
			t.Error("second replay into the same folder succeeded")
		}
	})
	t.Run("refuses a folder without history.json", func(t *testing.T) {
		if code, _ := r.run("", "sample-history", filepath.Join(t.TempDir(), "x"), "--sample", t.TempDir()); code == 0 {
			t.Error("replay of a folder without history.json succeeded")
		}
	})
}
