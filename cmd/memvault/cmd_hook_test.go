package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookRepo is a real git repository for hook tests, driven by the git CLI
// (hooks only run under it) and the built memvault binary.
type hookRepo struct {
	t    *testing.T
	bin  string
	root string
}

func newHookRepo(t *testing.T, bin string) *hookRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git CLI not installed: hooks only run under it")
	}
	r := &hookRepo{t: t, bin: bin, root: t.TempDir()}
	r.git("init", "-q")
	return r
}

func (r *hookRepo) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = r.root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (r *hookRepo) git(args ...string) string {
	r.t.Helper()
	out, err := r.run("git", args...)
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func (r *hookRepo) memvault(args ...string) string {
	r.t.Helper()
	out, err := r.run(r.bin, args...)
	if err != nil {
		r.t.Fatalf("memvault %v: %v\n%s", args, err, out)
	}
	return out
}

func (r *hookRepo) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// commit stages paths and commits; it returns git's output and whether the
// commit went through.
func (r *hookRepo) commit(msg string, paths ...string) (string, bool) {
	r.t.Helper()
	r.git(append([]string{"add", "--"}, paths...)...)
	out, err := r.run("git", "commit", "-q", "-m", msg)
	return out, err == nil
}

func (r *hookRepo) head() string {
	out, _ := r.run("git", "rev-parse", "-q", "--verify", "HEAD")
	return strings.TrimSpace(out)
}

const secretMemory = "---\ntitle: CI\n---\n\nThe CI token is\n\n    ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES\n"

// TestHook builds the binary once: hooks run it by absolute path.
func TestHook(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)
	t.Run("blocks secrets and chains the existing hook", func(t *testing.T) { t.Parallel(); testHookBlocksAndChains(t, bin) })
	t.Run("core.hooksPath and worktrees", func(t *testing.T) { t.Parallel(); testHookHooksPathWorktree(t, bin) })
	t.Run("common dir from a worktree", func(t *testing.T) { t.Parallel(); testHookCommonDir(t, bin) })
	t.Run("a secret already in HEAD", func(t *testing.T) { t.Parallel(); testHookSecretInHead(t, bin) })
}

// Issue 13, finding 14: the hook scanned the whole staged vault, so once a
// secret was in HEAD an unrelated `git commit main.go` was blocked. It now
// scans what the commit adds or changes.
func testHookSecretInHead(t *testing.T, bin string) {
	r := newHookRepo(t, bin)
	r.memvault("hook", "install")
	r.write(".memory/project/ci.md", secretMemory)
	r.git("add", "--", ".memory/project/ci.md")
	r.git("commit", "-q", "--no-verify", "-m", "a secret slipped in")

	r.write("main.go", "package main\n")
	if out, ok := r.commit("unrelated", "main.go"); !ok {
		t.Fatalf("an unrelated commit was blocked by the secret in HEAD:\n%s", out)
	}
	// commit -a hands the hook a temporary index holding every tracked
	// file, the committed secret included.
	r.write("main.go", "package main\n\nfunc main() {}\n")
	if out, err := r.run("git", "commit", "-q", "-a", "-m", "unrelated, -a"); err != nil {
		t.Fatalf("commit -a of an unrelated change was blocked:\n%s", out)
	}
	// A memory file that the commit adds with a secret is still refused,
	// and only it is named.
	before := r.head()
	r.write(".memory/project/deploy.md", strings.Replace(secretMemory, "CI", "Deploy", 1))
	out, ok := r.commit("new secret", ".memory/project/deploy.md")
	if ok || !strings.Contains(out, ".memory/project/deploy.md:7:5: github-token") || strings.Contains(out, "ci.md") {
		t.Errorf("commit adding a secret: went through=%v, want blocked naming deploy.md only:\n%s", ok, out)
	}
	r.git("rm", "-q", "--cached", "--", ".memory/project/deploy.md")
	// So is a change to the file that holds the committed secret.
	r.write(".memory/project/ci.md", secretMemory+"\nMore words.\n")
	if out, ok := r.commit("touch the secret", ".memory/project/ci.md"); ok || !strings.Contains(out, ".memory/project/ci.md:7:5") {
		t.Errorf("commit changing the file with the secret: went through=%v, want blocked:\n%s", ok, out)
	}
	if got := r.head(); got != before {
		t.Errorf("HEAD moved from %s to %s", before, got)
	}
}

