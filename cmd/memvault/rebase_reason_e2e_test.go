package main

import (
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestSyncRebaseKeepsAnOutrankedWritesReason is what TestTeamSimulation
// found (issue 24, "0 lost reasons"): I forget a memory while a teammate
// supersedes it and pushes; my `sync --rebase` replays my forget onto the
// supersession, which the merge rules keep, so my commit changes nothing
// any more. git's rebase drops such a commit, and with it my reason and
// authorship; a `sync --merge` keeps it on its side. The replayed write
// stays, empty, and history names its reason.
func TestSyncRebaseKeepsAnOutrankedWritesReason(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	tm := newTeam(t)
	a, b := tm.clone(), tm.clone()
	id := a.add("Redis is a cache", "Never the source of truth.")
	a.must("sync")
	b.must("sync")
	const forgot = "we moved sessions to Postgres"
	a.must("forget", id, "--reason", forgot)
	b.must("add", "Redis holds sessions", "--content", "Sessions live in Redis.", "--supersedes", id, "--reason", "b")
	b.must("sync")
	a.must("sync", "--rebase")

	var h view.History
	a.jsonOf(&h, "history", id)
	var reasons []string
	for _, r := range h.Revisions {
		reasons = append(reasons, r.Reason)
	}
	if !strings.Contains(strings.Join(reasons, "\n"), forgot) {
		t.Errorf("history of %s after sync --rebase names %q, not the forget's reason %q\n%s", id, reasons, forgot,
			a.git("log", "--format=%h %an %s", "-5"))
	}
	var m view.Memory
	if a.jsonOf(&m, "show", id); m.Status != "superseded" {
		t.Errorf("%s after the rebase: status %s, want superseded", id, m.Status)
	}
}
