package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/since"
)

// TestReportsTellTheChangeNotTheConfirm is issue 24's finding 7 (diff,
// digest, history): I update one memory and add another, each with its
// reason; a teammate then confirms both. diff and digest give each the
// reason and author of the change that matters (my update; my add, the
// creator first), not the teammate's confirm; history calls the confirm
// a confirm.
func TestReportsTellTheChangeNotTheConfirm(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the end-to-end run of vault/since's TestChanges (changed then confirmed) and vault's TestOnlyConfirmed; runs without -short, as CI does")
	}
	tc := newTeamClones(t)
	const updated, added = "the script now deploys blue first", "refunds time out at the gateway"
	base := strings.TrimSpace(tc.git(tc.mine, "rev-parse", "HEAD"))
	deploy := tc.idOf(tc.mine, "Deploys run ops/deploy.sh")
	tc.memvault(tc.mine, "update", deploy, "--content", "Run `ops/deploy.sh`; it deploys blue first.", "--reason", updated)
	tc.memvault(tc.mine, "add", "Refunds run asynchronously", "--content", "Refunds are queued.", "--reason", added)
	refunds := tc.idOf(tc.mine, "Refunds run asynchronously")
	tc.git(tc.mine, "push", "-q", "origin", "main")
	tc.git(tc.their, "pull", "-q", "--no-rebase", "origin", "main")
	tc.memvault(tc.their, "confirm", deploy, "--reason", "checked it")
	tc.memvault(tc.their, "confirm", refunds, "--reason", "checked it")
	tc.git(tc.their, "push", "-q", "origin", "main")
	tc.git(tc.mine, "pull", "-q", "origin", "main")

	want := map[string]string{deploy: updated, refunds: added}
	var diff struct {
		Changes []history.MemoryChange `json:"changes"`
	}
	if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "diff", base+"..HEAD", "--json")), &diff); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range diff.Changes {
		if reason, ok := want[c.ID]; ok {
			seen++
			if c.Reason != reason || c.Author != "Ada Me" {
				t.Errorf("diff %s (%s): reason %q by %q, want %q by Ada Me", c.ID, c.Kind, c.Reason, c.Author, reason)
			}
		}
	}
	if seen != 2 {
		t.Errorf("diff tells %d of the two memories: %+v", seen, diff.Changes)
	}
	var rep since.Report
	if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "digest", "--since", base, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	seen = 0
	for _, c := range rep.Changes {
		if reason, ok := want[c.ID]; ok {
			seen++
			if len(c.By) == 0 || c.By[0].Reason != reason || c.By[0].Name != "Ada Me" {
				t.Errorf("digest %s (%s): by %+v, want %q by Ada Me first", c.ID, c.Kind, c.By, reason)
			}
		}
	}
	if seen != 2 {
		t.Errorf("digest tells %d of the two memories: %+v", seen, rep.Changes)
	}
	var h view.History
	if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "history", deploy, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Revisions) == 0 || h.Revisions[0].Kind != history.KindConfirmed || h.Revisions[0].Reason != "checked it" {
		t.Errorf("history's newest revision: %+v, want the confirm, told as one", h.Revisions[:min(1, len(h.Revisions))])
	}
}