func testHookBlocksAndChains(t *testing.T, bin string) {
	r := newHookRepo(t, bin)

	// An existing hook that leaves a trace each time it runs.
	hooks := filepath.Join(r.root, ".git", "hooks")
	trace := filepath.Join(r.root, "old-hook-ran")
	old := "#!/bin/sh\necho ran >> '" + trace + "'\n"
	r.write(".git/hooks/pre-commit", old)
	if err := os.Chmod(filepath.Join(hooks, "pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}

	r.memvault("hook", "install")
	r.memvault("hook", "install") // idempotent: the old hook stays chained once
	if _, err := os.Stat(filepath.Join(hooks, "pre-commit.local")); err != nil {
		t.Fatalf("the existing hook was not kept: %v", err)
	}

	r.write(".memory/project/clean.md", "---\ntitle: Clean\n---\n\nNothing secret.\n")
	if out, ok := r.commit("clean", ".memory/project/clean.md"); !ok {
		t.Fatalf("clean commit blocked:\n%s", out)
	}
	if b, _ := os.ReadFile(trace); strings.Count(string(b), "ran") != 1 {
		t.Errorf("existing hook ran %q, want once", b)
	}

	before := r.head()
	r.write(".memory/project/ci.md", secretMemory)
	out, ok := r.commit("secret", ".memory/project/ci.md")
	if ok {
		t.Fatalf("commit with a secret went through:\n%s", out)
	}
	if want := ".memory/project/ci.md:7:5: github-token"; !strings.Contains(out, want) {
		t.Errorf("hook output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "hGAkWvj7") {
		t.Errorf("hook output echoes the secret:\n%s", out)
	}
	if got := r.head(); got != before {
		t.Errorf("HEAD moved from %s to %s", before, got)
	}

	// The staged blob counts, not the work tree: fixing only the work-tree
	// file does not unblock the commit.
	r.write(".memory/project/ci.md", "---\ntitle: CI\n---\n\nThe CI token is in the CI settings.\n")
	if out, err := r.run("git", "commit", "-q", "-m", "still staged"); err == nil {
		t.Fatalf("commit of the staged secret went through:\n%s", out)
	}
	// `git commit -a` hands the hook a temporary index ($GIT_INDEX_FILE)
	// holding the fixed file.
	if out, err := r.run("git", "commit", "-q", "-a", "-m", "fixed"); err != nil {
		t.Fatalf("commit -a of the fixed file blocked:\n%s", out)
	}

	// Files outside .memory are not the hook's business.
	r.write("notes.md", secretMemory)
	if out, ok := r.commit("outside", "notes.md"); !ok {
		t.Fatalf("commit outside .memory blocked:\n%s", out)
	}

	r.memvault("hook", "uninstall")
	got, err := os.ReadFile(filepath.Join(hooks, "pre-commit"))
	if err != nil || string(got) != old {
		t.Errorf("after uninstall pre-commit = %q, %v; want the original hook back", got, err)
	}
	if _, err := os.Stat(filepath.Join(hooks, "pre-commit.local")); !os.IsNotExist(err) {
		t.Errorf("pre-commit.local left behind: %v", err)
	}
}

func testHookHooksPathWorktree(t *testing.T, bin string) {
	r := newHookRepo(t, bin)
	r.git("config", "core.hooksPath", "githooks")
	r.write("README.md", "x\n")
	r.commit("init", "README.md")

	// Install from a linked worktree: the hook lands in core.hooksPath,
	// relative to where git runs hooks, and guards every worktree.
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", wt)
	w := &hookRepo{t: t, bin: bin, root: wt}
	w.memvault("hook", "install")
	if _, err := os.Stat(filepath.Join(wt, "githooks", "pre-commit")); err != nil {
		t.Fatalf("hook not in core.hooksPath of the worktree: %v", err)
	}
	w.write(".memory/project/ci.md", secretMemory)
	if out, ok := w.commit("secret", ".memory/project/ci.md"); ok {
		t.Fatalf("commit with a secret went through in the worktree:\n%s", out)
	}
}

func testHookCommonDir(t *testing.T, bin string) {
	r := newHookRepo(t, bin)
	r.write("README.md", "x\n")
	r.commit("init", "README.md")
	wt := filepath.Join(t.TempDir(), "wt")
	r.git("worktree", "add", "-q", wt)
	w := &hookRepo{t: t, bin: bin, root: wt}
	w.memvault("hook", "install")
	if _, err := os.Stat(filepath.Join(r.root, ".git", "hooks", "pre-commit")); err != nil {
		t.Fatalf("hook not in the common git dir: %v", err)
	}
	r.write(".memory/project/ci.md", secretMemory)
	if out, ok := r.commit("secret", ".memory/project/ci.md"); ok {
		t.Fatalf("commit with a secret went through in the main worktree:\n%s", out)
	}
}
