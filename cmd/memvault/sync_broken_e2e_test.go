package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// sharedTeam is a bare origin with clone a (memvault, its vault set up
// and pushed) and clone b, a teammate who never installed memvault and
// edits memory files by hand with git.
func sharedTeam(t *testing.T) (origin string, a, b *teamClone) {
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
			origin, a, b := sharedTeam(t)
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

// TestTeamServerRecoversFromABrokenFile (issue 24 finding 1, issue 27
// finding 4): a teammate without memvault pushes a memory file that does
// not parse to the origin of a team server (serve --pull-interval
// --push). The server logs an ERROR naming the file and its fix, and
// memory_stats and memory://context show it; every write through the
// server still reaches origin, before Bob's fix and after it, which the
// server brings in by itself, without a restart.
func TestTeamServerRecoversFromABrokenFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, runs git and a server")
	}
	bin := buildMemvault(t)
	origin, a, b := sharedTeam(t)
	a.add("Deploys need two approvals", "Two people approve every deploy.\n", "--importance", "8")
	a.memvault("sync")
	var log lockedBuffer
	s, mark := startTeamServer(t, bin, a, &log)

	// remember writes through the server and waits until origin has the
	// commit, woken by each push the server logs.
	remember := func(title string) {
		t.Helper()
		var w view.Write
		s.ok("remember", map[string]any{"title": title, "content": title + ".", "reason": "test"}, &w)
		for !inOrigin(t, origin, w.Commit) {
			mark = log.waitFor(t, mark, "pushed=true")
		}
	}

	rel := ".memory/project/deploys-need-two-approvals.md"
	good := handCommit(t, b, rel, func(s string) string {
		return strings.Replace(s, "title: Deploys need two approvals", "title: Deploys: two approvals", 1)
	}, "deploys: shorter title")
	mark = log.waitFor(t, mark, `level=ERROR msg="memory file has an error; left out of what sync commits, the rest syncs"`)
	if text := log.String(); !strings.Contains(text, "file=project/deploys-need-two-approvals.md line=3") || !strings.Contains(text, `fix="quote the title: title: \"Deploys: two approvals\", then commit"`) || !strings.Contains(text, "author=\"Bob <bob@example.com>\"") {
		t.Errorf("the ERROR line lacks the fix or the author:\n%s", text)
	}
	var st view.Stats
	s.ok("memory_stats", map[string]any{}, &st)
	if st.Sync == nil || len(st.Sync.Broken) != 1 || !strings.Contains(st.Sync.Broken[0], "deploys-need-two-approvals.md:3") {
		t.Errorf("memory_stats' sync: %+v", st.Sync)
	}
	if st.GitObjects == nil || st.GitObjects.Loose == 0 || st.GitObjects.GCAuto != 6700 {
		t.Errorf("memory_stats' git objects: %+v", st.GitObjects)
	}
	if ctx := readResource(t, s, "memory://context"); !strings.Contains(ctx, "## Team sync") || !strings.Contains(ctx, "quote the title") {
		t.Errorf("memory://context does not say the sync left a file out:\n%s", ctx)
	}
	for _, title := range []string{"Money is int64 cents", "Refunds are manual", "Flags live in flags.yaml"} {
		remember(title)
	}

	handCommit(t, b, rel, func(string) string { return good }, "deploys: fix the front matter")
	mark = log.waitFor(t, mark, "memory file fixed")
	for _, title := range []string{"Retries use exponential backoff", "Logs are JSON", "Migrations run in CI"} {
		remember(title)
	}
	var after view.Stats
	s.ok("memory_stats", map[string]any{}, &after)
	if after.Sync == nil || !after.Sync.OK || len(after.Sync.Broken) != 0 {
		t.Errorf("memory_stats after the fix: %+v", after.Sync)
	}
	if ctx := readResource(t, s, "memory://context"); strings.Contains(ctx, "## Team sync") {
		t.Errorf("memory://context still reports the sync after the fix:\n%s", ctx)
	}
}
