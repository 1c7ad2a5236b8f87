// Package vaulttest holds the fakes the tests of vault and its subpackages
// share: a committer that records its commits, a clock that moves only
// when told, and files written into a vault folder. Only tests import it.
package vaulttest

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

// Committer is a vault.Committer that records the commits it is asked
// for, answers each with the hash "c0ffee", and refuses one made without
// its lock.
type Committer struct {
	mu      sync.Mutex
	locked  bool
	commits []Commit
}

// Commit is one recorded commit.
type Commit struct {
	Paths   []string
	Message string
}

// Lock takes the committer's lock.
func (c *Committer) Lock(context.Context) (func(), error) {
	c.mu.Lock()
	c.locked = true
	c.mu.Unlock()
	return func() { c.mu.Lock(); c.locked = false; c.mu.Unlock() }, nil
}

// Commit records paths and message.
func (c *Committer) Commit(_ context.Context, paths []string, message string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.locked {
		return "", errors.New("commit without the lock")
	}
	c.commits = append(c.commits, Commit{Paths: slices.Clone(paths), Message: message})
	return "c0ffee", nil
}

// Commits returns the commits recorded so far.
func (c *Committer) Commits() []Commit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.commits)
}

// WriteFiles writes files (vault-relative slash path -> content) under
// dir, creating folders.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
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

// Clock is a clock for vault.Options.Now that moves only when told.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's instant.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
