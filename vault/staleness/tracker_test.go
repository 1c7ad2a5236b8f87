package staleness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault"
)

const goSrc = "package cache\n\nfunc Get(k string) string {\n\treturn k\n}\n\nfunc Put(k string) {\n\t_ = k\n}\n"

func TestStates(t *testing.T) {
	t.Parallel()
	const mem = ".memory/project/cache.md"
	tests := []struct {
		name   string
		refs   []string
		after  func(g *fakeGit) // what happens after the memory is written
		state  State
		reason []string // substrings of the reason
	}{
		{"unrelated change", []string{"cache.go"}, func(g *fakeGit) { g.commit("touch other", map[string]string{"other.go": "x2"}) },
			Fresh, []string{"none of its 1 ref changed"}},
		{"edit", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("tune get", map[string]string{"cache.go": strings.Replace(goSrc, "return k", "return k+k", 1)})
		}, PossiblyStale, []string{`cache.go changed in 1 commit`, `"tune get"`}},
		{"two edits name the latest", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("first", map[string]string{"cache.go": goSrc + "// 1\n"})
			g.commit("second", map[string]string{"cache.go": goSrc + "// 2\n"})
		}, PossiblyStale, []string{"2 commits", `"second"`}},
		{"rename", []string{"cache.go"}, func(g *fakeGit) { g.rename("move cache", "cache.go", "store/cache.go") },
			Stale, []string{"cache.go was renamed to store/cache.go", `"move cache"`}},
		{"rename chain names where the file is now", []string{"cache.go"}, func(g *fakeGit) {
			g.rename("move cache", "cache.go", "store/cache.go")
			g.commit("unrelated", map[string]string{"other.go": "x2"})
			g.rename("move again", "store/cache.go", "lib/cache.go")
			g.rename("and again", "lib/cache.go", "pkg/cache/cache.go")
		}, Stale, []string{"cache.go was renamed to pkg/cache/cache.go", `"and again"`}},
		{"rename chain ending in a delete", []string{"cache.go"}, func(g *fakeGit) {
			g.rename("move cache", "cache.go", "store/cache.go")
			g.commit("drop it", map[string]string{"store/cache.go": ""})
		}, Stale, []string{"cache.go was deleted in", `"drop it"`}},
		{"delete", []string{"cache.go"}, func(g *fakeGit) { g.commit("drop cache", map[string]string{"cache.go": ""}) },
			Stale, []string{"cache.go was deleted in", `"drop cache"`}},
		{"deleted then recreated", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("drop cache", map[string]string{"cache.go": ""})
			g.commit("bring it back", map[string]string{"cache.go": goSrc})
		}, PossiblyStale, []string{"2 commits", `"bring it back"`}},
		{"never existed", []string{"nope.go"}, func(*fakeGit) {}, Unknown, []string{"nope.go never existed in this repository's history"}},
		{"never existed, a folder", []string{"nope/"}, func(*fakeGit) {}, Unknown, []string{"nope/ never existed"}},
		{"never existed, beside a fresh ref", []string{"cache.go", "nope.go"}, func(*fakeGit) {}, Unknown, []string{"nope.go never existed"}},
		{"never existed, beside a changed ref", []string{"cache.go", "nope.go"}, func(g *fakeGit) {
			g.commit("tune get", map[string]string{"cache.go": goSrc + "// 1\n"})
		}, PossiblyStale, []string{"cache.go changed in 1 commit", "nope.go never existed"}},
		{"two symbols of a file that never existed, said once", []string{"nope.go#A", "nope.go#B"}, func(*fakeGit) {}, Unknown, []string{"nope.go never existed"}},
		{"two symbols of a deleted file, said once", []string{"gone.go#A", "gone.go#B"}, func(*fakeGit) {}, Stale, []string{"gone.go does not exist at HEAD"}},
		{"deleted before the memory was written", []string{"gone.go"}, func(*fakeGit) {}, Stale, []string{"gone.go does not exist at HEAD"}},
		{"created after the memory", []string{"nope.go"}, func(g *fakeGit) { g.commit("add nope", map[string]string{"nope.go": "n"}) },
			PossiblyStale, []string{"nope.go changed in 1 commit"}},
		{"uncommitted edit", []string{"cache.go"}, func(g *fakeGit) { g.work["cache.go"] = goSrc + "// wip\n" },
			PossiblyStale, []string{"cache.go has uncommitted changes"}},
		{"committed and uncommitted edits: one reason", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("tune get", map[string]string{"cache.go": goSrc + "// 1\n"})
			g.work["cache.go"] = goSrc + "// wip\n"
		}, PossiblyStale, []string{`cache.go changed in 1 commit`, `"tune get", and has uncommitted changes in the working tree`}},
		{"uncommitted delete", []string{"cache.go"}, func(g *fakeGit) { delete(g.work, "cache.go") },
			Stale, []string{"deleted in the working tree (uncommitted)"}},
		{"confirmed after the edit", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("tune get", map[string]string{"cache.go": goSrc + "// 1\n"})
			g.commit("memory: confirm", map[string]string{mem: "confirmed"})
		}, Fresh, nil},
		{"edit in the memory's own commit does not count", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("memory: both", map[string]string{"cache.go": goSrc + "// 1\n", mem: "rewritten"})
		}, Fresh, nil},
		{"symbol: other symbol changed", []string{"cache.go#Get"}, func(g *fakeGit) {
			g.commit("tune put", map[string]string{"cache.go": strings.Replace(goSrc, "_ = k", "_ = k + k", 1)})
		}, Fresh, nil},
		{"symbol: its block changed", []string{"cache.go#Get"}, func(g *fakeGit) {
			g.commit("tune get", map[string]string{"cache.go": strings.Replace(goSrc, "return k", "return k+k", 1)})
		}, PossiblyStale, []string{"cache.go#Get changed in 1 commit"}},
		{"symbol: removed", []string{"cache.go#Get"}, func(g *fakeGit) {
			g.commit("drop get", map[string]string{"cache.go": "package cache\n\nfunc Put(k string) {\n\t_ = k\n}\n"})
		}, Stale, []string{"Get is no longer defined in cache.go"}},
		{"symbol: uncommitted edit elsewhere", []string{"cache.go#Get"}, func(g *fakeGit) { g.work["cache.go"] = goSrc + "// wip\n" },
			Fresh, nil},
		{"folder", []string{"store/"}, func(g *fakeGit) { g.commit("store tweak", map[string]string{"store/a.go": "a2"}) },
			PossiblyStale, []string{"store/ changed in 1 commit"}},
		{"folder: a file renamed out", []string{"store/"}, func(g *fakeGit) { g.rename("out", "store/a.go", "lib/a.go") },
			PossiblyStale, []string{"store/ changed in 1 commit", `"out"`}},
		{"folder moved", []string{"store/"}, func(g *fakeGit) {
			g.commit("move store", map[string]string{"store/a.go": "", "store/b.go": "", "pkg/store/a.go": "a", "pkg/store/b.go": "b"})
		}, Stale, []string{"store/ was moved to pkg/store/ in", `"move store"`}},
		{"folder moved, then its old place edited again", []string{"store/"}, func(g *fakeGit) {
			g.commit("move store", map[string]string{"store/a.go": "", "store/b.go": "", "pkg/store/a.go": "a", "pkg/store/b.go": "b"})
			g.commit("new store", map[string]string{"store/c.go": "c"})
		}, PossiblyStale, []string{"store/ changed in 2 commits", `"new store"`}},
		{"folder emptied", []string{"store/"}, func(g *fakeGit) {
			g.commit("drop store", map[string]string{"store/a.go": "", "store/b.go": ""})
		}, Stale, []string{"store/ does not exist at HEAD"}},
		{"glob: no match", []string{"docs/**/*.md"}, func(g *fakeGit) { g.commit("code", map[string]string{"docs/gen/x.go": "2"}) },
			Fresh, nil},
		{"glob: match", []string{"docs/**/*.md"}, func(g *fakeGit) { g.commit("docs", map[string]string{"docs/gen/x.md": "2"}) },
			PossiblyStale, []string{"docs/**/*.md changed in 1 commit"}},
		{"worst ref wins, every reason said", []string{"cache.go", "other.go"}, func(g *fakeGit) {
			g.commit("tune", map[string]string{"other.go": "x2"})
			g.commit("drop cache", map[string]string{"cache.go": ""})
		}, Stale, []string{"cache.go was deleted", "other.go changed in 1 commit"}},
		{"invalid ref is reported", []string{"../x", "cache.go"}, func(*fakeGit) {}, Fresh, []string{`ref "../x" is not a valid`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newFakeGit()
			g.commit("init", map[string]string{"cache.go": goSrc, "other.go": "x", "store/a.go": "a", "store/b.go": "b", "docs/gen/x.go": "1", "docs/gen/x.md": "1", "gone.go": "g"})
			g.commit("drop gone", map[string]string{"gone.go": ""})
			g.commit("memory: add", map[string]string{mem: "body"})
			tc.after(g)
			got := statesOf(t, NewTracker(g), Item{ID: "m", Since: g.memorySince(), Refs: tc.refs})
			if got.State != tc.state {
				t.Fatalf("state = %s (%s), want %s", got.State, got.Reason, tc.state)
			}
			for _, want := range tc.reason {
				if !strings.Contains(got.Reason, want) {
					t.Errorf("reason %q lacks %q", got.Reason, want)
				}
			}
			parts := strings.Split(got.Reason, "; ")
			if len(parts) > len(tc.refs) {
				t.Errorf("reason %q has %d parts for %d refs: one reason per ref", got.Reason, len(parts), len(tc.refs))
			}
			slices.Sort(parts)
			if n := len(parts); len(slices.Compact(parts)) != n {
				t.Errorf("reason %q says something twice", got.Reason)
			}
		})
	}
}

