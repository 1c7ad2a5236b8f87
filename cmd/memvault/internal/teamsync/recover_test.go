package teamsync

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/gitstore"
)

// TestRecoverKilledSync (issue 27 finding 5): the states a sync killed in
// a step that changes the work tree leaves, made by hand in a real
// repository, each with the mark the step wrote; the next sync puts the
// repository back as it was before the step (the branch where it was, no
// merge under way, the user's uncommitted change kept, the half-written
// files gone) or finishes the clean-up of a step that got as far as
// moving the branch. Without a mark, a merge under way is a person's and
// the sync refuses it, as before.
func TestRecoverKilledSync(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("over 10 s on a loaded 2-core machine; runs without -short, as CI does")
	}
	for _, tc := range []struct {
		name string
		// kill makes the state in clone a, whose HEAD is head and
		// whose fetched origin/main is up, and returns the mark (zero
		// Op: none).
		kill func(t *testing.T, a, head, up string) mark
		// wantHead: "head" (as before) or "merge" (a merge commit of
		// head and up).
		wantHead   string
		wantStatus string
		refused    bool
		// wantStash is a line the stash list's top entry must hold.
		wantStash string
	}{
		{"stopped merge, during resolve", func(t *testing.T, a, head, up string) mark {
			os.WriteFile(filepath.Join(a, "notes.txt"), []byte("mine, uncommitted\n"), 0o644)
			CLI{Dir: a}.Run(t.Context(), nil, "merge", "--no-edit", "--autostash", up) // stops on shared.txt
			if gitstore.OperationIn(filepath.Join(a, ".git")) != "merge" {
				t.Fatal("the merge did not stop")
			}
			os.WriteFile(filepath.Join(a, "shared.txt"), []byte("half resolved\n"), 0o644)
			return mark{Op: opMerge, Head: head, Commit: up}
		}, "head", " M notes.txt\n", false, ""},
		{"publish, work tree half written", func(t *testing.T, a, head, up string) mark {
			c := mergeCommit(t, a, head, up)
			// git wrote theirs.txt, added by the remote, and stopped.
			os.WriteFile(filepath.Join(a, "theirs.txt"), []byte(gitIn(t, a, "show", up+":theirs.txt")), 0o644)
			return mark{Op: opPublish, Head: head, Commit: c}
		}, "head", "", false, ""},
		{"locked merge, killed in its checkout", func(t *testing.T, a, head, up string) mark {
			autostash(t, a)
			// What git merge wrote before it was killed.
			os.WriteFile(filepath.Join(a, "theirs.txt"), []byte(gitIn(t, a, "show", up+":theirs.txt")), 0o644)
			os.WriteFile(filepath.Join(a, "shared.txt"), []byte("merged, half\n"), 0o644)
			os.WriteFile(filepath.Join(a, ".git", "MERGE_MSG"), []byte("Merge\n"), 0o644)
			return mark{Op: opMerge, Head: head, Commit: up}
		}, "head", " M notes.txt\n", false, ""},
		{"locked merge, killed before git set the user's change aside", func(t *testing.T, a, head, up string) mark {
			// Uncommitted changes: to a file the remote changed too (the
			// merge would have written it), and to one only this clone
			// changed (the merge keeps it as it is).
			os.WriteFile(filepath.Join(a, "shared.txt"), []byte("mine, uncommitted\n"), 0o644)
			os.WriteFile(filepath.Join(a, "ours.txt"), []byte("mine, uncommitted\n"), 0o644)
			return mark{Op: opMerge, Head: head, Commit: up}
		}, "head", " M ours.txt\n", false, "+mine, uncommitted"},
		{"merge committed, its state files left", func(t *testing.T, a, head, up string) mark {
			c := mergeCommit(t, a, head, up)
			gitIn(t, a, "merge", "--ff-only", "-q", c)
			os.WriteFile(filepath.Join(a, ".git", "MERGE_HEAD"), []byte(up+"\n"), 0o644)
			os.WriteFile(filepath.Join(a, ".git", "MERGE_MSG"), []byte("Merge\n"), 0o644)
			return mark{Op: opMerge, Head: head, Commit: up}
		}, "merge", "", false, ""},
		{"merge committed, its autostash not yet put back", func(t *testing.T, a, head, up string) mark {
			autostash(t, a)
			gitIn(t, a, "merge", "--ff-only", "-q", mergeCommit(t, a, head, up))
			return mark{Op: opMerge, Head: head, Commit: up}
		}, "merge", " M notes.txt\n", false, ""},
		{"stopped rebase, merge backend (rebase-merge/)", func(t *testing.T, a, head, up string) mark {
			return stoppedRebase(t, a, head, up, "merge", "rebase-merge")
		}, "head", " M notes.txt\n", false, ""},
		// sync's own rebase always takes the merge backend (--empty and
		// -X imply it, whatever rebase.backend says); a rebase-apply/
		// folder recovers the same way all the same.
		{"stopped rebase, apply backend (rebase-apply/)", func(t *testing.T, a, head, up string) mark {
			return stoppedRebase(t, a, head, up, "apply", "rebase-apply")
		}, "head", " M notes.txt\n", false, ""},
		{"a person's merge, no mark", func(t *testing.T, a, head, up string) mark {
			CLI{Dir: a}.Run(t.Context(), nil, "merge", "--no-edit", up)
			return mark{}
		}, "head", "UU shared.txt\nA  theirs.txt\n", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dirs := clones(t, 2)
			a, b := dirs[0], dirs[1]
			commitFile(t, a, "notes.txt", "notes\n")
			commitFile(t, a, "shared.txt", "base\n")
			gitIn(t, a, "push", "-q", "origin", "main")
			gitIn(t, b, "pull", "-q", "origin", "main")
			commitFile(t, b, "shared.txt", "theirs\n")
			commitFile(t, b, "theirs.txt", "new on their side\n")
			gitIn(t, b, "push", "-q", "origin", "main")
			commitFile(t, a, "shared.txt", "ours\n")
			commitFile(t, a, "ours.txt", "ours\n")
			gitIn(t, a, "fetch", "-q", "origin")
			head := strings.TrimSpace(gitIn(t, a, "rev-parse", "HEAD"))
			up := strings.TrimSpace(gitIn(t, a, "rev-parse", "origin/main"))
			gitDir := filepath.Join(a, ".git")
			m := tc.kill(t, a, head, up)
			if m.Op != "" {
				m.PID = 1 << 22 // a dead process's
				if err := writeMark(gitDir, m); err != nil {
					t.Fatal(err)
				}
			}

			s := syncer(t, CLI{Dir: a})
			var rep Report
			err := s.recoverKilled(t.Context(), gitDir, &rep)
			if err == nil {
				err = inProgress(gitDir)
			}
			if tc.refused != errors.Is(err, ErrInProgress) || !tc.refused && err != nil {
				t.Fatalf("recover, then check: %v (refusal wanted: %v)", err, tc.refused)
			}
			if _, ok, _ := readMark(gitDir); ok {
				t.Error("the mark is still there")
			}
			if !tc.refused && gitstore.OperationIn(gitDir) != "" {
				t.Errorf("still a %s under way", gitstore.OperationIn(gitDir))
			}
			now := strings.TrimSpace(gitIn(t, a, "rev-parse", "HEAD"))
			switch tc.wantHead {
			case "head":
				if now != head {
					t.Errorf("HEAD %s, want %s, where it was", now, head)
				}
			case "merge":
				if parents := strings.Fields(gitIn(t, a, "log", "-1", "--format=%P")); len(parents) != 2 || parents[0] != head || parents[1] != up {
					t.Errorf("HEAD's parents %v, want %s %s", parents, head, up)
				}
			}
			if st := gitIn(t, a, "status", "--porcelain", "--untracked-files=all"); st != tc.wantStatus {
				t.Errorf("git status:\n%swant:\n%s", st, tc.wantStatus)
			}
			if tc.wantStash != "" {
				if diff, _ := (CLI{Dir: a}).Run(t.Context(), nil, "stash", "show", "-p", "stash@{0}"); !strings.Contains(diff, tc.wantStash) {
					t.Errorf("the stash list's top entry lacks %q:\n%s", tc.wantStash, diff)
				}
			}
			if f, ok := strings.CutPrefix(tc.wantStatus, " M "); ok {
				f = strings.TrimSpace(f)
				if got, _ := os.ReadFile(filepath.Join(a, f)); string(got) != "mine, uncommitted\n" {
					t.Errorf("%s = %q, want the user's change back", f, got)
				}
			}
		})
	}
}

