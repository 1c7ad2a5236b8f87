package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/gitstore"
)

// codeRepo is a real git repository of code in a temporary folder, with
// commits a minute apart at a fixed start: when is the last one's time.
type codeRepo struct {
	t    *testing.T
	root string
	when time.Time
}

// tempRoot is a new temporary folder by its real path (macOS's /tmp is
// a symlink, and git reports real paths).
func tempRoot(t *testing.T) string {
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return root
}

// initStore makes a repository in a new temporary folder through
// gitstore, closed with the test.
func initStore(t *testing.T) (string, *gitstore.Store) {
	t.Helper()
	root := tempRoot(t)
	s, err := gitstore.Init(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return root, s
}

// openStore opens the repository at root, closed with the test.
func openStore(t *testing.T, root string) *gitstore.Store {
	t.Helper()
	s, err := gitstore.Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openRepo is the Repo of the vault root/.memory, its store closed with
// the test.
func openRepo(t *testing.T, root string) *Repo {
	t.Helper()
	g, err := New(openStore(t, root), filepath.Join(root, ".memory"))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// liveCheckerOf is g's LiveChecker, closed with the test; it fails the
// test when the checker has no work cache to test.
func liveCheckerOf(t *testing.T, g *Repo) *Checker {
	t.Helper()
	live := g.LiveChecker()
	t.Cleanup(func() { live.Close() })
	if live.work == nil {
		t.Fatal("no work cache: the file system cannot be watched here")
	}
	return live
}

func newCodeRepo(t *testing.T) *codeRepo {
	t.Helper()
	root := tempRoot(t)
	r := &codeRepo{t: t, root: root, when: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	r.git("init", "-q", "-b", "main")
	return r
}

// git runs git in the repository, author and committer dated r.when.
func (r *codeRepo) git(args ...string) {
	r.t.Helper()
	cmd := exec.CommandContext(r.t.Context(), "git", args...)
	cmd.Dir = r.root
	date := r.when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
		"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// write writes data to the work-tree file rel, making its folders.
func (r *codeRepo) write(rel, data string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commitAll commits the whole work tree a minute after the last commit.
func (r *codeRepo) commitAll(msg string) {
	r.t.Helper()
	r.when = r.when.Add(time.Minute)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}
