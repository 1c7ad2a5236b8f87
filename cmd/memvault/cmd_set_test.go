package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
)

// withUserVault creates ~/.memvault as a git repository in the HOME r
// runs memvault with and returns its folder.
func withUserVault(t *testing.T, r *cliRepo) string {
	t.Helper()
	dir := filepath.Join(r.home, userVaultName)
	s, err := gitstore.Init(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return dir
}

// addJSON is add --json's output.
type addJSON struct {
	ID, Path, Vault, Commit string
	Version                 int
}

func decodeJSON[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

// recallJSONOut is recall --json's output, with the fields these tests
// read.
type recallJSONOut struct {
	Results []struct {
		ID, Status, Vault string
		Supersedes        []struct{ ID, Title string }
		SupersededBy      []struct{ ID string } `json:"superseded_by"`
	}
}

// TestCLIWorksOnTheSetOfVaults checks that add and recall use the user
// vault as the MCP tools do: preferences go there, a project rule may
// supersede one (one commit, in the project's repository), recall ranks
// and labels both, and a same title is refused with what to do.
func TestCLIWorksOnTheSetOfVaults(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	user := withUserVault(t, r)

	pref := decodeJSON[addJSON](t, r.ok("add", "Prefer pytest for tests", "--layer", "preference", "--tags", "testing",
		"--content", "Write and run tests with pytest.", "--json"))
	if pref.Vault != userScope || pref.Commit == "" {
		t.Fatalf("preference: %+v, want a commit in the user vault", pref)
	}
	if !strings.Contains(r.lastStderr, "written to the user vault "+user) {
		t.Errorf("stderr %q does not say the user vault was written", r.lastStderr)
	}
	prefFile := filepath.Join(user, filepath.FromSlash(pref.Path))
	prefBytes, err := os.ReadFile(prefFile)
	if err != nil {
		t.Fatalf("the preference is not in the user vault: %v", err)
	}
	if cs := repoCommits(t, user); len(cs) != 1 || cs[0].Hash != pref.Commit {
		t.Errorf("user vault commits %+v, want the add's", cs)
	}
	if cs := repoCommits(t, r.root); len(cs) != 0 {
		t.Errorf("project commits after adding a preference: %d, want 0", len(cs))
	}

	rule := decodeJSON[addJSON](t, r.ok("add", "Use unittest in this repository", "--tags", "testing", "--supersedes", pref.ID,
		"--content", "This repository's tests use unittest: the CI image has no pytest.", "--reason", "CI has no pytest", "--json"))
	if rule.Vault != projectScope {
		t.Fatalf("rule: %+v, want the project vault", rule)
	}
	if cs := repoCommits(t, r.root); len(cs) != 1 || cs[0].Hash != rule.Commit || !strings.Contains(cs[0].Message, "Memory-Supersedes: "+pref.ID) {
		t.Errorf("project commits %+v, want one, the add's, naming %s superseded", cs, pref.ID)
	}
	if b, err := os.ReadFile(prefFile); err != nil || string(b) != string(prefBytes) || len(repoCommits(t, user)) != 1 {
		t.Errorf("the user vault changed: %v\n%s", err, b)
	}

	t.Run("recall applies the supersession across the vaults", func(t *testing.T) {
		out := decodeJSON[recallJSONOut](t, r.ok("recall", "tests pytest unittest", "--json"))
		if len(out.Results) == 0 || out.Results[0].ID != rule.ID || out.Results[0].Vault != projectScope {
			t.Fatalf("recall = %+v, want %s from the project first", out.Results, rule.ID)
		}
		if s := out.Results[0].Supersedes; len(s) != 1 || s[0].ID != pref.ID || s[0].Title != "Prefer pytest for tests" {
			t.Errorf("supersedes %+v, want the preference with its title", s)
		}
		for _, x := range out.Results {
			if x.ID == pref.ID {
				t.Errorf("the superseded preference is recalled: %+v", x)
			}
		}
		out = decodeJSON[recallJSONOut](t, r.ok("recall", "tests pytest unittest", "--json", "--include-inactive"))
		found := false
		for _, x := range out.Results {
			if x.ID == pref.ID {
				found = true
				if x.Status != "superseded" || x.Vault != userScope || len(x.SupersededBy) != 1 || x.SupersededBy[0].ID != rule.ID {
					t.Errorf("preference %+v, want superseded by %s, in the user vault", x, rule.ID)
				}
			}
		}
		if !found {
			t.Errorf("--include-inactive lacks the preference: %+v", out.Results)
		}
		text := r.ok("recall", "tests pytest unittest", "--include-inactive")
		if !strings.Contains(text, pref.Path+" (user vault)") {
			t.Errorf("text output does not say where the preference lives:\n%s", text)
		}
	})

	t.Run("a same title is refused with what to do", func(t *testing.T) {
		code, _ := r.run("", "add", "Use unittest in this repository!", "--content", "Again.")
		if code != exitUsage {
			t.Fatalf("exit %d, want %d", code, exitUsage)
		}
		for _, want := range []string{rule.ID, "version 1", "memvault update " + rule.ID + " --expected-version 1", "--supersedes " + rule.ID} {
			if !strings.Contains(r.lastStderr, want) {
				t.Errorf("stderr %q lacks %q", r.lastStderr, want)
			}
		}
		if cs := repoCommits(t, r.root); len(cs) != 1 {
			t.Errorf("project commits: %d, want 1 (nothing written)", len(cs))
		}
	})

	t.Run("scope", func(t *testing.T) {
		kept := decodeJSON[addJSON](t, r.ok("add", "Answer briefly", "--layer", "preference", "--scope", "project", "--content", "Short answers.", "--json"))
		if kept.Vault != projectScope {
			t.Errorf("--scope project: %+v, want the project vault", kept)
		}
		code, _ := r.run("", "add", "Answer in Chinese", "--scope", "user", "--no-user-vault", "--content", "用中文回答。")
		if code != exitUsage || !strings.Contains(r.lastStderr, "scope: no user vault") || !strings.Contains(r.lastStderr, "--user-vault DIR") {
			t.Errorf("--scope user without a user vault: exit %d, %q", code, r.lastStderr)
		}
		code, _ = r.run("", "add", "Answer in Chinese", "--scope", "team", "--content", "用中文回答。")
		if code != exitUsage || !strings.Contains(r.lastStderr, "scope: want project or user") {
			t.Errorf("--scope team: exit %d, %q", code, r.lastStderr)
		}
		// Without the user vault every result is the project's (view.RecallResult always names its vault).
		out := decodeJSON[recallJSONOut](t, r.ok("recall", "answer", "--json", "--no-user-vault"))
		if len(out.Results) == 0 {
			t.Fatal("recall of the project vault alone found nothing")
		}
		for _, x := range out.Results {
			if x.Vault != projectScope {
				t.Errorf("recall of the project vault alone: %+v, want vault %q", x, projectScope)
			}
		}
	})
}

// TestRecallAsOfFromNowOnKeepsTransientMemories asks both doors what
// applies in a minute: the transient note written a minute ago (never
// committed) is in it; an as-of in the past reads git, where it is not.
func TestRecallAsOfFromNowOnKeepsTransientMemories(t *testing.T) {
	t.Parallel()
	at := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	t.Run("cli", func(t *testing.T) {
		r := newCLIRepo(t)
		r.ok("add", "Flaky tests go to quarantine", "--content", "Mark flaky tests and move them to quarantine.")
		r.tick(2 * time.Minute)
		note := strings.TrimSpace(r.ok("add", "Flaky test in checkout", "--layer", "transient", "--content", "TestCheckout is flaky today: quarantine it."))
		r.tick(time.Minute)
		for _, tc := range []struct {
			asOf string
			want bool
		}{
			{"", true},
			{at(r.now), true},
			{at(r.now.Add(time.Minute)), true},
			{at(r.now.Add(-30 * time.Second)), false}, // the recorded past: never committed
		} {
			args := []string{"flaky quarantine"}
			if tc.asOf != "" {
				args = append(args, "--as-of", tc.asOf)
			}
			if got := slices.Contains(recallIDs(t, r, args...), note); got != tc.want {
				t.Errorf("recall --as-of %q: note present %v, want %v (stderr %q)", tc.asOf, got, tc.want, r.lastStderr)
			}
		}
	})
	t.Run("mcp", func(t *testing.T) {
		clock := &testClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
		g := newGitServer(t, clock)
		g.callT = t
		g.ok("remember", map[string]any{"title": "Flaky tests go to quarantine", "content": "Mark flaky tests and move them to quarantine."}, nil)
		clock.set(clock.Now().Add(2 * time.Minute))
		var note view.Write
		g.ok("remember", map[string]any{"title": "Flaky test in checkout", "content": "TestCheckout is flaky today: quarantine it.", "layer": "transient"}, &note)
		clock.set(clock.Now().Add(time.Minute))
		now := clock.Now()
		for _, tc := range []struct {
			asOf string
			want bool
		}{
			{"", true},
			{at(now), true},
			{at(now.Add(time.Minute)), true},
			{at(now.Add(-30 * time.Second)), false},
		} {
			args := map[string]any{"query": "flaky quarantine"}
			if tc.asOf != "" {
				args["as_of"] = tc.asOf
			}
			var out view.Recall
			g.ok("recall", args, &out)
			got := slices.ContainsFunc(out.Results, func(r view.RecallResult) bool { return r.ID == note.ID })
			if got != tc.want {
				t.Errorf("recall as_of %q: note present %v, want %v", tc.asOf, got, tc.want)
			}
		}
	})
}
