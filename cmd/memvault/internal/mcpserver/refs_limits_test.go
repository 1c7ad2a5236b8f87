package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// TestRefsLimits is the regression test, through remember and
// update_memory, for refs without limits (28 "**" segments held the
// server's cores): past a limit the tool answers with an error naming it
// and writes nothing; at the limits it writes.
func TestRefsLimits(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{})
	many := make([]any, vault.MaxRefs+1)
	for i := range many {
		many[i] = fmt.Sprintf("src/f%d.go", i)
	}
	deep := func(n int) []any { return []any{strings.Repeat("**/d/", n) + "*.go"} }
	tooMany := fmt.Sprintf("%d refs, limit %d (vault.MaxRefs)", vault.MaxRefs+1, vault.MaxRefs)
	tooDeep := fmt.Sprintf(`has 28 "**" segments, limit %d (vault.MaxRefGlobstars)`, vault.MaxRefGlobstars)

	w := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Glob at the limit", "content": "c", "refs": deep(vault.MaxRefGlobstars)})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"remember", map[string]any{"title": "Too many refs", "content": "c", "refs": many}, tooMany},
		{"remember", map[string]any{"title": "Too deep", "content": "c", "refs": deep(28)}, tooDeep},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": w.Version, "reason": "r", "refs": many}, tooMany},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": w.Version, "reason": "r", "refs": deep(28)}, tooDeep},
	} {
		res, text := callTool(t, ts.c, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s: error=%v %q; want an error saying %q", tc.tool, res.IsError, text, tc.want)
		}
	}
	if n := len(ts.project.v.All()); n != 1 {
		t.Errorf("%d memories after refused writes, want 1", n)
	}
	if m, err := ts.project.v.Get(w.ID); err != nil || m.Version != w.Version {
		t.Errorf("the memory after refused updates: %v, %v; want version %d", m, err, w.Version)
	}
}

// TestRecallStalenessDeadline is the regression test for recalls that
// waited on a staleness walk past their deadline: when the staleness of
// the results is not known in time, recall answers with staleness
// unknown, its staleness wait ending a tenth of the recall's limit before
// the recall's own deadline.
func TestRecallStalenessDeadline(t *testing.T) {
	t.Parallel()
	const limit = 2 * time.Second
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{recallTimeout: limit})
	ts.project.add(t, vault.NewMemory{Title: "Deploy with the ops script", Content: "Run ops/deploy.sh.", Refs: []string{"ops/deploy.sh"}})
	waited := make(chan time.Time, 1)
	ts.project.staleness = func(ctx context.Context, _ []*vault.Memory) (map[string]staleness.Staleness, error) {
		d, _ := ctx.Deadline()
		waited <- d
		<-ctx.Done() // a walk that is not done in time
		return nil, ctx.Err()
	}
	before := time.Now()
	out := mustCall[view.Recall](t, ts.c, "recall", map[string]any{"query": "deploy"})
	after := time.Now()
	if len(out.Results) != 1 || out.Results[0].Staleness == nil || out.Results[0].Staleness.State != string(staleness.Unknown) ||
		!strings.Contains(out.Results[0].Staleness.Reason, "not known in time") {
		t.Fatalf("recall: %+v, want one result with staleness unknown, not known in time", out.Results)
	}
	if d := <-waited; d.Before(before.Add(limit-limit/10)) || d.After(after.Add(limit-limit/10)) {
		t.Errorf("staleness deadline %v, want %v after the call (the recall's less a tenth)", d, limit-limit/10)
	}
}