func statesOf(t *testing.T, tr *Tracker, items ...Item) Staleness {
	t.Helper()
	if err := tr.Update(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	got, err := tr.States(t.Context(), []string{items[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	return got[items[0].ID]
}

// TestIncrementalMatchesFull moves HEAD one commit at a time and checks
// that the cached tracker, which reads only the new commit, agrees with a
// tracker computing everything afresh.
func TestIncrementalMatchesFull(t *testing.T) {
	t.Parallel()
	g := newFakeGit()
	g.commit("init", map[string]string{"a.go": goSrc, "b.go": "b", "d/x.go": "x"})
	var items []Item
	for i := range 6 {
		f := fmt.Sprintf(".memory/m%d.md", i)
		g.commit("memory: "+f, map[string]string{f: "v1"})
		items = append(items, Item{ID: f, Since: g.memorySince(), Refs: [][]string{{"a.go"}, {"b.go", "d/"}, {"a.go#Put"}, {"d/**"}, {"a.go#Get", "b.go"}, {"c.go"}}[i]})
	}
	inc := NewTracker(g)
	steps := []func(){
		func() { g.commit("edit a", map[string]string{"a.go": goSrc + "// x\n"}) },
		func() {
			g.commit("memory: rewrite m1", map[string]string{".memory/m1.md": "v2"})
			items[1].Since = g.memorySince()
		},
		func() {
			g.commit("edit get", map[string]string{"a.go": strings.Replace(goSrc, "return k", "return k+k", 1)})
		},
		func() { g.rename("move b", "b.go", "lib/b.go") },
		func() { g.rename("move b again", "lib/b.go", "pkg/b.go") },
		func() { g.commit("add c", map[string]string{"c.go": "c", "d/y.go": "y"}) },
		func() { g.commit("edit put", map[string]string{"a.go": strings.Replace(goSrc, "_ = k", "_ = 2", 1)}) },
		func() {
			g.commit("memory: rewrite m4", map[string]string{".memory/m4.md": "v2"})
			items[4].Since = g.memorySince()
		},
		func() { g.commit("drop a", map[string]string{"a.go": ""}) },
		func() { g.rename("move b a third time", "pkg/b.go", "b/b.go") },
		func() {
			g.commit("move d", map[string]string{"d/x.go": "", "d/y.go": "", "e/d/x.go": "x", "e/d/y.go": "y"})
		},
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	for i, step := range steps {
		if err := inc.Update(t.Context(), items); err != nil {
			t.Fatal(err)
		}
		step()
		before := g.visited
		if err := inc.Update(t.Context(), items); err != nil {
			t.Fatal(err)
		}
		limit := 2
		if i == 7 {
			// m4, rewritten, names b.go, renamed away before: telling a
			// file that went away from one that never existed walks back
			// to the rename (markAbsent).
			limit = len(g.commits)
		}
		if n := g.visited - before; n > limit {
			t.Errorf("step %d: incremental update visited %d commits, want the new one (and one more to find a rewritten memory's point)", i, n)
		}
		full := NewTracker(g)
		if err := full.Update(t.Context(), items); err != nil {
			t.Fatal(err)
		}
		a, err := inc.States(t.Context(), ids)
		if err != nil {
			t.Fatal(err)
		}
		b, err := full.States(t.Context(), ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if a[id] != b[id] {
				t.Errorf("step %d, %s: incremental %+v, full %+v", i, id, a[id], b[id])
			}
		}
	}
}

func TestWeightOrdersStates(t *testing.T) {
	t.Parallel()
	if !(Weight(Fresh) > Weight(PossiblyStale) && Weight(PossiblyStale) > Weight(Stale) && Weight(Stale) > 0) {
		t.Fatalf("weights %v %v %v: want fresh > possibly > stale > 0", Weight(Fresh), Weight(PossiblyStale), Weight(Stale))
	}
}

func TestRerankDemotesButKeeps(t *testing.T) {
	t.Parallel()
	res := func(id, match string, score float64) vault.SetResult {
		return vault.SetResult{Result: vault.Result{Memory: &vault.Memory{ID: id}, Score: score, Match: match}}
	}
	rs := []vault.SetResult{res("stale", vault.MatchStrong, 1.0), res("fresh", vault.MatchStrong, 0.9), res("weak", vault.MatchWeak, 0.95), res("possibly", vault.MatchWeak, 0.5)}
	Rerank(rs, map[string]Staleness{"stale": {Stale, "gone"}, "possibly": {PossiblyStale, "edited"}, "fresh": {Fresh, ""}})
	var got []string
	for _, r := range rs {
		got = append(got, r.Memory.ID)
	}
	if want := []string{"fresh", "stale", "weak", "possibly"}; !slices.Equal(got, want) {
		t.Fatalf("order = %q, want %q", got, want)
	}
	if a := rs[1].Adjustments; len(a) != 1 || a[0].Rule != AdjustStaleness || a[0].Factor != Weight(Stale) {
		t.Fatalf("stale adjustments = %+v", a)
	}
	list := []vault.SetResult{res("stale", "", 0), res("fresh", "", 0)}
	Rerank(list, map[string]Staleness{"stale": {Stale, "gone"}})
	if list[0].Memory.ID != "stale" {
		t.Fatalf("a list without a query was reordered")
	}
}

// failingGit fails walks after the first n commits.
type failingGit struct {
	*fakeGit
	n int
}

func (g *failingGit) Walk(ctx context.Context, head, stop string, prefixes []string, fn func(Commit) error) error {
	seen := 0
	return g.fakeGit.Walk(ctx, head, stop, prefixes, func(c Commit) error {
		if seen++; seen > g.n {
			return errors.New("deadline")
		}
		return fn(c)
	})
}

func TestAFailedWalkLeavesNothingHalfCounted(t *testing.T) {
	t.Parallel()
	g := newFakeGit()
	g.commit("init", map[string]string{"a.go": "a"})
	g.commit("memory: add", map[string]string{".memory/m.md": "m"})
	item := Item{ID: "m", Since: g.memorySince(), Refs: []string{"a.go"}}
	g.commit("edit 1", map[string]string{"a.go": "a1"})
	g.commit("edit 2", map[string]string{"a.go": "a2"})
	fg := &failingGit{fakeGit: g, n: 1}
	tr := NewTracker(fg)
	if err := tr.Update(t.Context(), []Item{item}); err == nil {
		t.Fatal("Update after a failed walk: no error")
	}
	head, _ := g.Head(t.Context())
	if tr.Current(head, []Item{item}) {
		t.Fatal("the tracker says it is current after a failed walk")
	}
	fg.n = 100
	if got := statesOf(t, tr, item); got.State != PossiblyStale || !strings.Contains(got.Reason, "2 commits") {
		t.Fatalf("after the retry: %+v, want possibly stale, 2 commits", got)
	}
}

// blockingGit holds every walk until release is closed or the walk's
// context ends, telling started when one waits and, when ended is set,
// how each ended.
type blockingGit struct {
	*fakeGit
	started chan struct{}
	release chan struct{}
	ended   chan error
}

func (g *blockingGit) Walk(ctx context.Context, head, stop string, prefixes []string, fn func(Commit) error) error {
	g.started <- struct{}{}
	var err error
	select {
	case <-g.release:
		err = g.fakeGit.Walk(ctx, head, stop, prefixes, fn)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if g.ended != nil {
		g.ended <- err
	}
	return err
}

func TestRefreshOutlivesItsCaller(t *testing.T) {
	t.Parallel()
	g := newFakeGit()
	g.commit("init", map[string]string{"a.go": "a"})
	g.commit("memory: add", map[string]string{".memory/m.md": "m"})
	item := Item{ID: "m", Since: g.memorySince(), Refs: []string{"a.go"}}
	g.commit("edit", map[string]string{"a.go": "a1"})
	bg := &blockingGit{fakeGit: g, started: make(chan struct{}, 4), release: make(chan struct{})}
	tr := NewTracker(bg)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() { errc <- tr.Refresh(ctx, []Item{item}) }()
	<-bg.started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Refresh with its caller gone = %v, want context.Canceled", err)
	}
	// The walk goes on; a later caller joins it, or finds it done.
	close(bg.release)
	if err := tr.Refresh(t.Context(), []Item{item}); err != nil {
		t.Fatal(err)
	}
	head, _ := g.Head(t.Context())
	if !tr.Current(head, []Item{item}) {
		t.Fatal("not current after the walk finished")
	}
	st, err := tr.States(t.Context(), []string{"m"})
	if err != nil || st["m"].State != PossiblyStale {
		t.Fatalf("States = %+v, %v; want possibly stale", st, err)
	}
}

// TestSaveAndLoad checks that a tracker loaded from a saved one goes on
// from the saved HEAD, reading only the commits since, and answers as a
// tracker computing from scratch.
func TestSaveAndLoad(t *testing.T) {
	t.Parallel()
	g := newFakeGit()
	g.commit("init", map[string]string{"a.go": goSrc, "b.go": "b", "d/x.go": "x"})
	g.commit("memory: add", map[string]string{".memory/m.md": "m"})
	items := []Item{
		{ID: "file", Since: g.memorySince(), Refs: []string{"a.go", "../bad"}},
		{ID: "sym", Since: g.memorySince(), Refs: []string{"a.go#Get"}},
		{ID: "dir", Since: g.memorySince(), Refs: []string{"d/"}},
	}
	g.commit("edit get", map[string]string{"a.go": strings.Replace(goSrc, "return k", "return k+k", 1)})
	first := NewTracker(g)
	if err := first.Update(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	data, err := first.Save(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	g.rename("move b", "b.go", "c.go")
	g.commit("edit d", map[string]string{"d/x.go": "x2"})
	loaded := NewTracker(g)
	if err := loaded.Load(data); err != nil {
		t.Fatal(err)
	}
	before := g.visited
	if err := loaded.Update(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	if n := g.visited - before; n != 2 {
		t.Errorf("the loaded tracker read %d commits, want the 2 new ones", n)
	}
	full := NewTracker(g)
	if err := full.Update(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	ids := []string{"file", "sym", "dir"}
	a, err := loaded.States(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	b, err := full.States(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(a, b) || a["sym"].State != PossiblyStale || a["dir"].State != PossiblyStale {
		t.Fatalf("loaded %+v\nfull   %+v", a, b)
	}
	if err := loaded.Load([]byte(`{"version": 99}`)); !errors.Is(err, ErrSnapshot) {
		t.Fatalf("Load of another version: %v, want ErrSnapshot", err)
	}
}

// TestRenameChainBetweenUpdates moves a referenced file three times
// between two updates of a tracker, and once more after: the tracker
// names the last place each time, as one computing from scratch does.
func TestRenameChainBetweenUpdates(t *testing.T) {
	t.Parallel()
	g := newFakeGit()
	g.commit("init", map[string]string{"a.go": "a", "x.go": "x"})
	g.commit("memory: m", map[string]string{".memory/m.md": "v1"})
	items := []Item{{ID: "m", Since: g.memorySince(), Refs: []string{"a.go"}}}
	inc := NewTracker(g)
	if err := inc.Update(t.Context(), items); err != nil {
		t.Fatal(err)
	}
	check := func(want string) {
		t.Helper()
		got := statesOf(t, inc, items...)
		full := statesOf(t, NewTracker(g), items...)
		if got != full {
			t.Errorf("incremental %+v, full %+v", got, full)
		}
		if got.State != Stale || !strings.Contains(got.Reason, want) {
			t.Errorf("got %+v, want stale naming %q", got, want)
		}
	}
	g.rename("one", "a.go", "b.go")
	g.commit("noise", map[string]string{"x.go": "x2"})
	g.rename("two", "b.go", "c.go")
	g.rename("three", "c.go", "d/c.go")
	check(`a.go was renamed to d/c.go in`)
	g.rename("four", "d/c.go", "e.go")
	check(`a.go was renamed to e.go in`)
	g.commit("five", map[string]string{"e.go": ""})
	check(`a.go was deleted in`)
}
