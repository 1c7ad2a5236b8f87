package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault/since"
)

// TestSquashMergesKeepEachMemorysReason is issue 24's finding 4: I write
// two memories on a branch, each with its own reason, and a teammate
// without memvault squash-merges the branch with git (`merge --squash`,
// git's indented message); then I update both on a second branch, which
// the teammate squashes as GitHub does (one "* " item per commit). On
// main, `history`, `why` and `digest` give each memory its own reason
// for each change, never the squash's concatenated message.
func TestSquashMergesKeepEachMemorysReason(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	tc := newTeamClones(t)
	const (
		titleA, titleB   = "Deploys need two approvals", "Refunds run asynchronously"
		addA, addB       = "the outage of March: one approval let a broken migration through", "gateway timeouts at 30 s"
		updateA, updateB = "the audit asked for a named second approver", "the queue retries three times"
	)
	start := strings.TrimSpace(tc.git(tc.mine, "rev-parse", "HEAD"))

	// Squash with git: `git merge --squash`, committed with git's message.
	tc.git(tc.mine, "checkout", "-q", "-b", "rules")
	tc.memvault(tc.mine, "add", titleA, "--content", "Two people approve each deploy.", "--reason", addA)
	tc.memvault(tc.mine, "add", titleB, "--content", "Refunds are queued, never inline.", "--reason", addB)
	idA, idB := tc.idOf(tc.mine, titleA), tc.idOf(tc.mine, titleB)
	tc.git(tc.mine, "push", "-q", "origin", "rules")
	tc.git(tc.their, "pull", "-q", "--no-rebase", "origin", "main")
	tc.git(tc.their, "fetch", "-q", "origin")
	tc.git(tc.their, "merge", "-q", "--squash", "origin/rules")
	tc.git(tc.their, "-c", "core.editor=true", "commit", "-q")
	if msg := tc.git(tc.their, "log", "-1", "--format=%B"); !strings.HasPrefix(msg, "Squashed commit of the following:") {
		t.Fatalf("git's squash message:\n%s", msg)
	}
	tc.git(tc.their, "push", "-q", "origin", "main")

	// Squash as GitHub does: the PR title, then "* " and each commit's
	// message, oldest first.
	tc.git(tc.mine, "fetch", "-q", "origin")
	tc.git(tc.mine, "checkout", "-q", "-b", "rules-2", "origin/main")
	tc.memvault(tc.mine, "update", idA, "--content", "Two named people approve each deploy.", "--reason", updateA)
	tc.memvault(tc.mine, "update", idB, "--content", "Refunds are queued and retried.", "--reason", updateB)
	tc.git(tc.mine, "push", "-q", "origin", "rules-2")
	tc.git(tc.their, "fetch", "-q", "origin")
	items := tc.git(tc.their, "log", "--reverse", "--format=* %B", "origin/main..origin/rules-2")
	tc.git(tc.their, "merge", "-q", "--squash", "origin/rules-2")
	msgFile := filepath.Join(t.TempDir(), "msg")
	if err := os.WriteFile(msgFile, []byte("Approvals and refunds (#2)\n\n"+items), 0o644); err != nil {
		t.Fatal(err)
	}
	tc.git(tc.their, "commit", "-q", "-F", msgFile)
	tc.git(tc.their, "push", "-q", "origin", "main")

	tc.git(tc.mine, "checkout", "-q", "main")
	tc.git(tc.mine, "pull", "-q", "origin", "main")

	want := map[string][]string{idA: {updateA, addA}, idB: {updateB, addB}}
	for id, reasons := range want {
		var h view.History
		if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "history", id, "--json")), &h); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range h.Revisions {
			got = append(got, r.Reason)
			if r.Client != "cli" {
				t.Errorf("history %s: client %q, want cli (%s)", id, r.Client, r.Subject)
			}
		}
		if strings.Join(got, "\n") != strings.Join(reasons, "\n") {
			t.Errorf("history %s: reasons\n%q\nwant\n%q", id, got, reasons)
		}
	}
	var why whyJSON
	if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "why", "how many approvals does a deploy need", "--json")), &why); err != nil {
		t.Fatal(err)
	}
	if why.Memory.ID != idA || len(why.History) == 0 || why.History[0].Reason != updateA {
		t.Errorf("why: memory %s, history %+v; want %s with the reason %q first", why.Memory.ID, why.History, idA, updateA)
	}
	var rep since.Report
	if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "digest", "--since", start, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range rep.Changes {
		if c.ID != idA && c.ID != idB {
			continue
		}
		seen++
		var got []string
		for _, a := range c.By {
			got = append(got, a.Reason)
		}
		// Added in the range: the creator's reason first, then the
		// rest newest first.
		reasons := want[c.ID]
		reasons = append([]string{reasons[len(reasons)-1]}, reasons[:len(reasons)-1]...)
		if strings.Join(got, "\n") != strings.Join(reasons, "\n") {
			t.Errorf("digest %s: reasons\n%q\nwant\n%q", c.ID, got, reasons)
		}
	}
	if seen != 2 {
		t.Errorf("digest --since %s tells %d of the two memories:\n%+v", start, seen, rep.Changes)
	}
}

// TestCherryPickKeepsTheReason is the cherry-pick part of issue 24's
// finding 7: `git cherry-pick -x` adds "(cherry picked from commit ...)"
// to the trailer paragraph; the picked memory's history still reads the
// reason and the client from the trailers.
func TestCherryPickKeepsTheReason(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	tc := newTeamClones(t)
	const reason = "the outage of March: one approval let a broken migration through"
	tc.git(tc.mine, "checkout", "-q", "-b", "hotfix")
	tc.git(tc.mine, "checkout", "-q", "-b", "rules")
	tc.memvault(tc.mine, "add", "Deploys need two approvals", "--content", "Two people approve each deploy.", "--reason", reason)
	id := tc.idOf(tc.mine, "Deploys need two approvals")
	tc.git(tc.mine, "checkout", "-q", "hotfix")
	tc.git(tc.mine, "cherry-pick", "-x", "rules")
	if msg := tc.git(tc.mine, "log", "-1", "--format=%B"); !strings.Contains(msg, "Memory-Client: cli\n(cherry picked from commit ") {
		t.Fatalf("git did not add its note to the trailers:\n%s", msg)
	}
	var h view.History
	if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "history", id, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Revisions) != 1 || h.Revisions[0].Reason != reason || h.Revisions[0].Client != "cli" {
		t.Errorf("history of the picked memory: %+v\nwant one revision, reason %q, client cli", h.Revisions, reason)
	}
}
