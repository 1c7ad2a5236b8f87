package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeToken has the shape of a GitHub token; it is no one's.
const fakeToken = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"

// fixedNow is the vaults' clock: doctor's checks do not depend on it.
func fixedNow() time.Time { return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC) }

// recordingCommitter records the commits it is asked for and refuses one
// made without its lock.
type recordingCommitter struct {
	mu      sync.Mutex
	commits []recordedCommit
	locked  bool
}

type recordedCommit struct {
	paths   []string
	message string
}

func (c *recordingCommitter) Lock(context.Context) (func(), error) {
	c.mu.Lock()
	c.locked = true
	c.mu.Unlock()
	return func() { c.mu.Lock(); c.locked = false; c.mu.Unlock() }, nil
}

func (c *recordingCommitter) Commit(_ context.Context, paths []string, message string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.locked {
		return "", errors.New("commit without the lock")
	}
	c.commits = append(c.commits, recordedCommit{paths: slices.Clone(paths), message: message})
	return "c0ffee", nil
}

// writeFiles writes files (vault-relative path -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
