package gitstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
)

// TestMain isolates the tests from the user's git configuration and serves
// as the worker process of TestConcurrentProcesses.
func TestMain(m *testing.M) {
	if os.Getenv("GITSTORE_TEST_WORKER") != "" {
		if err := runWorker(); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	home, err := os.MkdirTemp("", "gitstore-home-")
	if err != nil {
		panic(err)
	}
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
		"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE", "EMAIL",
		"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_CONFIG_SYSTEM"} {
		os.Unsetenv(k)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	os.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_TERMINAL_PROMPT", "0")
	code := m.Run()
	removeSharedReadRepo()
	os.RemoveAll(home)
	os.Exit(code)
}

// runWorker makes GITSTORE_TEST_COUNT commits of its own files, each under
// Lock, in the repository at GITSTORE_TEST_REPO.
func runWorker() error {
	if os.Getenv("GITSTORE_TEST_WORKER") == "hold" {
		return holdLocks()
	}
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv("GITSTORE_TEST_REPO"))
	if err != nil {
		return err
	}
	defer s.Close()
	n, _ := strconv.Atoi(os.Getenv("GITSTORE_TEST_COUNT"))
	id := os.Getenv("GITSTORE_TEST_WORKER")
	for i := 0; i < n; i++ {
		if err := lockedCommit(ctx, s, filepath.Join(s.Root(), "mem", id, fmt.Sprintf("f%03d.md", i)), fmt.Sprintf("%s %d\n", id, i)); err != nil {
			return err
		}
	}
	return nil
}

// lockedCommit is the vault's write sequence in miniature.
func lockedCommit(ctx context.Context, s *Store, path, content string) error {
	unlock, err := s.Lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return err
	}
	_, err = s.Commit(ctx, Change{Paths: []string{path}, Message: "write " + filepath.Base(path), Author: testAuthor})
	return err
}

var testAuthor = &Signature{Name: "Ada Lovelace", Email: "ada@example.com"}

// newRepo creates an empty repository with a local identity.
func newRepo(t testing.TB) (string, *Store) {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	s, err := Init(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	appendFile(t, filepath.Join(dir, ".git", "config"), "[user]\n\tname = Test User\n\temail = test@example.com\n")
	return dir, s
}

func appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// commitFiles writes files (relative path -> content; "" deletes) and
// commits them through the Store.
func commitFiles(t testing.TB, s *Store, msg string, files map[string]string) CommitResult {
	t.Helper()
	paths := writeWorkFiles(t, s.Root(), files)
	res, err := s.Commit(t.Context(), Change{Paths: paths, Message: msg, Author: testAuthor})
	if err != nil {
		t.Fatalf("commit %q: %v", msg, err)
	}
	return res
}

// writeWorkFiles writes files (relative path -> content; "" deletes)
// below root and returns their absolute paths.
func writeWorkFiles(t testing.TB, root string, files map[string]string) []string {
	t.Helper()
	var paths []string
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if content == "" {
			os.Remove(p)
		} else {
			writeFile(t, p, content)
		}
		paths = append(paths, p)
	}
	return paths
}

// gitPath returns the git CLI, or "" if it is not installed.
func gitPath() string {
	p, _ := exec.LookPath("git")
	return p
}

// runGit runs the git CLI in dir and returns its stdout.
func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitOutput(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func gitOutput(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Git User", "GIT_AUTHOR_EMAIL=git@example.com",
		"GIT_COMMITTER_NAME=Git User", "GIT_COMMITTER_EMAIL=git@example.com")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s", err, stderr.String())
	}
	return stdout.String(), nil
}

// stage adds paths to the index with the git CLI if present, else go-git.
func stage(t testing.TB, dir string, paths ...string) {
	t.Helper()
	if gitPath() != "" {
		runGit(t, dir, append([]string{"add", "--"}, paths...)...)
		return
	}
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if _, err := wt.Add(p); err != nil {
			t.Fatal(err)
		}
	}
}

// clock returns a Now func that advances a minute per call from t0.
func clock(t0 time.Time) func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n) * time.Minute)
	}
}

// requireGit skips the calling (sub)test when the git CLI is missing; use it
// only for the parts of a test that need the CLI.
func requireGit(t *testing.T) {
	t.Helper()
	if gitPath() == "" {
		t.Skip("git CLI not installed")
	}
}

func gitOutputStdin(dir string, env []string, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s", err, stderr.String())
	}
	return stdout.String(), nil
}
