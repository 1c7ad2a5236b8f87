package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// TestGitRepo checks the adapter from gitstore to history.Repo against a
// real repository: paths are the vault's, files outside the vault are
// left out, and gitstore's not-found is history's.
func TestGitRepo(t *testing.T) {
	t.Parallel()
	root, s := initStore(t)
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
	g, err := New(s, dir)
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
		if len(fcs) != 1 || fcs[0].Kind != filechange.Renamed || fcs[0].Path != "preferences/a.md" || fcs[0].OldPath != "project/a.md" {
			t.Errorf("diff %+v, want the rename only", fcs)
		}
		fcs, err = g.Diff(ctx, "", first)
		if err != nil || len(fcs) != 1 || fcs[0].Kind != filechange.Added || fcs[0].Path != "project/a.md" || fcs[0].OldPath != "" {
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
		g, err := New(s, root)
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
		g, err := New(s, filepath.Join(link, ".memory"))
		if err != nil || g.prefix != ".memory" {
			t.Fatalf("prefix %q, %v", g.prefix, err)
		}
	})

	t.Run("a vault outside the repository", func(t *testing.T) {
		if _, err := New(s, t.TempDir()); !errors.Is(err, gitstore.ErrOutsideWorkTree) {
			t.Errorf("err = %v, want ErrOutsideWorkTree", err)
		}
	})
}

// TestDoctorRepo checks the adapter to doctor.Repo: the state, the
// vault files that differ from HEAD, and HEAD's files, in vault paths.
func TestDoctorRepo(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	ctx := t.Context()
	s, err := gitstore.Init(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := filepath.Join(root, ".memory")
	g, err := New(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := g.State(ctx); err != nil || !st.Unborn || st.Root != root {
		t.Errorf("State before the first commit = %+v, %v", st, err)
	}
	write := func(rel, data string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("project/a.md", "a\n"), write("project/b.md", "b\n")
	if _, err := s.Commit(ctx, gitstore.Change{Paths: []string{a, b}, Message: "first",
		Author: &gitstore.Signature{Name: "Ada", Email: "ada@example.com"}}); err != nil {
		t.Fatal(err)
	}
	write("project/a.md", "a, edited\n")
	write("project/c.md", "c\n")
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	changed, err := g.Changed(ctx)
	slices.Sort(changed)
	if want := []string{"project/a.md", "project/b.md", "project/c.md"}; err != nil || !slices.Equal(changed, want) {
		t.Errorf("Changed = %v, %v; want %v", changed, err, want)
	}
	if data, err := g.ReadHead(ctx, "project/b.md"); err != nil || string(data) != "b\n" {
		t.Errorf("ReadHead(deleted file) = %q, %v", data, err)
	}
	if data, err := g.ReadHead(ctx, "project/c.md"); err != nil || data != nil {
		t.Errorf("ReadHead(new file) = %q, %v; want nil, nil", data, err)
	}
	if st, err := g.State(ctx); err != nil || st.Unborn || st.Head == "" || st.IndexLock != "" {
		t.Errorf("State = %+v, %v", st, err)
	}
}

// TestMergeDriver checks the merge driver's setup against a real
// repository: the attribute as git applies it, a registration, one whose
// binary is gone, and the committed version HeadFiles reads.
func TestMergeDriver(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ctx := t.Context()
	s, err := gitstore.Init(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := filepath.Join(root, "notes", "vault") // not the default .memory
	g, err := New(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "it's memvault")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	md := MergeDriver{Repo: g, Binary: bin}
	check := func(when string, wantAttr, wantRegistered bool) {
		t.Helper()
		attr, reg, err := md.MergeDriver(ctx)
		if err != nil || attr != wantAttr || reg != wantRegistered {
			t.Errorf("%s: attribute %v, registered %v, %v; want %v, %v", when, attr, reg, err, wantAttr, wantRegistered)
		}
	}
	check("fresh", false, false)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte(vault.GitattributesContent), 0o644); err != nil {
		t.Fatal(err)
	}
	check("with the vault's .gitattributes", true, false)
	if did, err := md.Ensure(ctx); !did || err != nil {
		t.Fatalf("Ensure = %v, %v; want it to register", did, err)
	}
	check("registered", true, true)
	if got, _ := s.MergeDriver(ctx, vault.MergeDriverName); got != DriverCommand(bin) {
		t.Errorf("registered %q, want %q", got, DriverCommand(bin))
	}
	if did, err := md.Ensure(ctx); did || err != nil {
		t.Errorf("Ensure again = %v, %v; want nothing to do", did, err)
	}
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	check("binary gone", true, false)

	// HeadFiles reads HEAD's version, with or without an open store.
	p := filepath.Join(dir, "project", "a.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, gitstore.Change{Paths: []string{p}, Message: "add a", Author: &gitstore.Signature{Name: "Ada", Email: "ada@example.com"}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("<<<<<<< HEAD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, h := range []HeadFiles{{Dir: dir}, {Dir: dir, Store: s}} {
		if got, err := h.ReadCommitted(ctx, "project/a.md"); err != nil || string(got) != "committed\n" {
			t.Errorf("ReadCommitted (store %v) = %q, %v", h.Store != nil, got, err)
		}
		if _, err := h.ReadCommitted(ctx, "project/none.md"); err == nil {
			t.Errorf("ReadCommitted of a file HEAD lacks: no error")
		}
	}
}
