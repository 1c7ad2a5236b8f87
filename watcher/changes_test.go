package watcher

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestChanges checks the generation moves exactly when something changed
// under a watched folder, with Sync as the only synchronisation: every
// change is made before the Sync that must see it.
func TestChanges(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write := func(rel, data string) {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, flat := mk("code/sub"), mk("flat/inner")
	mk("other")
	code = filepath.Dir(code)
	flat = filepath.Dir(flat)
	c, err := NewChanges(filepath.Join(root, ".git", "memvault", "watch"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Watch(code, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(flat, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(filepath.Join(root, "missing"), true); err == nil {
		t.Error("watching a missing folder did not fail")
	}
	gen := func() uint64 {
		t.Helper()
		g, err := c.Sync(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	steps := []struct {
		name    string
		change  func()
		changed bool
	}{
		{"nothing", func() {}, false},
		{"nothing again", func() {}, false},
		{"a file in a recursive folder", func() { write("code/a.go", "a") }, true},
		{"a file below it", func() { write("code/sub/b.go", "b") }, true},
		{"a file in an unwatched folder", func() { write("other/c.go", "c") }, false},
		{"a file in a flat folder", func() { write("flat/d.go", "d") }, true},
		{"a file below a flat folder", func() { write("flat/inner/e.go", "e") }, false},
		{"a new folder below a recursive one", func() { mk("code/new") }, true},
		{"a file in the new folder", func() { write("code/new/f.go", "f") }, true},
		{"an edit in place", func() { write("code/new/f.go", "f2") }, true},
		{"a removal", func() { os.Remove(filepath.Join(root, "code", "a.go")) }, true},
		{"still nothing", func() {}, false},
	}
	last := gen()
	for _, s := range steps {
		s.change()
		g := gen()
		if (g != last) != s.changed {
			t.Errorf("%s: generation %d -> %d, want changed=%v", s.name, last, g, s.changed)
		}
		last = g
	}
	if !c.Watched(code, true) || !c.Watched(filepath.Join(code, "new"), false) {
		t.Error("the recursive folder or its new subfolder is not watched")
	}
	if err := os.RemoveAll(filepath.Join(code, "sub")); err != nil {
		t.Fatal(err)
	}
	gen()
	if c.Watched(filepath.Join(code, "sub"), false) {
		t.Error("a removed folder is still counted as watched")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sync(t.Context()); err == nil {
		t.Error("Sync after Close did not fail")
	}
}

// TestChangesSyncGivenUp checks that Syncs that give up (their context
// ends first) leave the barrier sound: a later Sync still sees every
// change made before it, and none when there was none.
func TestChangesSyncGivenUp(t *testing.T) {
	t.Parallel()
	c, code := watchedCode(t)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	last, err := c.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * syncFiles {
		c.Sync(canceled) // may answer or give up
		changed := i%2 == 0
		if changed {
			if err := os.WriteFile(filepath.Join(code, "f.go"), []byte{byte(i)}, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, err := c.Sync(t.Context())
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if (g != last) != changed {
			t.Errorf("step %d: generation %d -> %d, want changed=%v", i, last, g, changed)
		}
		last = g
	}
}

// TestChangesBarrier checks a barrier split in two (Begin, then Wait
// after other work): it counts every change made before Begin, a second
// Wait gives the first one's answer, and barriers begun and never waited
// for leave later ones sound.
func TestChangesBarrier(t *testing.T) {
	t.Parallel()
	c, code := watchedCode(t)
	write := func(i int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(code, "f.go"), []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wait := func(b *Barrier) uint64 {
		t.Helper()
		g, err := b.Wait(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	last, err := c.Sync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * syncFiles {
		changed := i%2 == 0
		if changed {
			write(i)
		}
		b := c.Begin()
		c.Begin() // never waited for
		// A change after Begin may or may not be counted by b, but is by
		// the next barrier.
		write(100 + i)
		g := wait(b)
		if changed && g == last {
			t.Errorf("step %d: generation %d -> %d: the change made before Begin was not counted", i, last, g)
		}
		if again := wait(b); again != g {
			t.Errorf("step %d: a second Wait answered %d, the first %d", i, again, g)
		}
		next, err := c.Sync(t.Context())
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if next == last {
			t.Errorf("step %d: the change made after Begin was not counted by the next barrier (%d)", i, next)
		}
		last = next
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Begin().Wait(t.Context()); err == nil {
		t.Error("a barrier begun after Close did not fail")
	}
}

// watchedCode returns a change counter watching a new empty folder,
// recursively, and that folder; the counter is closed when the test ends.
func watchedCode(t *testing.T) (*Changes, string) {
	t.Helper()
	root := t.TempDir()
	code := filepath.Join(root, "code")
	if err := os.Mkdir(code, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := NewChanges(filepath.Join(root, "watch"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Watch(code, true); err != nil {
		t.Fatal(err)
	}
	return c, code
}
