package live

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

// TestChangeDuringLoadIsApplied edits a memory while the vault loads and
// dates the edit an hour back: the watch, started before the load, must
// bring it in. (Looking after the load for files modified in the last few
// seconds, as serve did, missed it, and any change older than that window
// in a long load.)
func TestChangeDuringLoadIsApplied(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "project", "a.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	file := func(body string) []byte { return []byte("---\nid: a-1\ntitle: Release\n---\n" + body + "\n") }
	if err := os.WriteFile(p, file("Use make release."), 0o644); err != nil {
		t.Fatal(err)
	}
	changed := make(chan vault.Change, 64)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, stop, err := Start(t.Context(), dir, logger, func() (*vault.Vault, error) {
		v, err := vault.Open(t.Context(), dir, vault.Options{})
		if err != nil {
			return nil, err
		}
		v.Subscribe(func(c vault.Change) { changed <- c })
		// The load has read the file; now it changes, before the load
		// returns.
		if err := os.WriteFile(p, file("Use make ship."), 0o644); err != nil {
			return nil, err
		}
		hourAgo := time.Now().Add(-time.Hour)
		return v, os.Chtimes(p, hourAgo, hourAgo)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if m, _ := v.Get("a-1"); m == nil || !strings.Contains(m.Body, "make release") {
		t.Fatalf("the load did not read the first version: %+v", m)
	}
	timeout := time.After(30 * time.Second) // a guard, not a wait: the change event ends the loop
	for {
		select {
		case <-changed:
			if m, _ := v.Get("a-1"); m != nil && strings.Contains(m.Body, "make ship") {
				return
			}
		case <-timeout:
			t.Fatal("the change made during the load never reached the vault")
		}
	}
}
