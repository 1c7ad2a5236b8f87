package mcpserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault"
)

// TestLongIDNotEchoed: a megabyte id given to a tool or in a resource URI
// is cut in the error to vault.MaxEchoedID bytes with its length noted
// (issue 13, finding 15; before, the error repeated it whole).
func TestLongIDNotEchoed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	long := strings.Repeat("x", 1<<20)
	const limit = 400 // the message around the id
	tests := []struct {
		name string
		call func() (string, error)
	}{
		{"get_memory", func() (string, error) {
			res, text := callTool(t, ts.c, "get_memory", map[string]any{"id": long})
			if !res.IsError {
				t.Fatal("get_memory of an unknown id succeeded")
			}
			return text, nil
		}},
		{"forget", func() (string, error) {
			_, text := callTool(t, ts.c, "forget", map[string]any{"id": long, "reason": "r"})
			return text, nil
		}},
		{"update_memory", func() (string, error) {
			_, text := callTool(t, ts.c, "update_memory", map[string]any{"id": long, "expected_version": 1, "content": "c", "reason": "r"})
			return text, nil
		}},
		{"memory_history", func() (string, error) {
			_, text := callTool(t, ts.c, "memory_history", map[string]any{"id": long})
			return text, nil
		}},
		{"resource", func() (string, error) {
			_, err := readResource(t, ts.c, memoryURIPrefix+long)
			if err == nil {
				t.Fatal("reading an unknown memory succeeded")
			}
			return err.Error(), nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, _ := tt.call()
			if len(msg) > limit {
				t.Fatalf("error is %d bytes, want at most %d: %.200q...", len(msg), limit, msg)
			}
			if !strings.Contains(msg, strings.Repeat("x", vault.MaxEchoedID)+"… (1048576 bytes)") {
				t.Errorf("error %q does not show the id's start and length", msg)
			}
		})
	}
}

// TestIntegerArgumentsRefuseStrings: every whole-number argument of every
// tool refuses a numeric string (issue 13, finding 15).
func TestIntegerArgumentsRefuseStrings(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	id := ts.project.add(t, vault.NewMemory{Title: "Numbers", Content: "Counted.", Layer: vault.Project})
	tests := []struct {
		tool, arg string
		args      map[string]any
	}{
		{"recall", "limit", map[string]any{"query": "numbers", "limit": "3"}},
		{"recall", "k", map[string]any{"query": "numbers", "k": "3"}},
		{"recall", "top_k", map[string]any{"query": "numbers", "top_k": "3"}},
		{"list_memories", "limit", map[string]any{"limit": "10"}},
		{"remember", "importance", map[string]any{"title": "T", "content": "C", "reason": "r", "importance": "7"}},
		{"update_memory", "expected_version", map[string]any{"id": id, "expected_version": "1", "content": "c", "reason": "r"}},
		{"update_memory", "importance", map[string]any{"id": id, "expected_version": 1, "importance": "9", "reason": "r"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+tt.arg, func(t *testing.T) {
			res, text := callTool(t, ts.c, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(text, tt.arg+": want a JSON number, got the string") {
				t.Errorf("%s with %s as a string: isError %v, %q", tt.tool, tt.arg, res.IsError, text)
			}
		})
	}
}

// TestToolTextCarriesNoEscapes checks that a hand-written memory's escape
// sequences and control characters never reach a tool's text (a client
// may print it), while the structured result keeps them exact.
func TestToolTextCarriesNoEscapes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	file := "---\ntitle: \"Deploy \\e[2Jnotes \\e]0;pwned\\a\"\nlayer: project\ncreated_at: 2026-11-01T00:00:00Z\n---\nUse ops/deploy.sh\rEVIL \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \u009b2J done\n"
	p := filepath.Join(ts.project.v.Dir(), "project", "deploy.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ts.project.v.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, text := callTool(t, ts.c, "recall", map[string]any{"query": "deploy notes"})
	if !strings.Contains(text, "Deploy notes") || strings.ContainsAny(text, "\x1b\r\x07\u009b") {
		t.Errorf("recall's text keeps an escape or a control character, or lacks the memory:\n%q", text)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || !strings.Contains(string(raw), `\u001b[2J`) {
		t.Errorf("the structured result lost the title's bytes: %s, %v", raw, err)
	}
}
