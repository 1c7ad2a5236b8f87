package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// TestUpdateMemoryExpectedETag: get_memory, recall and remember give the
// etag of what they saw or wrote, and update_memory with expected_etag is
// refused once a merge has left another content at the same version,
// though expected_version alone would pass.
func TestUpdateMemoryExpectedETag(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{})
	w := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Money is int64 cents", "content": "Never float64.", "reason": "r"})
	got := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": w.ID})
	rec := mustCall[view.Recall](t, ts.c, "recall", map[string]any{"query": "money"})
	if !vault.IsETag(w.ETag) || got.ETag != w.ETag || len(rec.Results) != 1 || rec.Results[0].ETag != w.ETag {
		t.Fatalf("etags: remember %q, get_memory %q, recall %+v; want one etag", w.ETag, got.ETag, rec.Results)
	}

	// A pull brings a different content at the same version.
	p := filepath.Join(ts.project.v.Dir(), filepath.FromSlash(w.Path))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	theirs := strings.Replace(string(b), "Never float64.", "Never float64; round half to even.", 1)
	if theirs == string(b) {
		t.Fatalf("the body is not in the file:\n%s", b)
	}
	if err := os.WriteFile(p, []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ts.project.v.Refresh(t.Context(), []string{w.Path}); err != nil {
		t.Fatal(err)
	}
	now := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": w.ID})
	if now.Version != w.Version || now.ETag == w.ETag {
		t.Fatalf("after the pull: version %d etag %q; want version %d and an etag other than %q", now.Version, now.ETag, w.Version, w.ETag)
	}

	update := func(etag string) map[string]any {
		return map[string]any{"id": w.ID, "expected_version": w.Version, "expected_etag": etag, "content": "Never float64: int64 cents.", "reason": "r"}
	}
	res, text := callTool(t, ts.c, "update_memory", update(w.ETag))
	if !res.IsError || !strings.HasPrefix(text, "expected_etag: version conflict") || !strings.Contains(text, now.ETag) {
		t.Fatalf("update with the etag seen before the pull: %s; want an expected_etag conflict naming %s", text, now.ETag)
	}
	if after, _ := os.ReadFile(p); string(after) != theirs {
		t.Fatalf("a refused update changed the file:\n%s", after)
	}
	res, text = callTool(t, ts.c, "update_memory", update("2-not-an-etag"))
	if !res.IsError || !strings.Contains(text, "not <version>-<12 hex digits>") {
		t.Fatalf("update with a malformed etag: %s", text)
	}
	res, text = callTool(t, ts.c, "update_memory", update(now.ETag))
	if res.IsError || !strings.Contains(text, "etag ") {
		t.Fatalf("update with the current etag: %s", text)
	}
	var up view.Write
	decodeStructured(t, res, &up)
	if !strings.Contains(text, "etag "+up.ETag) {
		t.Errorf("update_memory text does not give the new etag %s: %s", up.ETag, text)
	}
	if up.Version != w.Version+1 || !vault.IsETag(up.ETag) || up.ETag == now.ETag {
		t.Fatalf("update with the current etag: %+v", up)
	}
	if again := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": w.ID}); again.ETag != up.ETag {
		t.Errorf("get_memory after the update: etag %q, the update said %q", again.ETag, up.ETag)
	}
	// A model reading only the text finds the etag too.
	if _, text := callTool(t, ts.c, "get_memory", map[string]any{"id": w.ID}); !strings.Contains(text, "etag: "+up.ETag) {
		t.Errorf("get_memory text does not give the etag %s:\n%s", up.ETag, text)
	}

}
