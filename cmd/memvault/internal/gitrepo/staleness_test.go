package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

const cacheGo = "package cache\n\nfunc Get(k string) string {\n\treturn k\n}\n\nfunc Put(k string) {\n\t_ = k\n}\n"

// TestStalenessInARealRepository drives one Tracker through a real
// repository made with the git CLI, HEAD moving one commit at a time, and
// checks every memory's state after each step against a Tracker computing
// from scratch.
func TestStalenessInARealRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git not installed")
	}
	repo := newCodeRepo(t)
	root, git, write, commitAll := repo.root, repo.git, repo.write, repo.commitAll
	write("internal/cache.go", cacheGo)
	write("README.md", "hello\n")
	write("docs/a.md", "a\n")
	commitAll("init")
	write(".memory/project/file.md", "---\nid: file\nrefs: [internal/cache.go]\n---\nCache.\n")
	write(".memory/project/sym.md", "---\nid: sym\nrefs: [internal/cache.go#Get]\n---\nGet.\n")
	write(".memory/project/docs.md", "---\nid: docs\nrefs: [docs/]\n---\nDocs.\n")
	commitAll("memory: add three")

	g := openRepo(t, root)
	items := []staleness.Item{
		{ID: "file", Since: repo.when, Refs: []string{"internal/cache.go"}},
		{ID: "sym", Since: repo.when, Refs: []string{"internal/cache.go#Get"}},
		{ID: "docs", Since: repo.when, Refs: []string{"docs/"}},
	}
	ids := []string{"file", "sym", "docs"}
	tr := staleness.NewTracker(g.Code())
	type want struct {
		state  staleness.State
		reason string
	}
	steps := []struct {
		name string
		do   func()
		want map[string]want
	}{
		{"written", func() {}, map[string]want{"file": {staleness.Fresh, "none of its 1 ref changed"}, "sym": {staleness.Fresh, ""}, "docs": {staleness.Fresh, ""}}},
		{"unrelated change", func() { write("README.md", "hello again\n"); commitAll("readme") },
			map[string]want{"file": {staleness.Fresh, ""}, "sym": {staleness.Fresh, ""}, "docs": {staleness.Fresh, ""}}},
		{"other symbol changed", func() {
			write("internal/cache.go", strings.Replace(cacheGo, "_ = k", "_ = k + k", 1))
			commitAll("tune put")
		},
			map[string]want{"file": {staleness.PossiblyStale, `internal/cache.go changed in 1 commit since the memory was last written or confirmed, latest`}, "sym": {staleness.Fresh, ""}}},
		{"symbol changed", func() {
			write("internal/cache.go", strings.Replace(strings.Replace(cacheGo, "_ = k", "_ = k + k", 1), "return k", "return k + \"!\"", 1))
			commitAll("tune get")
		}, map[string]want{"file": {staleness.PossiblyStale, `2 commits`}, "sym": {staleness.PossiblyStale, `internal/cache.go#Get changed in 1 commit`}}},
		{"docs edited", func() { write("docs/b.md", "b\n"); commitAll("more docs") },
			map[string]want{"docs": {staleness.PossiblyStale, `docs/ changed in 1 commit`}}},
		{"confirmed", func() {
			write(".memory/project/file.md", "---\nid: file\nrefs: [internal/cache.go]\nverified_at: 2026-12-01T00:00:00Z\n---\nCache.\n")
			commitAll("memory: confirm")
			items[0].Since = repo.when
		}, map[string]want{"file": {staleness.Fresh, ""}, "sym": {staleness.PossiblyStale, ""}}},
		{"uncommitted edit", func() { write("internal/cache.go", cacheGo+"// wip\n") },
			map[string]want{"file": {staleness.PossiblyStale, "internal/cache.go has uncommitted changes in the working tree"}, "sym": {staleness.PossiblyStale, "1 commit"}}},
		{"renamed", func() {
			if err := os.MkdirAll(filepath.Join(root, "internal", "store"), 0o755); err != nil {
				t.Fatal(err)
			}
			git("mv", "internal/cache.go", "internal/store/cache.go")
			commitAll("move cache")
		},
			map[string]want{"file": {staleness.Stale, `internal/cache.go was renamed to internal/store/cache.go in`}, "sym": {staleness.Stale, `"move cache"`}}},
		{"recreated then deleted", func() {
			write("internal/cache.go", cacheGo)
			commitAll("bring back")
			git("rm", "-q", "internal/cache.go")
			commitAll("drop cache")
		}, map[string]want{"file": {staleness.Stale, `internal/cache.go was deleted in`}, "sym": {staleness.Stale, `"drop cache"`}}},
		{"docs folder moved", func() {
			if err := os.MkdirAll(filepath.Join(root, "site"), 0o755); err != nil {
				t.Fatal(err)
			}
			git("mv", "docs", "site/docs")
			commitAll("move docs")
		}, map[string]want{"docs": {staleness.Stale, `docs/ was moved to site/docs/ in`}}},
		{"docs folder removed", func() {
			git("rm", "-q", "-r", "site/docs")
			write("docs/new.md", "n\n")
			commitAll("no docs")
			git("rm", "-q", "-r", "docs")
			commitAll("no docs again")
		},
			map[string]want{"docs": {staleness.Stale, "docs/ does not exist at HEAD"}}},
	}
	for _, st := range steps {
		st.do()
		if err := tr.Update(t.Context(), items); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := tr.States(t.Context(), ids)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		for id, w := range st.want {
			if got[id].State != w.state || !strings.Contains(got[id].Reason, w.reason) {
				t.Errorf("%s: %s = %+v, want %s with %q", st.name, id, got[id], w.state, w.reason)
			}
		}
		full := staleness.NewTracker(g.Code())
		if err := full.Update(t.Context(), items); err != nil {
			t.Fatal(err)
		}
		again, err := full.States(t.Context(), ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if got[id] != again[id] {
				t.Errorf("%s: %s incremental %+v, from scratch %+v", st.name, id, got[id], again[id])
			}
		}
	}
}

// TestCheckerSavesItsTracker checks that a Checker saves its tracker in
// the git folder after its first update, and that the next Checker (the
// next command) starts from it: current without walking.
func TestCheckerSavesItsTracker(t *testing.T) {
	t.Parallel()
	root, s := initStore(t)
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return when }
	if err := os.WriteFile(filepath.Join(root, "cache.go"), []byte(cacheGo), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(t.Context(), gitstore.Change{Paths: []string{filepath.Join(root, "cache.go")}, Message: "code", Author: &gitstore.Signature{Name: "Ada", Email: "ada@example.com"}}); err != nil {
		t.Fatal(err)
	}
	g, err := New(s, filepath.Join(root, ".memory"))
	if err != nil {
		t.Fatal(err)
	}
	m := &vault.Memory{ID: "m", Refs: []string{"cache.go"}, UpdatedAt: when.Add(-time.Hour)}
	all := func() []*vault.Memory { return []*vault.Memory{m} }
	st, err := g.Checker().Check(t.Context(), all, []*vault.Memory{m})
	if err != nil || st["m"].State != staleness.PossiblyStale {
		t.Fatalf("first Check = %+v, %v; want possibly stale", st, err)
	}
	c2 := g.Checker()
	head, err := g.Code().Head(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !c2.tracker.Current(head, g.Items([]*vault.Memory{m})) {
		t.Fatal("a new Checker did not start from the saved tracker")
	}
	st2, err := c2.Check(t.Context(), all, []*vault.Memory{m})
	if err != nil || st2["m"] != st["m"] {
		t.Fatalf("second Check = %+v, %v; want %+v", st2, err, st)
	}
}
