package mcpserver

import (
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestWriteToolsRefuseControlCharacters: remember and update_memory refuse
// content, title and reason carrying terminal controls, naming the field,
// and commit nothing (issue 27 finding 6).
func TestWriteToolsRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	w := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Clean", "content": "Plain text."})
	before := ts.project.commits.count()
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"remember", map[string]any{"title": "Escapes", "content": "clear \x1b[2J screen"}, "content: the control character U+001B"},
		{"remember", map[string]any{"title": "Bell \x07", "content": "x"}, "title: contains the control or bidi character U+0007"},
		{"remember", map[string]any{"title": "Reason", "content": "x", "reason": "see \x1b]8;;http://x\x1b\\"}, "reason: the control character U+001B"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "content": "over\rwrite", "reason": "r"}, "content: the control character U+000D"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "importance": 7, "reason": "r \u009b2J"}, "reason: the control character U+009B"},
	} {
		res, text := callTool(t, ts.c, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(text, tt.want) {
			t.Errorf("%s(%q): error %v, %q; want an error saying %q", tt.tool, tt.args, res.IsError, text, tt.want)
		}
	}
	if n := ts.project.commits.count(); n != before {
		t.Errorf("%d commits after refused writes, want %d", n, before)
	}
}
