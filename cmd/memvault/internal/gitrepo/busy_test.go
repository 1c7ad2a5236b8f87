package gitrepo

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

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
		if got := GitDirOf(tt.dir); got != tt.want {
			t.Errorf("GitDirOf(%s) = %q, want %q", tt.dir, got, tt.want)
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
	busy := Busy(vdir)
	if busy == nil {
		t.Fatal("Busy in a repository = nil")
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
	if d := t.TempDir(); GitDirOf(d) == "" && Busy(d) != nil {
		t.Error("Busy outside git is not nil")
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
