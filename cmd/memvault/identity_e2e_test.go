package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestHandWrittenMemoryGetsAnIdentity is issue 24's finding 7 (identity):
// a teammate without memvault writes a memory file with no id and
// pushes it; my first `memvault update` gives it an id, created_at from
// the commit that added it, and keeps its path id as an alias, so the
// path id still finds it; renaming the file afterwards keeps the id.
func TestHandWrittenMemoryGetsAnIdentity(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the end-to-end run of vault's TestFirstWriteGivesAnIdentity; runs without -short, as CI does")
	}
	tc := newTeamClones(t)
	const rel = ".memory/project/deploys-need-two-approvals.md"
	if err := os.WriteFile(filepath.Join(tc.their, filepath.FromSlash(rel)), []byte("---\ntitle: Deploys need two approvals\n---\nTwo people approve each deploy.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tc.git(tc.their, "add", rel)
	added := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	gitLater(t, tc.their, time.Until(added), "commit", "-q", "-m", "a rule, by hand")
	tc.git(tc.their, "push", "-q", "origin", "main")
	tc.git(tc.mine, "pull", "-q", "origin", "main")

	const pathID = "project/deploys-need-two-approvals"
	show := func(id string) view.Memory {
		t.Helper()
		var m view.Memory
		if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "show", id, "--json")), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := show(pathID); m.ID != pathID {
		t.Fatalf("before any write: id %q, want the path id", m.ID)
	}
	tc.memvault(tc.mine, "update", pathID, "--importance", "8", "--reason", "it matters")
	m := show(pathID)
	if m.ID == pathID || !strings.HasPrefix(m.ID, "01") {
		t.Fatalf("after the first write: id %q, want a ULID", m.ID)
	}
	if m.CreatedAt != added.Format(time.RFC3339) {
		t.Errorf("created_at %s, want %s (the commit that added the file)", m.CreatedAt, added)
	}
	if !slices.Contains(m.Aliases, pathID) {
		t.Errorf("aliases %q lack the path id", m.Aliases)
	}
	id := m.ID

	tc.git(tc.mine, "mv", rel, ".memory/project/two-approvals.md")
	tc.git(tc.mine, "commit", "-q", "-m", "shorter name")
	if got := show(id); got.ID != id || got.Path != "project/two-approvals.md" {
		t.Errorf("after the rename: %s at %s, want %s at project/two-approvals.md", got.ID, got.Path, id)
	}
	var h view.History
	if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "history", id, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	if n := len(h.Revisions); n < 2 || h.Revisions[n-1].Subject != "a rule, by hand" {
		t.Errorf("history of %s: %+v, want it to reach the hand-written commit", id, h.Revisions)
	}
}
