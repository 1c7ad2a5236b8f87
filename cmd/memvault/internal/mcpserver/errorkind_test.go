package mcpserver

import (
	"encoding/json"
	"testing"
	"time"
)

// TestToolErrorsCarryTheirKind checks that a tool error names its kind of
// failure in _meta "memvault/error", from the table the CLI's exit
// statuses follow too.
func TestToolErrorsCarryTheirKind(t *testing.T) {
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{})
	w := mustCall[struct {
		ID      string `json:"id"`
		Version int    `json:"version"`
	}](t, ts.c, "remember", map[string]any{"title": "Money as int64 cents", "content": "Never float64.", "reason": "r"})
	tests := []struct {
		name       string
		tool       string
		args       map[string]any
		wantKind   string
		wantCaller bool
	}{
		{"unknown id", "get_memory", map[string]any{"id": "01JDX3Q8W7BBBBBBBBBBBBBBBB"}, "not_found", true},
		{"argument of the wrong type", "recall", map[string]any{"query": "money", "limit": "ten"}, "invalid", true},
		{"stale version", "update_memory", map[string]any{"id": w.ID, "expected_version": w.Version + 5, "content": "x", "reason": "r"}, "conflict", true},
		{"a secret", "remember", map[string]any{"title": "Deploy key", "content": "the CI token is ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES", "reason": "r"}, "secret", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callTool(t, ts.c, tt.tool, tt.args)
			if !res.IsError {
				t.Fatalf("%s: no error: %s", tt.tool, text)
			}
			if res.Meta == nil {
				t.Fatalf("%s: no _meta: %s", tt.tool, text)
			}
			raw, err := json.Marshal(res.Meta.AdditionalFields["memvault/error"])
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Kind   string `json:"kind"`
				Caller bool   `json:"caller"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("_meta memvault/error %s: %v", raw, err)
			}
			if got.Kind != tt.wantKind || got.Caller != tt.wantCaller {
				t.Errorf("%s (%s): _meta memvault/error = %s, want kind %q caller %v", tt.tool, text, raw, tt.wantKind, tt.wantCaller)
			}
		})
	}
}
