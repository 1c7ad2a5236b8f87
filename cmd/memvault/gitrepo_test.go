package main

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/history"
)

// TestGitRepo checks the adapter from gitstore to history.Repo against a
// real repository: paths are the vault's, files outside the vault are
// left out, and gitstore's not-found is history's.
func TestGitRepo(t *testing.T) {
	isolateGit(t)
	root := newRepo(t)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	s, err := gitstore.Open(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	commit := func(msg string, files map[string]string) string {
		t.Helper()
		var paths []string
		for rel, data := range files {
			p := filepath.Join(root, filepath.FromSlash(rel))
			if data == "" {
				os.Remove(p)
			} else {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			paths = append(paths, p)
		}
		s.Now = func() time.Time { return when }
		res, err := s.Commit(t.Context(), gitstore.Change{Paths: paths, Message: msg, Author: &gitstore.Signature{Name: "Ada", Email: "ada@example.com"}})
		if err != nil {
			t.Fatal(err)
		}
		when = when.Add(time.Hour)
		return res.Hash
	}
	dir := filepath.Join(root, ".memory")
	g, err := newGitRepo(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	if _, err := g.Resolve(ctx, "HEAD"); !errors.Is(err, history.ErrNotFound) {
		t.Errorf("Resolve(HEAD) with no commit: %v, want history.ErrNotFound", err)
	}
	first := commit("first\n\nMemory-Id: 01A\n", map[string]string{".memory/project/a.md": "a\n", "src/main.go": "package main\n"})
	second := commit("second\n", map[string]string{".memory/project/a.md": "", ".memory/preferences/a.md": "a\n", "src/main.go": "package main // 2\n"})
	third := commit("third\n\nMemory-Id: 01A\n", map[string]string{"README.md": "outside\n"})

	t.Run("Log follows the file and the trailer, in vault paths", func(t *testing.T) {
		es, err := g.Log(ctx, "preferences/a.md", history.LogOptions{Follow: "Memory-Id: 01A"})
		if err != nil {
			t.Fatal(err)
		}
		type row struct{ Hash, Path, OldPath string }
		var got []row
		for _, e := range es {
			got = append(got, row{e.Hash, e.Path, e.OldPath})
		}
		want := []row{{third, "preferences/a.md", ""}, {second, "preferences/a.md", "project/a.md"}, {first, "project/a.md", ""}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("log (-want +got):\n%s", diff)
		}
		if e := es[len(es)-1]; e.Author != (history.Signature{Name: "Ada", Email: "ada@example.com"}) ||
			!e.When.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) || !strings.HasPrefix(e.Message, "first\n") {
			t.Errorf("first commit %+v", e.Commit)
		}
		if es, err := g.Log(ctx, "preferences/a.md", history.LogOptions{Rev: second, Limit: 1, NoRenames: true}); err != nil || len(es) != 1 || es[0].OldPath != "" {
			t.Errorf("Log with Rev, Limit and NoRenames: %+v, %v", es, err)
		}
	})

	t.Run("ReadFile", func(t *testing.T) {
		if data, err := g.ReadFile(ctx, first, "project/a.md"); err != nil || string(data) != "a\n" {
			t.Errorf("ReadFile = %q, %v", data, err)
		}
		for _, tt := range []struct{ rev, path string }{{"HEAD", "project/a.md"}, {"nosuchrev", "preferences/a.md"}} {
			if _, err := g.ReadFile(ctx, tt.rev, tt.path); !errors.Is(err, history.ErrNotFound) {
				t.Errorf("ReadFile(%s, %s): %v, want history.ErrNotFound", tt.rev, tt.path, err)
			}
		}
	})

	t.Run("Walk sees the vault only", func(t *testing.T) {
		var got []string
		if err := g.Walk(ctx, second, func(p string, _ []byte) error { got = append(got, p); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []string{"preferences/a.md"}) {
			t.Errorf("walked %v", got)
		}
		if err := g.Walk(ctx, "nosuchrev", func(string, []byte) error { return nil }); !errors.Is(err, history.ErrNotFound) {
			t.Errorf("Walk(nosuchrev): %v, want history.ErrNotFound", err)
		}
	})

	t.Run("Diff sees the vault only", func(t *testing.T) {
		fcs, err := g.Diff(ctx, first, third)
		if err != nil {
			t.Fatal(err)
		}
		if len(fcs) != 1 || fcs[0].Kind != history.FileRenamed || fcs[0].Path != "preferences/a.md" || fcs[0].OldPath != "project/a.md" {
			t.Errorf("diff %+v, want the rename only", fcs)
		}
		fcs, err = g.Diff(ctx, "", first)
		if err != nil || len(fcs) != 1 || fcs[0].Kind != history.FileAdded || fcs[0].Path != "project/a.md" || fcs[0].OldPath != "" {
			t.Errorf("diff from the empty tree: %+v, %v", fcs, err)
		}
	})

	t.Run("Resolve and ResolveTime", func(t *testing.T) {
		c, err := g.Resolve(ctx, "HEAD~1")
		if err != nil || c.Hash != second || !c.CommitTime.Equal(time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC)) {
			t.Errorf("Resolve(HEAD~1) = %+v, %v", c, err)
		}
		if h, err := g.ResolveTime(ctx, time.Date(2026, 3, 1, 13, 30, 0, 0, time.UTC)); err != nil || h != second {
			t.Errorf("ResolveTime = %s, %v; want %s", h, err, second)
		}
		if _, err := g.ResolveTime(ctx, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); !errors.Is(err, history.ErrNotFound) {
			t.Errorf("ResolveTime before the first commit: %v, want history.ErrNotFound", err)
		}
	})

	t.Run("a vault at the repository root", func(t *testing.T) {
		g, err := newGitRepo(s, root)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		g.Walk(ctx, third, func(p string, _ []byte) error { got = append(got, p); return nil })
		if want := []string{".memory/preferences/a.md", "README.md", "src/main.go"}; !slices.Equal(got, want) {
			t.Errorf("walked %v, want %v", got, want)
		}
	})

	t.Run("a vault named through a symlink", func(t *testing.T) {
		link := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(root, link); err != nil {
			t.Skipf("no symlinks: %v", err)
		}
		g, err := newGitRepo(s, filepath.Join(link, ".memory"))
		if err != nil || g.prefix != ".memory" {
			t.Fatalf("prefix %q, %v", g.prefix, err)
		}
	})

	t.Run("a vault outside the repository", func(t *testing.T) {
		if _, err := newGitRepo(s, t.TempDir()); !errors.Is(err, gitstore.ErrOutsideWorkTree) {
			t.Errorf("err = %v, want ErrOutsideWorkTree", err)
		}
	})
}

// TestServedAsOfLogsWhatItRead checks that the server reads the past
// through vault/history and logs what it read with its own logger,
// nothing on the CLI's streams.
func TestServedAsOfLogsWhatItRead(t *testing.T) {
	r := newCLIRepo(t)
	r.addMemory("Deploy script", "Deploy with ops/deploy.sh.")
	var stderr, logs bytes.Buffer
	m := NewMain(strings.NewReader(""), &stderr, &stderr)
	m.Now = func() time.Time { return gitTestNow }
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	asOf := m.servedAsOf(r.dir, projectScope, logger)

	v, err := asOf(t.Context(), gitTestNow.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if v.Stats().Total != 1 {
		t.Errorf("the vault as of now has %d memories, want 1", v.Stats().Total)
	}
	head, _ := r.head()
	if want := "msg=\"reading the vault as recorded at " + shortHash(head) + " (2026-11-30T12:00:00Z)\" vault=project"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs.String())
	}
	logs.Reset()
	v, err = asOf(t.Context(), gitTestNow.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if v.Stats().Total != 0 {
		t.Errorf("the vault before its first commit has %d memories", v.Stats().Total)
	}
	if want := "msg=\"nothing was recorded at or before 2026-11-30T11:00:00Z\" vault=project"; !strings.Contains(logs.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, logs.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("the server wrote to the CLI's streams: %q", stderr.String())
	}
}
