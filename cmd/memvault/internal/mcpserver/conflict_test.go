package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestConflictedMemories: a memory a git merge left with a conflict entry
// is labelled in recall, shown with both sides by get_memory, and listed
// with what to do by memory_stats and memory://context, as is a file
// holding conflict markers, which is never served.
func TestConflictedMemories(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{})
	dir := ts.project.v.Dir()
	files := map[string]string{
		"project/money.md": "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 minor units\nimportance: 8\ncreated_at: 2026-11-01\n" +
			"conflict: {fields: 'title, body', theirs_title: 金额用 int64 分, theirs_body: \"Never float32.\\n\"}\n---\nNever float64.\n",
		"project/ghost.md": "<<<<<<< HEAD\n---\nid: 01JDX3Q8W7BBBBBBBBBBBBBBBB\n---\nours\n=======\ntheirs\n>>>>>>> topic\n",
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := ts.project.v.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}

	res, text := callTool(t, ts.c, "recall", map[string]any{"query": "money"})
	var rec view.Recall
	decodeStructured(t, res, &rec)
	if len(rec.Results) != 1 || !slices.Equal(rec.Results[0].Conflicted, []string{"title", "body"}) {
		t.Fatalf("recall: %+v", rec.Results)
	}
	if !strings.Contains(text, "conflicted: a git merge left title, body in disagreement") || strings.Contains(text, "<<<<<<<") {
		t.Errorf("recall text:\n%s", text)
	}

	res, text = callTool(t, ts.c, "get_memory", map[string]any{"id": "01JDX3Q8W7AAAAAAAAAAAAAAAA"})
	var m view.Memory
	decodeStructured(t, res, &m)
	if want := map[string]string{"title": "金额用 int64 分", "body": "Never float32.\n"}; !cmp.Equal(m.ConflictTheirs, want) {
		t.Errorf("get_memory conflict_theirs %v, want %v", m.ConflictTheirs, want)
	}
	for _, want := range []string{"Never float64.", "--- the other side of the merge", "title: 金额用 int64 分", "body:\nNever float32."} {
		if !strings.Contains(text, want) {
			t.Errorf("get_memory text lacks %q:\n%s", want, text)
		}
	}
	if res, _ := callTool(t, ts.c, "get_memory", map[string]any{"id": "01JDX3Q8W7BBBBBBBBBBBBBBBB"}); !res.IsError {
		t.Errorf("the file with markers is served as a memory")
	}

	st := mustCall[view.Stats](t, ts.c, "memory_stats", map[string]any{})
	var got []string
	for _, c := range st.Conflicted {
		got = append(got, c.Path+" "+strings.Join(c.What, ",")+" "+c.ID)
		if c.Fix == "" {
			t.Errorf("%s: no fix", c.Path)
		}
	}
	if want := []string{"project/ghost.md markers ", "project/money.md title,body 01JDX3Q8W7AAAAAAAAAAAAAAAA"}; !slices.Equal(got, want) {
		t.Errorf("memory_stats conflicted %q, want %q", got, want)
	}

	ctx, err := readResource(t, ts.c, contextURI)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Merge conflicts in memory files", "project/ghost.md (markers): resolve the git conflict markers", "project/money.md (title, body): edit "} {
		if !strings.Contains(ctx, want) {
			t.Errorf("memory://context lacks %q:\n%s", want, ctx)
		}
	}
}
