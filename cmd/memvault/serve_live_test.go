package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/live"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/watcher"
)

// TestStartLiveLogs edits files under a live vault and checks what the
// server log says: each batch, a broken file served stale, a secret
// named by rule and place but never by value.
func TestStartLiveLogs(t *testing.T) {
	t.Parallel()
	const awsKey = "AKIAUJZDEGXDNCF32EPF"
	tests := []struct {
		name    string
		content string
		want    []string
		wantNot []string
	}{
		{"edit", "---\nid: a-1\ntitle: A\n---\n\nUse make release.\n",
			[]string{"applied file changes", "files=1", "memories=1", "duration="}, nil},
		{"broken front matter", "---\nid: a-1\ntitle: [oops\n---\n\nUse make release.\n",
			[]string{"no longer parses; serving its last good version", "file=project/a.md"}, nil},
		{"secret", "---\nid: a-1\ntitle: A\n---\n\naws_access_key_id = " + awsKey + "\n",
			[]string{"possible secret in a memory file", "aws-access-key-id", "line=6"}, []string{awsKey}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			p := filepath.Join(dir, "project", "a.md")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("---\nid: a-1\ntitle: A\n---\n\nUse make build.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			v, err := vault.Open(t.Context(), dir, vault.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var log lockedBuffer
			stop, err := live.StartWith(t.Context(), v, slog.New(slog.NewTextHandler(&log, nil)), watcher.Options{Debounce: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			// Replaced by a rename, as editors save, so the watcher sees
			// the new content in one event: a write in place is a
			// truncation and a write, which a loaded machine may see as
			// two batches (the first of an empty file).
			tmp := filepath.Join(t.TempDir(), "a.md")
			if err := os.WriteFile(tmp, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
			log.waitFor(t, 0, tt.want[0])
			got := log.String()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("log lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("log contains %q:\n%s", w, got)
				}
			}
		})
	}
}
