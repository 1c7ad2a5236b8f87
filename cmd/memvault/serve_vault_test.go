package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// TestRefreshReadsOnlyWhatOtherCommitsChanged drives servedVault.refresh the
// way a tool call does after another process committed: the index must
// follow adds, edits, deletes and renames by re-reading those files alone,
// including commits that landed before this server's own last commit.
func TestRefreshReadsOnlyWhatOtherCommitsChanged(t *testing.T) {
	t.Parallel()
	root := newRepo(t)
	store, err := gitstore.Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	mem := func(id, body string) string {
		return "---\nid: " + id + "\ntitle: Memory " + id + "\n---\n" + body + "\n"
	}
	when := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	commitFiles(t, store, map[string]string{
		".memory/project/a.md": mem("a", "Retry three times."),
		".memory/project/b.md": mem("b", "Use slog."),
		".memory/project/d.md": mem("d", "Kafka for events."),
	}, when, "seed")
	dir := filepath.Join(root, ".memory")
	v, err := vault.Open(t.Context(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var full int
	v.Subscribe(func(c vault.Change) {
		mu.Lock()
		if c.Full {
			full++
		}
		mu.Unlock()
	})
	slot := &servedVault{name: projectScope, dir: dir, logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	slot.head = func(ctx context.Context) (string, error) {
		st, err := store.State(ctx)
		return st.Head, err
	}
	var diffs int
	slot.changed = func(ctx context.Context, from, to string) ([]string, error) {
		diffs++
		return gitrepo.ChangedFiles(ctx, store, dir, from, to)
	}
	slot.parents = func(ctx context.Context, h string) ([]string, error) {
		c, err := store.ReadCommit(ctx, h)
		return c.Parents, err
	}
	head, err := slot.head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slot.noteHead(head)

	// Another process: edit a, add c, delete b, rename d to e.
	commitFiles(t, store, map[string]string{
		".memory/project/a.md":    mem("a", "Retry five times."),
		".memory/short-term/c.md": mem("c", "Fix the flaky test."),
	}, when.Add(time.Minute), "other process")
	for _, p := range []string{"project/b.md", "project/d.md"} {
		if err := os.Remove(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	commitFiles(t, store, map[string]string{".memory/project/e.md": mem("d", "Kafka for events.")}, when.Add(2*time.Minute), "rename")
	if _, err := store.Commit(t.Context(), gitstore.Change{Paths: []string{filepath.Join(dir, "project/b.md"), filepath.Join(dir, "project/d.md")},
		Message: "delete", Author: &gitstore.Signature{Name: "T", Email: "t@example.com"}}); err != nil {
		t.Fatal(err)
	}
	// This server's own commit lands on top: the commits before it must
	// still be read.
	commitFiles(t, store, map[string]string{".memory/project/f.md": mem("f", "Own write.")}, when.Add(3*time.Minute), "own")
	own, err := slot.head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slot.NoteOwnCommit(own)

	slot.refresh(t.Context(), v)

	checks := []struct {
		id, want string // want "" means gone
		path     string
	}{
		{id: "a", want: "five", path: "project/a.md"},
		{id: "b"},
		{id: "c", want: "flaky", path: "short-term/c.md"},
		{id: "d", want: "Kafka", path: "project/e.md"},
		{id: "f", want: "Own write", path: "project/f.md"},
	}
	for _, c := range checks {
		m, err := v.Get(c.id)
		switch {
		case c.want == "" && !errors.Is(err, vault.ErrNotFound):
			t.Errorf("%s: got %v, %v; want it gone", c.id, m, err)
		case c.want != "" && (err != nil || !strings.Contains(m.Body, c.want) || m.Path != c.path):
			t.Errorf("%s: got %+v, %v; want body with %q at %s", c.id, m, err, c.want, c.path)
		}
	}
	if diffs != 1 {
		t.Errorf("refresh diffed %d times; want once, for the other process's commits under the own one", diffs)
	}

	// The next own commit lands right on the HEAD just seen: nothing but
	// its own files changed, so there is nothing to diff.
	commitFiles(t, store, map[string]string{".memory/project/g.md": mem("g", "Second own write.")}, when.Add(4*time.Minute), "own again")
	own, err = slot.head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slot.NoteOwnCommit(own)
	slot.refresh(t.Context(), v)
	if diffs != 1 {
		t.Errorf("refresh diffed again for the server's own commit on the HEAD it had (%d diffs)", diffs)
	}
	if slot.seen != own {
		t.Errorf("after the own commit the HEAD seen is %s; want %s", slot.seen, own)
	}
	mu.Lock()
	defer mu.Unlock()
	if full != 0 {
		t.Errorf("refresh reloaded the whole vault %d times; want only the changed files re-read", full)
	}
}
