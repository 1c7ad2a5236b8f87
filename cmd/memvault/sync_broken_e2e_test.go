package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// brokenTeam is a bare origin with clone a (memvault, its vault set up
// and pushed) and clone b, a teammate who never installed memvault and
// edits memory files by hand with git.
func brokenTeam(t *testing.T) (origin string, a, b *teamClone) {
	t.Helper()
	origin = filepath.Join(t.TempDir(), "origin.git")
	(&mergeRepo{t: t, root: filepath.Dir(origin)}).git("init", "-q", "--bare", "--initial-branch=main", origin)
	a = newTeamClone(t, origin, "a")
	a.git.git("checkout", "-q", "-b", "main")
	a.memvault("init")
	a.git.git("add", "-A")
	a.git.git("commit", "-q", "-m", "memvault init")
	a.git.git("push", "-q", "-u", "origin", "main")
	b = newTeamClone(t, origin, "b")
	return origin, a, b
}

// handCommit is the teammate's edit of a memory file with plain git, as
// Bob, pushed to origin; it returns the file as it was before.
func handCommit(t *testing.T, c *teamClone, rel string, edit func(string) string, msg string) string {
	t.Helper()
	c.git.git("pull", "-q", "--no-rebase", "origin", "main")
	was := readFile(t, filepath.Join(c.git.root, filepath.FromSlash(rel)))
	c.git.write(rel, edit(was))
	c.git.git("-c", "user.name=Bob", "-c", "user.email=bob@example.com", "commit", "-q", "--no-verify", "-am", msg)
	c.git.git("push", "-q", "origin", "main")
	return was
}

// inOrigin reports whether origin's main holds commit.
func inOrigin(t *testing.T, origin, commit string) bool {
	t.Helper()
	_, ok := (&mergeRepo{t: t, root: origin}).try("merge-base", "--is-ancestor", commit, "main")
	return ok
}

// TestSyncIsNeverBlockedByOneFile (issue 24 finding 1): a teammate
// without memvault pushes a memory file that does not parse (an unquoted
// colon in the title, or conflict markers committed by mistake). A's
// sync still fetches, merges and pushes A's own memories; it names the
// file, its line, Bob's commit and the fix, and leaves A's own broken
// hand edit out of its commit. Once Bob pushes the fix, A's next sync
// brings it in and reports nothing.
func TestSyncIsNeverBlockedByOneFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs git")
	}
	for _, tc := range []struct {
		name    string
		breakIt func(string) string
		want    []string
	}{
		{"unquoted colon", func(s string) string {
			return strings.Replace(s, "title: Deploys need two approvals", "title: Deploys: two approvals", 1)
		}, []string{"deploys-need-two-approvals.md:3", `fix: quote the title: title: "Deploys: two approvals"`}},
		{"conflict markers", func(s string) string {
			return s + "<<<<<<< HEAD\nTwo people approve.\n=======\nOne person approves.\n>>>>>>> theirs\n"
		}, []string{"deploys-need-two-approvals.md:", "git conflict markers", "delete the <<<<<<< ======= >>>>>>> lines"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			origin, a, b := brokenTeam(t)
			id := a.add("Deploys need two approvals", "Two people approve every deploy.\n", "--importance", "8")
			a.memvault("sync")
			rel := ".memory/project/deploys-need-two-approvals.md"
			good := handCommit(t, b, rel, tc.breakIt, "deploys: shorter title")
			bobCommit := strings.TrimSpace(b.git.git("rev-parse", "--short", "HEAD"))

			// A's own work: a memory, and a hand edit of another one that
			// does not parse (left out of the commit, never pushed).
			a.add("Money is int64 cents", "Never float64.\n")
			a.add("Refunds are manual", "Support refunds by hand.\n")
			a.git.write(".memory/project/refunds-are-manual.md", strings.Replace(readFile(t, filepath.Join(a.git.root, ".memory/project/refunds-are-manual.md")),
				"title: Refunds are manual", "title: Refunds: manual", 1))
			code, out := a.git.memvault("sync")
			if code != 0 {
				t.Fatalf("sync with Bob's broken file upstream: exit %d\n%s", code, out)
			}
			for _, w := range append(tc.want, bobCommit+" by Bob <bob@example.com>", "from the remote",
				"refunds-are-manual.md:3", "(not committed)", `quote the title: title: "Refunds: manual"`) {
				if !strings.Contains(out, w) {
					t.Errorf("sync's report lacks %q:\n%s", w, out)
				}
			}
			head := strings.TrimSpace(a.git.git("rev-parse", "HEAD"))
			if !inOrigin(t, origin, head) {
				t.Errorf("A's memories did not reach origin:\n%s", out)
			}
			if st := a.git.git("status", "--porcelain", "--", ".memory"); !strings.Contains(st, "refunds-are-manual.md") {
				t.Errorf("A's broken hand edit was committed: status %q", st)
			}

			// Bob fixes it; A's next sync brings the fix and pushes A's next
			// memory.
			handCommit(t, b, rel, func(string) string { return good }, "deploys: fix the front matter")
			a.add("Flags live in flags.yaml", "Not in env vars.\n")
			code, out = a.git.memvault("sync")
			if code != 0 || strings.Contains(out, "deploys-need-two-approvals") {
				t.Errorf("sync after Bob's fix: exit %d, still reports the file:\n%s", code, out)
			}
			if head := strings.TrimSpace(a.git.git("rev-parse", "HEAD")); !inOrigin(t, origin, head) {
				t.Errorf("A's next memory did not reach origin:\n%s", out)
			}
			if m := a.get(id); m.Importance != 8 {
				t.Errorf("after the fix A serves importance %d", m.Importance)
			}
		})
	}
}
