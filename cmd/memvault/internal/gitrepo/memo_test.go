package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// TestLiveCheckerKeepsAnswers edits a real repository one step at a time
// and asks a LiveChecker at once after each step, with no wait: its
// answers, kept between calls, must equal a one-shot Checker's computed
// afresh; a second question with nothing changed is answered from what
// it kept; and a memory whose ref cannot be watched (a glob over the
// whole repository) is never kept.
func TestLiveCheckerKeepsAnswers(t *testing.T) {
	t.Parallel()
	repo := newCodeRepo(t)
	root, write, commitAll := repo.root, repo.write, repo.commitAll
	write("internal/cache.go", cacheGo)
	write("docs/a.md", "a\n")
	write("README.md", "hello\n")
	commitAll("init")
	g := openRepo(t, root)
	live := liveCheckerOf(t, g)
	ms := []*vault.Memory{
		{ID: "file", Refs: []string{"internal/cache.go"}, UpdatedAt: repo.when},
		{ID: "sym", Refs: []string{"internal/cache.go#Get"}, UpdatedAt: repo.when},
		{ID: "docs", Refs: []string{"docs/"}, UpdatedAt: repo.when},
	}
	glob := &vault.Memory{ID: "glob", Refs: []string{"**/*.md"}, UpdatedAt: repo.when}
	all := func() []*vault.Memory { return append(append([]*vault.Memory(nil), ms...), glob) }
	steps := []struct {
		name string
		do   func()
		want map[string]staleness.State
	}{
		{"written", func() {}, map[string]staleness.State{"file": staleness.Fresh, "sym": staleness.Fresh, "docs": staleness.Fresh}},
		{"uncommitted edit of another symbol", func() { write("internal/cache.go", strings.Replace(cacheGo, "_ = k", "_ = k + k", 1)) },
			map[string]staleness.State{"file": staleness.PossiblyStale, "sym": staleness.Fresh, "docs": staleness.Fresh}},
		{"uncommitted edit of the symbol", func() { write("internal/cache.go", strings.Replace(cacheGo, "return k", "return k + k", 1)) },
			map[string]staleness.State{"file": staleness.PossiblyStale, "sym": staleness.PossiblyStale, "docs": staleness.Fresh}},
		{"edit undone", func() { write("internal/cache.go", cacheGo) },
			map[string]staleness.State{"file": staleness.Fresh, "sym": staleness.Fresh, "docs": staleness.Fresh}},
		{"new file in a referenced folder", func() { write("docs/b.md", "b\n") },
			map[string]staleness.State{"file": staleness.Fresh, "sym": staleness.Fresh, "docs": staleness.PossiblyStale}},
		{"committed", func() { commitAll("more docs") },
			map[string]staleness.State{"file": staleness.Fresh, "sym": staleness.Fresh, "docs": staleness.PossiblyStale}},
		{"confirmed", func() { ms[2].VerifiedAt = repo.when.Add(time.Minute) },
			map[string]staleness.State{"file": staleness.Fresh, "sym": staleness.Fresh, "docs": staleness.Fresh}},
		{"deleted, uncommitted", func() { os.Remove(filepath.Join(root, "internal", "cache.go")) },
			map[string]staleness.State{"file": staleness.Stale, "sym": staleness.Stale, "docs": staleness.Fresh}},
	}
	for _, st := range steps {
		st.do()
		for ask := range 2 {
			got, err := live.Check(t.Context(), all, ms)
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			want, err := g.Checker().Check(t.Context(), all, ms)
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			for _, m := range ms {
				if got[m.ID] != want[m.ID] {
					t.Errorf("%s, question %d: %s kept %+v, afresh %+v", st.name, ask+1, m.ID, got[m.ID], want[m.ID])
				}
				if w, ok := st.want[m.ID]; ok && got[m.ID].State != w {
					t.Errorf("%s, question %d: %s = %+v, want %s", st.name, ask+1, m.ID, got[m.ID], w)
				}
			}
		}
		// After two questions with nothing changed between them, the
		// answers are kept for this HEAD and generation.
		head, err := g.Code().Head(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		a := live.work.sync(t.Context(), head)
		if a == nil {
			t.Fatalf("%s: the barrier failed", st.name)
		}
		if _, ok := live.memo.get(a, g.Items(ms)); !ok {
			t.Errorf("%s: the answers were not kept", st.name)
		}
	}
	if _, err := live.Check(t.Context(), all, []*vault.Memory{glob}); err != nil {
		t.Fatal(err)
	}
	live.memo.mu.Lock()
	_, kept := live.memo.states["glob"]
	live.memo.mu.Unlock()
	if kept {
		t.Error("the answer for a ref over the whole repository, which is not watched, was kept")
	}
}

// TestLiveCheckerPrepared checks answers whose barrier was begun ahead
// of them (Prepare, as recall does before it searches): an edit made
// before Prepare is always seen; an edit made after it may or may not
// be, but never leaves a kept answer behind that a later question would
// get. A checker never asked about memories with refs begins no barrier.
func TestLiveCheckerPrepared(t *testing.T) {
	t.Parallel()
	repo := newCodeRepo(t)
	write := repo.write
	write("internal/cache.go", cacheGo)
	write("docs/a.md", "a\n")
	repo.commitAll("init")
	g := openRepo(t, repo.root)
	live := liveCheckerOf(t, g)
	ms := []*vault.Memory{
		{ID: "file", Refs: []string{"internal/cache.go"}, UpdatedAt: repo.when},
		{ID: "sym", Refs: []string{"internal/cache.go#Get"}, UpdatedAt: repo.when},
		{ID: "docs", Refs: []string{"docs/"}, UpdatedAt: repo.when},
	}
	all := func() []*vault.Memory { return ms }
	if live.Prepare(t.Context()).Value(barrierKey{live.work}) != nil {
		t.Error("a checker never asked about refs began a barrier")
	}
	afresh := func(name string) map[string]staleness.Staleness {
		t.Helper()
		want, err := g.Checker().Check(t.Context(), all, ms)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return want
	}
	same := func(a, b map[string]staleness.Staleness) bool {
		for _, m := range ms {
			if a[m.ID] != b[m.ID] {
				return false
			}
		}
		return true
	}
	prev := afresh("start")
	if got, err := live.Check(t.Context(), all, ms); err != nil || !same(got, prev) {
		t.Fatalf("start: %v %+v, want %+v", err, got, prev)
	}
	if live.Prepare(t.Context()).Value(barrierKey{live.work}) == nil {
		t.Fatal("no barrier begun once asked about refs")
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"edit of another symbol", func() { write("internal/cache.go", strings.Replace(cacheGo, "_ = k", "_ = k + k", 1)) }},
		{"edit of the symbol", func() { write("internal/cache.go", strings.Replace(cacheGo, "return k", "return k + k", 1)) }},
		{"edit undone", func() { write("internal/cache.go", cacheGo) }},
		{"new file in a referenced folder", func() { write("docs/b.md", "b\n") }},
		{"nothing", func() {}},
		{"committed", func() { repo.commitAll("more docs") }},
		{"deleted, uncommitted", func() { os.Remove(filepath.Join(repo.root, "internal", "cache.go")) }},
	}
	for _, st := range steps {
		early := live.Prepare(t.Context())
		// The edit lands after early's barrier began, before late's.
		st.do()
		late := live.Prepare(t.Context())
		want := afresh(st.name)
		got, err := live.Check(early, all, ms)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !same(got, prev) && !same(got, want) {
			t.Errorf("%s, barrier begun before the edit: %+v, want the answer before it %+v or after it %+v", st.name, got, prev, want)
		}
		for _, q := range []struct {
			name string
			ctx  context.Context
		}{{"barrier begun after the edit", late}, {"a barrier of its own", t.Context()}, {"the same again", t.Context()}} {
			got, err := live.Check(q.ctx, all, ms)
			if err != nil {
				t.Fatalf("%s, %s: %v", st.name, q.name, err)
			}
			if !same(got, want) {
				t.Errorf("%s, %s: %+v, want %+v", st.name, q.name, got, want)
			}
		}
		prev = want
	}
}
