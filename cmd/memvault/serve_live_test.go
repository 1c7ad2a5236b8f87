package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
			stop, err := startLiveWith(t.Context(), v, slog.New(slog.NewTextHandler(&log, nil)), watcher.Options{Debounce: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
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

func TestGitDirOf(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	wt := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub", ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	makeGitDir(t, filepath.Join(root, ".git"))
	makeGitDir(t, filepath.Join(filepath.Dir(wt), "elsewhere", ".git", "worktrees", "x"))
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: ../elsewhere/.git/worktrees/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ dir, want string }{
		{filepath.Join(root, "sub", ".memory"), filepath.Join(root, ".git")},
		{wt, filepath.Join(filepath.Dir(wt), "elsewhere", ".git", "worktrees", "x")},
	}
	for _, tt := range tests {
		if got := gitDirOf(tt.dir); got != tt.want {
			t.Errorf("gitDirOf(%s) = %q, want %q", tt.dir, got, tt.want)
		}
	}
}

func TestGitBusy(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	vdir := filepath.Join(root, ".memory")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	makeGitDir(t, filepath.Join(root, ".git"))
	lock := filepath.Join(root, ".git", "index.lock")
	busy := gitBusy(vdir)
	if busy == nil {
		t.Fatal("gitBusy in a repository = nil")
	}
	tests := []struct {
		name string
		age  time.Duration // of the lock; negative: no lock
		want bool
	}{
		{"no lock", -1, false},
		{"fresh lock", 0, true},
		{"lock left by a dead git", time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(lock)
			if tt.age >= 0 {
				if err := os.WriteFile(lock, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				at := time.Now().Add(-tt.age)
				if err := os.Chtimes(lock, at, at); err != nil {
					t.Fatal(err)
				}
			}
			if got := busy(); got != tt.want {
				t.Errorf("busy = %v, want %v", got, tt.want)
			}
		})
	}
	if d := t.TempDir(); gitDirOf(d) == "" && gitBusy(d) != nil {
		t.Error("gitBusy outside git is not nil")
	}
}

// makeGitDir lays out the least of a git directory that git (and
// gitstore.Find) takes for one: HEAD and objects/.
func makeGitDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