// mergeCommit makes the merge of up into head aside, as sync does (here
// shared.txt keeps git's conflict markers), and returns it.
func mergeCommit(t *testing.T, dir, head, up string) string {
	t.Helper()
	out, _ := CLI{Dir: dir}.Run(t.Context(), nil, "merge-tree", "--write-tree", head, up) // exit 1: a conflict
	tree := strings.TrimSpace(strings.SplitN(out, "\n", 2)[0])
	return strings.TrimSpace(gitIn(t, dir, "commit-tree", tree, "-p", head, "-p", up, "-m", "merge"))
}

// autostash sets an uncommitted change to notes.txt aside as git merge
// --autostash does before it merges.
func autostash(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine, uncommitted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "update-ref", "MERGE_AUTOSTASH", strings.TrimSpace(gitIn(t, dir, "stash", "create")))
	gitIn(t, dir, "checkout", "--", "notes.txt")
}

// stoppedRebase leaves in clone a a rebase of head onto up stopped on a
// conflict, with backend (rebase.backend) and a user's change autostashed,
// as a sync --rebase killed while resolving does; folder is the state
// folder the backend must have made.
func stoppedRebase(t *testing.T, a, head, up, backend, folder string) mark {
	t.Helper()
	os.WriteFile(filepath.Join(a, "notes.txt"), []byte("mine, uncommitted\n"), 0o644)
	CLI{Dir: a}.Run(t.Context(), nil, "-c", "rebase.backend="+backend, "rebase", "--autostash", up) // stops on shared.txt
	if _, err := os.Stat(filepath.Join(a, ".git", folder)); err != nil {
		t.Fatalf("the rebase did not stop in %s: %v", folder, err)
	}
	return mark{Op: opRebase, Head: head, Commit: up}
}
