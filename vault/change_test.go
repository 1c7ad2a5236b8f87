package vault

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

func TestSubscribeReportsWhatChanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"project/a.md": "---\nid: a\ntitle: Retry policy\n---\nRetry three times.\n",
		"project/b.md": "---\nid: b\ntitle: Logging\n---\nUse slog.\n",
	})
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Change
	cancel := v.Subscribe(func(c Change) { mu.Lock(); got = append(got, c); mu.Unlock() })
	last := func() (Change, int) {
		mu.Lock()
		defer mu.Unlock()
		if len(got) == 0 {
			return Change{}, 0
		}
		return got[len(got)-1], len(got)
	}

	steps := []struct {
		name                    string
		edit                    map[string]string
		rm                      string
		rels                    []string
		want                    []string
		added, changed, removed []string
		calls                   int
	}{
		{name: "unchanged file is no change", rels: []string{"project/a.md"}, calls: 0},
		{name: "edit", edit: map[string]string{"project/a.md": "---\nid: a\ntitle: Retry policy\n---\nRetry five times.\n"}, rels: []string{"project/a.md"},
			want: []string{"a"}, changed: []string{"a"}, calls: 1},
		{name: "new file", edit: map[string]string{"short-term/c.md": "---\nid: c\ntitle: Today\n---\nFix the flaky test.\n"}, rels: []string{"short-term/c.md"},
			want: []string{"c"}, added: []string{"c"}, calls: 2},
		{name: "id changed by hand", edit: map[string]string{"project/b.md": "---\nid: b2\ntitle: Logging\n---\nUse slog.\n"}, rels: []string{"project/b.md"},
			want: []string{"b", "b2"}, added: []string{"b2"}, removed: []string{"b"}, calls: 3},
		{name: "broken edit marks stale", edit: map[string]string{"project/a.md": "\x00broken"}, rels: []string{"project/a.md"},
			want: []string{"a"}, changed: []string{"a"}, calls: 4},
		{name: "still broken is no change", edit: map[string]string{"project/a.md": "\x00broken again"}, rels: []string{"project/a.md"}, calls: 4},
		{name: "a file moved within one batch is a change", edit: map[string]string{"project/b2.md": "---\nid: b2\ntitle: Logging\n---\nUse slog.\n"},
			rm: "project/b.md", rels: []string{"project/b.md", "project/b2.md"}, want: []string{"b2"}, changed: []string{"b2"}, calls: 5},
		{name: "delete", rm: "short-term/c.md", rels: []string{"short-term/c.md"},
			want: []string{"c"}, removed: []string{"c"}, calls: 6},
		{name: "add and delete in one batch", edit: map[string]string{"project/d.md": "---\nid: d\ntitle: Errors\n---\nWrap with %w.\n"},
			rm: "project/b2.md", rels: []string{"project/b2.md", "project/d.md"}, want: []string{"b2", "d"}, added: []string{"d"}, removed: []string{"b2"}, calls: 7},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			writeFiles(t, dir, s.edit)
			if s.rm != "" {
				if err := os.Remove(filepath.Join(dir, s.rm)); err != nil {
					t.Fatal(err)
				}
			}
			if err := v.Refresh(t.Context(), s.rels); err != nil {
				t.Fatal(err)
			}
			c, n := last()
			if n != s.calls {
				t.Fatalf("got %d calls, want %d (last %+v)", n, s.calls, c)
			}
			if s.want != nil && (!slices.Equal(c.IDs, s.want) || c.Full) {
				t.Fatalf("got %+v, want ids %v", c, s.want)
			}
			if s.want != nil && (!slices.Equal(c.Added, s.added) || !slices.Equal(c.Changed, s.changed) || !slices.Equal(c.Removed, s.removed)) {
				t.Errorf("got added %v, changed %v, removed %v; want %v, %v, %v", c.Added, c.Changed, c.Removed, s.added, s.changed, s.removed)
			}
		})
	}
	if err := v.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c, _ := last(); !c.Full || c.Added != nil || c.Changed != nil || c.Removed != nil {
		t.Fatalf("reload: got %+v, want Full alone", c)
	}
	cancel()
	if err := v.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, n := last(); n != 8 {
		t.Fatalf("called %d times after cancel, want 8", n)
	}
}

// TestRefreshFollowsAMoveWithinOneBatch moves a memory to a folder that
// sorts before its old one and refreshes both paths at once: the memory
// must end up at its new path, not be dropped as a duplicate of itself.
func TestRefreshFollowsAMoveWithinOneBatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := "---\nid: m\ntitle: Flaky test\n---\nQuarantine it.\n"
	writeFiles(t, dir, map[string]string{"short-term/m.md": text})
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"project/m.md": text})
	if err := os.Remove(filepath.Join(dir, "short-term/m.md")); err != nil {
		t.Fatal(err)
	}
	if err := v.Refresh(t.Context(), []string{"project/m.md", "short-term/m.md"}); err != nil {
		t.Fatal(err)
	}
	m, err := v.Get("m")
	if err != nil || m.Path != "project/m.md" {
		t.Fatalf("after the move: got %+v, %v; want the memory at project/m.md", m, err)
	}
	if d := v.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics after the move: %v, want none", d)
	}
}

// TestWritesReportWhatTheyAddChangeAndRemove checks the Change of each
// kind of write: a notifier tells list changes from edits by it alone.
func TestWritesReportWhatTheyAddChangeAndRemove(t *testing.T) {
	v, _ := openRecorded(t, t.TempDir())
	var mu sync.Mutex
	var got []Change
	v.Subscribe(func(c Change) { mu.Lock(); got = append(got, c); mu.Unlock() })
	last := func() Change {
		mu.Lock()
		defer mu.Unlock()
		if len(got) == 0 {
			return Change{}
		}
		return got[len(got)-1]
	}
	ctx := t.Context()
	old, err := v.Create(ctx, NewMemory{Title: "Retry three times", Content: "Retry."}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	a := old.Memory.ID
	if c := last(); !slices.Equal(c.Added, []string{a}) || c.Changed != nil || c.Removed != nil {
		t.Errorf("create: got %+v, want %s added", c, a)
	}
	succ, err := v.Create(ctx, NewMemory{Title: "Retry five times", Content: "Retry more.", Supersedes: []string{a}}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	b := succ.Memory.ID
	if c := last(); !slices.Equal(c.Added, []string{b}) || !slices.Equal(c.Changed, []string{a}) || c.Removed != nil {
		t.Errorf("create superseding %s: got %+v, want %s added and %s changed", a, c, b, a)
	}
	imp := 9
	if _, err := v.Update(ctx, b, 1, Patch{Importance: &imp}, Author{Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	if c := last(); c.Added != nil || !slices.Equal(c.Changed, []string{b}) || c.Removed != nil {
		t.Errorf("update: got %+v, want %s changed", c, b)
	}
	if _, err := v.Forget(ctx, a, true, Author{Reason: "r"}); err != nil {
		t.Fatal(err)
	}
	if c := last(); c.Added != nil || c.Changed != nil || !slices.Equal(c.Removed, []string{a}) {
		t.Errorf("delete: got %+v, want %s removed", c, a)
	}
}
