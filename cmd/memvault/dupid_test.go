package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 13, finding 8: an untracked file carrying a committed memory's id
// took the id over when it sorted first, and `update ID` then committed
// the impostor. Now the tracked file keeps the id in both doors, and a
// write to the id is refused naming both files.
func TestUntrackedFileCannotTakeOverAnID(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	id := r.addMemory("Checkout uses the strategy pattern", "Promotions multiply.")
	committedPath := "project/checkout-uses-the-strategy-pattern.md"
	impostor := "---\nid: " + id + "\ntitle: Checkout uses if/else chains\ncreated_at: 2026-11-01T00:00:00Z\n---\nNo patterns here.\n"
	// "meta-notes.md" sorts before "project/...".
	if err := os.WriteFile(filepath.Join(r.dir, "meta-notes.md"), []byte(impostor), 0o644); err != nil {
		t.Fatal(err)
	}
	head, _ := r.head()
	r.tick(time.Minute)

	var shown struct{ Title, Path string }
	if err := json.Unmarshal([]byte(r.ok("show", id, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.Path != committedPath {
		t.Errorf("show %s: %s (%q), want the committed %s", id, shown.Path, shown.Title, committedPath)
	}
	code, _ := r.run("", "update", id, "--content", "Promotions multiply fast.", "--reason", "clarify")
	if code != 1 || !strings.Contains(r.lastStderr, committedPath) || !strings.Contains(r.lastStderr, "meta-notes.md") {
		t.Errorf("update of the shared id: exit %d, want 1 naming both files:\n%s", code, r.lastStderr)
	}
	if h, _ := r.head(); h != head {
		t.Errorf("update committed %s", h)
	}
	if got := readFile(t, filepath.Join(r.dir, "meta-notes.md")); got != impostor {
		t.Errorf("the untracked file changed:\n%s", got)
	}
	code, out := r.run("", "lint")
	if want := `meta-notes.md:2: id: duplicate memory id "` + id + `": already used by ` + committedPath + `, which git tracks`; code != 1 || !strings.Contains(out, want) {
		t.Errorf("lint: exit %d, want 1 and %q:\n%s", code, want, out)
	}

	clock := &testClock{now: r.now}
	s := &mcpSession{t: t, c: serveInProcess(t, clock.Now, "--vault", r.dir)}
	var got struct{ Path string }
	s.ok("get_memory", map[string]any{"id": id}, &got)
	if got.Path != committedPath {
		t.Errorf("get_memory: %s, want %s", got.Path, committedPath)
	}
	text := s.fails("update_memory", map[string]any{"id": id, "expected_version": 1, "content": "Promotions multiply fast.", "reason": "clarify"})
	if !strings.Contains(text, committedPath) || !strings.Contains(text, "meta-notes.md") {
		t.Errorf("update_memory: the tool error does not name both files: %s", text)
	}
	if h, _ := r.head(); h != head {
		t.Errorf("update_memory committed %s", h)
	}
}
