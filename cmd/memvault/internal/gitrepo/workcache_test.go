package gitrepo

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/gitstore"
)

// TestWorkCacheMatchesTheWorkTree edits a real repository one step at a
// time and checks, after each, that the cached uncommitted state equals
// gitstore's read of the work tree, with no wait between the edit and the
// question; and that a question after no change is answered from the
// cache.
func TestWorkCacheMatchesTheWorkTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	write := func(rel, data string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("src/a/x.go", "package a\n")
	write("src/a/deep/y.go", "package deep\n")
	write("src/b/z.go", "package b\n")
	write("README.md", "hi\n")
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	s := openStore(t, root)
	w, err := newWorkCache(s)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	prefixes := []string{"src/a", "src/b/z.go", "src/c", "gone.go"}
	describe := func(chs []gitstore.PathChange) []string {
		var out []string
		for _, c := range chs {
			out = append(out, fmt.Sprintf("%s %s", c.Kind, c.Path))
		}
		slices.Sort(out)
		return out
	}
	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{"clean", func() {}, nil},
		{"an edit deep in a referenced folder", func() { write("src/a/deep/y.go", "package deep // edited\n") }, []string{"modified src/a/deep/y.go"}},
		{"nothing more", func() {}, []string{"modified src/a/deep/y.go"}},
		{"an edit of a referenced file", func() { write("src/b/z.go", "package b // edited\n") }, []string{"modified src/a/deep/y.go", "modified src/b/z.go"}},
		{"a new file in a new folder", func() { write("src/a/new/n.go", "package n\n") },
			[]string{"added src/a/new/n.go", "modified src/a/deep/y.go", "modified src/b/z.go"}},
		{"ignored by the root's .gitignore", func() { write(".gitignore", "new/\n") }, []string{"modified src/a/deep/y.go", "modified src/b/z.go"}},
		{"the folder a ref names appears", func() { write("src/c/w.go", "package c\n") },
			[]string{"added src/c/w.go", "modified src/a/deep/y.go", "modified src/b/z.go"}},
		{"a referenced file that did not exist appears", func() { write("gone.go", "package gone\n") },
			[]string{"added gone.go", "added src/c/w.go", "modified src/a/deep/y.go", "modified src/b/z.go"}},
		{"committed: HEAD moves", func() { git("add", "-A"); git("commit", "-q", "-m", "more") }, nil},
		{"a delete", func() { os.Remove(filepath.Join(root, "src", "b", "z.go")) }, []string{"deleted src/b/z.go"}},
		{"an unrelated edit", func() { write("README.md", "hello\n") }, []string{"deleted src/b/z.go"}},
	}
	for _, st := range steps {
		st.change()
		got, err := w.uncommitted(t.Context(), prefixes)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		direct, err := s.Uncommitted(t.Context(), prefixes)
		if err != nil {
			t.Fatal(err)
		}
		if g, d := strings.Join(describe(got), ", "), strings.Join(describe(direct), ", "); g != d || g != strings.Join(st.want, ", ") {
			t.Errorf("%s: cached %q, read %q, want %q", st.name, g, d, strings.Join(st.want, ", "))
		}
	}
	// A question after no change is answered from the cache: its
	// entries stay at the generation they were computed at.
	before := map[string]workEntry{}
	w.mu.Lock()
	for k, e := range w.entries {
		before[k] = e
	}
	w.mu.Unlock()
	if _, err := w.uncommitted(t.Context(), prefixes); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range prefixes {
		b, ok := before[p]
		if !ok {
			t.Errorf("%s: not cached", p)
			continue
		}
		if a := w.entries[p]; a.gen != b.gen {
			t.Errorf("%s: recomputed without a change (generation %d -> %d)", p, b.gen, a.gen)
		}
	}
}

// TestWorkCacheExists checks the cached existence of paths follows the
// commit asked about.
func TestWorkCacheExists(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.go", "d/b.go"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "one")
	first := git("rev-parse", "HEAD")
	git("rm", "-q", "a.go")
	git("commit", "-q", "-m", "two")
	second := git("rev-parse", "HEAD")
	s := openStore(t, root)
	w, err := newWorkCache(s)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	for _, step := range []struct {
		rev  string
		want map[string]bool
	}{
		{first, map[string]bool{"a.go": true, "d": true, "x.go": false}},
		{first, map[string]bool{"a.go": true, "d/b.go": true}},
		{second, map[string]bool{"a.go": false, "d": true}},
		{first, map[string]bool{"a.go": true}},
	} {
		got, err := w.exists(t.Context(), step.rev, slices.Sorted(maps.Keys(step.want)))
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, step.want) {
			t.Errorf("exists at %.7s = %v, want %v", step.rev, got, step.want)
		}
	}
}
