package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/since"
)

// teamClones makes a bare origin and two clones of it, mine and a
// teammate's, each with its own identity; the teammate's clone holds
// the first commit (a script and a memory about it), pushed and pulled.
type teamClones struct {
	t                   *testing.T
	bin                 string
	origin, mine, their string
}

func newTeamClones(t *testing.T) *teamClones {
	t.Helper()
	base := t.TempDir()
	tc := &teamClones{t: t, bin: buildMemvault(t), origin: filepath.Join(base, "origin.git"),
		mine: filepath.Join(base, "mine"), their: filepath.Join(base, "their")}
	tc.git(base, "init", "-q", "--bare", "-b", "main", tc.origin)
	tc.git(base, "clone", "-q", tc.origin, tc.their)
	tc.git(tc.their, "config", "user.name", "Bob Teammate")
	tc.git(tc.their, "config", "user.email", "bob@example.com")
	if err := os.MkdirAll(filepath.Join(tc.their, "ops"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tc.their, "ops", "deploy.sh"), []byte("#!/bin/sh\necho deploy\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tc.git(tc.their, "add", "ops/deploy.sh")
	tc.git(tc.their, "commit", "-q", "-m", "ops: deploy script")
	tc.memvault(tc.their, "add", "Deploys run ops/deploy.sh", "--importance", "9", "--refs", "ops/deploy.sh",
		"--content", "Run `ops/deploy.sh` to deploy.", "--reason", "how we deploy today")
	tc.git(tc.their, "push", "-q", "origin", "main")
	tc.git(base, "clone", "-q", tc.origin, tc.mine)
	tc.git(tc.mine, "config", "user.name", "Ada Me")
	tc.git(tc.mine, "config", "user.email", "ada@example.com")
	tc.git(tc.mine, "config", "pull.rebase", "false")
	return tc
}

func (tc *teamClones) git(dir string, args ...string) string {
	tc.t.Helper()
	out, ok := gitCLI(tc.t, dir, args...)
	if !ok {
		tc.t.Fatalf("git %s in %s failed:\n%s", strings.Join(args, " "), dir, out)
	}
	return out
}

// memvault runs the real binary in a clone.
func (tc *teamClones) memvault(dir string, args ...string) string {
	tc.t.Helper()
	cmd := exec.CommandContext(tc.t.Context(), tc.bin, append([]string{"--vault", filepath.Join(dir, ".memory")}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		tc.t.Fatalf("memvault %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return string(out)
}

// session starts `memvault serve` on my clone, reads memory://context as
// the session start does, runs work, and ends the session.
func (tc *teamClones) session(work ...func(s *mcpSession)) string {
	tc.t.Helper()
	s := &mcpSession{t: tc.t, bin: tc.bin, root: tc.mine}
	s.connect()
	defer s.c.Close()
	ctx := readResource(tc.t, s, "memory://context")
	for _, w := range work {
		w(s)
	}
	return ctx
}

// newSection returns the lines of the context's "New since your last
// session" section, nil when there is none.
func newSection(ctx string) []string {
	_, rest, ok := strings.Cut(ctx, "\n## New since your last session")
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	var lines []string
	for _, l := range strings.Split(rest, "\n")[1:] {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// idOf finds the id of the memory titled title in a clone's vault.
func (tc *teamClones) idOf(dir, title string) string {
	tc.t.Helper()
	var list struct {
		Results []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(tc.memvault(dir, "list", "--json")), &list); err != nil {
		tc.t.Fatal(err)
	}
	for _, r := range list.Results {
		if r.Title == title {
			return r.ID
		}
	}
	tc.t.Fatalf("no memory titled %q in %s", title, dir)
	return ""
}

// TestContextSaysWhatTeammatesChanged is the acceptance test of "what
// changed since your last session": a teammate adds a memory, supersedes
// another and renames the script it names, and pushes; I commit code of
// my own and pull, which merges. My next session's memory://context
// begins with exactly those memory changes, each with the teammate and
// the reason of the commit, and the memory gone stale; the session after
// that does not repeat them, nor tell the second session's own write as
// news. The point lives in my clone's git folder and git does not see
// it.
func TestContextSaysWhatTeammatesChanged(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	tc := newTeamClones(t)
	deployID := tc.idOf(tc.mine, "Deploys run ops/deploy.sh")

	first := tc.session()
	if got := newSection(first); got != nil {
		t.Errorf("first session has a news section: %q", got)
	}
	if !strings.Contains(first, "Deploys run ops/deploy.sh") {
		t.Fatalf("first session lacks the key rule:\n%s", first)
	}

	// The teammate's work, pushed.
	tc.memvault(tc.their, "add", "Releases are tagged vYYYY.MM.N", "--importance", "9",
		"--content", "Tag releases as vYYYY.MM.N.", "--reason", "agreed at the release retro")
	tc.memvault(tc.their, "add", "Deploys go through make deploy", "--importance", "9", "--supersedes", deployID,
		"--content", "Run `make deploy`; the script moved.", "--reason", "the Makefile wraps the script now")
	tc.git(tc.their, "mv", "ops/deploy.sh", "ops/deploy-legacy.sh")
	tc.git(tc.their, "commit", "-q", "-m", "ops: keep the old script as deploy-legacy.sh")
	tc.git(tc.their, "push", "-q", "origin", "main")
	// Mine: a code commit, then a pull that merges.
	if err := os.WriteFile(filepath.Join(tc.mine, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tc.git(tc.mine, "add", "notes.txt")
	tc.git(tc.mine, "commit", "-q", "-m", "notes")
	tc.git(tc.mine, "pull", "-q", "--no-edit", "origin", "main")
	if parents := strings.Fields(tc.git(tc.mine, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Fatalf("the pull did not merge: HEAD has parents %v", parents)
	}
	tagID := tc.idOf(tc.mine, "Releases are tagged vYYYY.MM.N")
	makeID := tc.idOf(tc.mine, "Deploys go through make deploy")

	// The second session writes a memory of its own: not news to the
	// next one.
	second := tc.session(func(s *mcpSession) {
		s.ok("remember", map[string]any{"title": "Ada's scratch decision", "content": "Keep notes.txt.", "importance": 9,
			"reason": "my own session's write"}, nil)
	})
	if !strings.HasPrefix(second, "# Project memory\n\n## New since your last session (") {
		t.Errorf("second session does not begin with the news:\n%s", second)
	}
	got := newSection(second)
	want := []*regexp.Regexp{
		regexp.MustCompile(`^- Added "Deploys go through make deploy" \(` + makeID + `, project\), replacing "Deploys run ops/deploy.sh" \(` + deployID +
			`\) — Bob Teammate via cli, \d{4}-\d\d-\d\d, [0-9a-f]{7}: the Makefile wraps the script now$`),
		regexp.MustCompile(`^- Added "Releases are tagged vYYYY.MM.N" \(` + tagID + `, project\) — Bob Teammate via cli, \d{4}-\d\d-\d\d, [0-9a-f]{7}: agreed at the release retro$`),
		regexp.MustCompile(`^- Superseded "Deploys run ops/deploy.sh" \(` + deployID + `, project\) by "Deploys go through make deploy" \(` + makeID +
			`\) — Bob Teammate via cli, \d{4}-\d\d-\d\d, [0-9a-f]{7}: the Makefile wraps the script now$`),
		regexp.MustCompile(`^- Went stale: "Deploys run ops/deploy.sh" \(` + deployID + `\): ops/deploy.sh (was renamed to ops/deploy-legacy.sh|does not exist at HEAD)`),
	}
	if len(got) != len(want) {
		t.Fatalf("news section has %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, re := range want {
		if !re.MatchString(got[i]) {
			t.Errorf("news line %d = %q\nwant match %s", i, got[i], re)
		}
	}
	if !strings.Contains(second, ", 2 commits)\n") {
		t.Errorf("news heading does not count the teammate's 2 memory commits:\n%s", second)
	}

	third := tc.session()
	if got := newSection(third); got != nil {
		t.Errorf("third session repeats news: %q", got)
	}
	if !strings.Contains(third, "Deploys go through make deploy") || !strings.Contains(third, "Ada's scratch decision") {
		t.Errorf("third session lacks the new rules:\n%s", third)
	}

	// The point is local: in the git folder, never in git.
	if _, err := os.Stat(filepath.Join(tc.mine, ".git", "memvault", "session-"+e2eClientName+".json")); err != nil {
		t.Errorf("no last-seen file for the client: %v", err)
	}
	if st := tc.git(tc.mine, "status", "--porcelain", "--ignored"); strings.Contains(st, "session-") {
		t.Errorf("git status sees the point:\n%s", st)
	}
}

// TestDigestSince runs `memvault digest --since` with a date and with a
// commit (which move no point), and LAST (which does).
func TestDigestSince(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	old := r.addMemory("Old rule", "Use tabs.")
	r.tick(24 * time.Hour)
	mid, _ := r.head()
	r.tick(24 * time.Hour)
	r.ok("add", "New rule", "--content", "Use spaces.", "--supersedes", old, "--reason", "the formatter decides")

	tests := []struct {
		name, since string
		want        []string // kind:id, in order
	}{
		{"a commit", mid, []string{"added:new", "superseded:" + old}},
		{"a date before the second write", r.now.Add(-36 * time.Hour).UTC().Format(time.DateOnly + "T15:04:05Z"), []string{"added:new", "superseded:" + old}},
		// The old rule arrived in the range and is superseded at its end.
		{"a date before everything", "2000-01-01", []string{"added:new", "superseded:" + old}},
		{"HEAD", "HEAD", nil},
	}
	newID := ""
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rep since.Report
			if err := json.Unmarshal([]byte(r.ok("digest", "--since", tt.since, "--json")), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range rep.Changes {
				if c.Title == "New rule" {
					newID = c.ID
				}
				id := c.ID
				if id == newID {
					id = "new"
				}
				got = append(got, c.Kind+":"+id)
				if len(c.By) == 0 || c.By[0].Name == "" {
					t.Errorf("%s: no author", c.ID)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("changes = %v, want %v", got, tt.want)
			}
			if rep.First {
				t.Error("a named --since reported as a first session")
			}
		})
	}
	// The text form names the reason.
	if out := r.ok("digest", "--since", mid); !strings.Contains(out, "the formatter decides") || !strings.HasPrefix(out, "Memory changes since "+mid) {
		t.Errorf("digest text:\n%s", out)
	}
	// LAST: the first has nothing to compare with, the next lists what
	// came after it.
	if out := r.ok("digest"); !strings.Contains(out, "No earlier session") {
		t.Errorf("first digest:\n%s", out)
	}
	r.tick(time.Hour)
	r.ok("add", "Third rule", "--content", "Wrap at 100.", "--reason", "long lines")
	out := r.ok("digest", "--markdown")
	if !strings.HasPrefix(out, "## New since your last session") || !strings.Contains(out, `Added "Third rule"`) || strings.Contains(out, "New rule") {
		t.Errorf("second digest:\n%s", out)
	}
	if out := r.ok("digest"); !strings.Contains(out, "No memory changes since your last session.") {
		t.Errorf("third digest:\n%s", out)
	}
	if code, _ := r.run("", "digest", "--since", "no-such-rev"); code != exitUsage {
		t.Errorf("digest --since no-such-rev: exit %d, want %d (usage)\n%s", code, exitUsage, r.lastStderr)
	}
}
