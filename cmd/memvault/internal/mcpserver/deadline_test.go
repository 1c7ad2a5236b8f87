package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/vault"
)

// TestRecallRefusesLargeQuery is the regression test, through the MCP
// recall tool and prompt, for a huge query that held a core for minutes:
// a 1 MB query is refused at once with the limit and its size, and the
// server goes on answering.
func TestRecallRefusesLargeQuery(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	ts.project.add(t, vault.NewMemory{Title: "Deploy with the ops script", Content: "Run ops/deploy.sh from the repo root."})
	const piece = "deploy kakalomi 部署脚本 "
	huge := strings.Repeat(piece, (1<<20)/len(piece))
	huge += strings.Repeat("x", 1<<20-len(huge))
	want := fmt.Sprintf("query too large: %d bytes, limit %d", 1<<20, vault.MaxQueryBytes)

	res, text := callTool(t, ts.c, "recall", map[string]any{"query": huge})
	if !res.IsError || !strings.Contains(text, want) {
		t.Errorf("recall of 1 MB: error=%v %q, want an error saying %q", res.IsError, text, want)
	}
	req := mcp.GetPromptRequest{}
	req.Params.Name = "recall"
	req.Params.Arguments = map[string]string{"query": huge}
	if _, err := ts.c.GetPrompt(t.Context(), req); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("recall prompt of 1 MB: %v, want an error saying %q", err, want)
	}
	if out := mustCall[struct{ Results []any }](t, ts.c, "recall", map[string]any{"query": "deploy"}); len(out.Results) != 1 {
		t.Errorf("recall after the refusal: %d results, want 1", len(out.Results))
	}
}

// TestRecallDeadline checks that each recall gets the configured deadline
// (measured against the clock around the call, not waited for), none when
// it is negative, and that a recall whose deadline passed says so.
func TestRecallDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		timeout time.Duration
		want    time.Duration // 0: no deadline
	}{
		{"default", 0, DefaultRecallTimeout},
		{"configured", 300 * time.Millisecond, 300 * time.Millisecond},
		{"none", -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Config{Version: "test", RecallTimeout: tt.timeout, Open: func(string, string, func(vault.Change)) Served { return Served{} }})
			before := time.Now()
			ctx, cancel := s.recallContext(t.Context())
			after := time.Now()
			defer cancel()
			d, ok := ctx.Deadline()
			if tt.want == 0 {
				if ok {
					t.Errorf("deadline %v, want none", d)
				}
				return
			}
			if !ok || d.Before(before.Add(tt.want)) || d.After(after.Add(tt.want)) {
				t.Errorf("deadline %v (set: %v), want %v after the call", d, ok, tt.want)
			}
		})
	}

	ts := newTestServer(t, newClock(t0), serverOptions{})
	ts.project.add(t, vault.NewMemory{Title: "Deploy with the ops script", Content: "Run ops/deploy.sh from the repo root."})
	vs, _, err := ts.vaults(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	expired, cancel := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer cancel()
	_, _, err = ts.recall(expired, vs, recallArgs{Query: "deploy"})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the server's limit for one recall") {
		t.Errorf("recall past its deadline: %v, want context.DeadlineExceeded saying the server's limit", err)
	}
}
