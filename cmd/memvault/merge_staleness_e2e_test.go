package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault/review"
)

// TestMergedPRKeepsItsMemoriesFresh is issue 24's finding 5: a PR
// changes src/x.go and updates the memory about it; a teammate without
// memvault merges it into main by a merge commit, by `merge --squash`
// or by rebasing it onto main, each commit dated after the memory's
// write (as on a server). On main the memory is fresh, not "possibly
// stale" because main's new commits are newer than its updated_at, and
// `review` does not list it. A later change of the code on main still
// makes it possibly stale.
func TestMergedPRKeepsItsMemoriesFresh(t *testing.T) {
	t.Parallel()
	for _, style := range []string{"merge", "squash", "rebase"} {
		t.Run(style, func(t *testing.T) {
			t.Parallel()
			// Each style is about 30 git and memvault processes, 2.5 s of
			// CPU. -short keeps the rebase, where the code's commit comes
			// before the memory's; vault/staleness's
			// TestMergedVersionsAreFresh holds the rule for all three.
			if testing.Short() && style != "rebase" {
				t.Skip("-short runs the rebase style only; all three run without -short, as CI does")
			}
			tc := newTeamClones(t)
			// later runs git in the teammate's clone with commits dated an
			// hour from now: after every write of the memory.
			later := func(args ...string) { t.Helper(); gitLater(t, tc.their, time.Hour, args...) }
			write := func(rel, data string) {
				t.Helper()
				p := filepath.Join(tc.mine, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			const title = "X parses with the fast path"
			write("src/x.go", "package src\n\nfunc X() int { return 1 }\n")
			tc.git(tc.mine, "add", "src/x.go")
			tc.git(tc.mine, "commit", "-q", "-m", "src: x")
			tc.memvault(tc.mine, "add", title, "--refs", "src/x.go", "--content", "X returns 1.", "--reason", "how X works")
			id := tc.idOf(tc.mine, title)
			tc.git(tc.mine, "push", "-q", "origin", "main")

			tc.git(tc.mine, "checkout", "-q", "-b", "pr")
			write("src/x.go", "package src\n\nfunc X() int { return 2 }\n")
			tc.git(tc.mine, "commit", "-q", "-am", "src: x returns 2")
			tc.memvault(tc.mine, "update", id, "--content", "X returns 2.", "--reason", "X changed")
			tc.git(tc.mine, "push", "-q", "origin", "pr")

			tc.git(tc.their, "pull", "-q", "--no-rebase", "origin", "main")
			tc.git(tc.their, "fetch", "-q", "origin")
			switch style {
			case "merge":
				later("merge", "-q", "--no-ff", "-m", "Merge pull request #1", "origin/pr")
			case "squash":
				later("merge", "-q", "--squash", "origin/pr")
				later("commit", "-q", "-m", "X returns 2 (#1)")
			case "rebase":
				later("checkout", "-q", "-b", "pr", "origin/pr")
				later("rebase", "-q", "--force-rebase", "main")
				later("checkout", "-q", "main")
				later("merge", "-q", "--ff-only", "pr")
			}
			tc.git(tc.their, "push", "-q", "origin", "main")
			tc.git(tc.mine, "checkout", "-q", "main")
			tc.git(tc.mine, "pull", "-q", "origin", "main")

			state := func() view.Staleness {
				t.Helper()
				var m view.Memory
				if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "show", id, "--json")), &m); err != nil {
					t.Fatal(err)
				}
				if m.Staleness == nil {
					t.Fatalf("show %s: no staleness", id)
				}
				return *m.Staleness
			}
			if st := state(); st.State != "fresh" {
				t.Errorf("after the %s: %+v, want fresh", style, st)
			}
			var rep review.Report
			if err := json.Unmarshal([]byte(tc.memvault(tc.mine, "review", "--json")), &rep); err != nil {
				t.Fatal(err)
			}
			for _, e := range rep.Stale {
				if e.ID == id {
					t.Errorf("after the %s, review lists it: %+v", style, e)
				}
			}

			write("src/x.go", "package src\n\nfunc X() int { return 3 }\n")
			gitLater(t, tc.mine, 2*time.Hour, "commit", "-q", "-am", "src: x returns 3")
			if st := state(); st.State != "possibly_stale" || !strings.Contains(st.Reason, `changed in 1 commit`) || !strings.Contains(st.Reason, `"src: x returns 3"`) {
				t.Errorf("after a later change of the code: %+v, want possibly_stale naming it", st)
			}
		})
	}
}

// gitLater runs git in dir with its commits dated d from now.
func gitLater(t *testing.T, dir string, d time.Duration, args ...string) {
	t.Helper()
	date := time.Now().Add(d).Format(time.RFC3339)
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+date, "GIT_AUTHOR_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
