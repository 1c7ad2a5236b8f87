package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// hook runs `memvault hook <event>` in the clone with the event on stdin
// and returns its output.
func (r *mergeRepo) hook(event string, fields map[string]string) string {
	r.t.Helper()
	fields["cwd"], fields["session_id"] = r.root, "e2e"
	in, err := json.Marshal(fields)
	if err != nil {
		r.t.Fatal(err)
	}
	cmd := exec.Command(buildMemvault(r.t), "hook", event, "--no-user-vault")
	cmd.Dir, cmd.Stdin = r.root, strings.NewReader(string(in))
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("memvault hook %s: %v\n%s", event, err, out)
	}
	return string(out)
}

// jsonOf runs memvault with --json and decodes its output into out.
func (r *mergeRepo) jsonOf(out any, args ...string) {
	r.t.Helper()
	if err := json.Unmarshal([]byte(r.must(append(args, "--json")...)), out); err != nil {
		r.t.Fatalf("memvault %s --json: %v", strings.Join(args, " "), err)
	}
}

// failing runs memvault, wants exit 1, and returns its output.
func (r *mergeRepo) failing(args ...string) string {
	r.t.Helper()
	code, out := r.memvault(args...)
	if code != 1 {
		r.t.Errorf("memvault %s: exit %d, want 1\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// teammateCommits is a teammate without memvault: files written by hand,
// committed with plain git (hooks skipped) and pushed.
func teammateCommits(tm *team, msg string, files map[string]string) {
	tm.t.Helper()
	bob := tm.clone()
	bob.git("config", "user.name", "Bob")
	for rel, content := range files {
		bob.write(rel, content)
	}
	bob.git("add", "-A")
	bob.git("commit", "-q", "--no-verify", "-m", msg)
	bob.git("push", "-q", "origin", "HEAD")
}

// newTeamWithMemvault is a bare origin and Alice's clone, with an
// initialised vault pushed.
func newTeamWithMemvault(t *testing.T) (*team, *mergeRepo) {
	t.Helper()
	tm := newTeam(t)
	alice := tm.clone()
	alice.must("init")
	alice.git("add", "-A")
	alice.git("commit", "-q", "-m", "memvault init")
	return tm, alice
}

// TestDamagedFileIsServedAsItsLastGoodVersion is issue 24's finding 2,
// end to end: a teammate without memvault commits
// `title: Deploys: two approvals` (a colon in an unquoted value) and Alice
// pulls with git. Every door serves the memory as its last committed
// version that parsed, under its own id, labelled damaged (recall, list,
// show, history, MCP get_memory and memory://context, both assistant
// hooks); lint and doctor name the file, line and fix. A file that never
// parsed in any commit is reported and not served. Before the fix the
// memory came back under a path id with the file name as title.
func TestDamagedFileIsServedAsItsLastGoodVersion(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the end-to-end run of vault's TestDamagedFileServesItsLastGoodVersion (about 40 processes); runs without -short, as CI does")
	}
	tm, alice := newTeamWithMemvault(t)
	id := alice.add("Deploys need two approvals", "Every deploy to production needs two approvals from the on-call team.",
		"--importance", "8", "--tags", "deploy")
	alice.git("push", "-q", "origin", "HEAD")
	const rel = ".memory/project/deploys-need-two-approvals.md"
	good := readFile(t, filepath.Join(alice.root, rel))
	teammateCommits(tm, "deploys: shorter title", map[string]string{
		rel:                            strings.Replace(good, "title: Deploys need two approvals", "title: Deploys: two approvals", 1),
		".memory/project/rollbacks.md": "---\ntitle: Rollbacks: one approval\n---\nA rollback needs one approval.\n",
	})
	alice.git("pull", "-q", "--no-rebase", "origin", "main")

	const label = "project/deploys-need-two-approvals.md:3: invalid front matter: mapping values are not allowed in this context"
	checkServed := func(door, gotID, title string, importance int, damaged string) {
		t.Helper()
		if gotID != id || title != "Deploys need two approvals" || importance != 8 || damaged != label {
			t.Errorf("%s: served %s %q importance %d damaged %q; want %s, its last good title, 8, labelled %q",
				door, gotID, title, importance, damaged, id, label)
		}
	}
	for _, load := range []string{"cold cache", "warm cache"} {
		var rec view.Recall
		alice.jsonOf(&rec, "recall", "how many approvals does a deploy need")
		if len(rec.Results) == 0 {
			t.Fatalf("%s: recall found nothing", load)
		}
		r := rec.Results[0]
		checkServed(load+": recall", r.ID, r.Title, r.Importance, r.Damaged)
		var list view.Recall
		alice.jsonOf(&list, "list")
		for _, r := range list.Results {
			if strings.Contains(r.Path, "rollbacks") || strings.Contains(r.Title, "rollbacks") {
				t.Errorf("%s: list serves the file that never parsed: %+v", load, r)
			}
		}
		if len(list.Results) != 1 {
			t.Errorf("%s: list = %+v, want the one memory", load, list.Results)
		} else {
			checkServed(load+": list", list.Results[0].ID, list.Results[0].Title, list.Results[0].Importance, list.Results[0].Damaged)
		}
		var show view.Memory
		alice.jsonOf(&show, "show", id)
		checkServed(load+": show", show.ID, show.Title, show.Importance, show.Damaged)
	}
	if out := alice.must("recall", "two approvals"); !strings.Contains(out, "damaged: "+label) {
		t.Errorf("recall's text has no label:\n%s", out)
	}

	var h view.History
	alice.jsonOf(&h, "history", id)
	if len(h.Revisions) != 2 || h.Revisions[0].Kind != "damaged" || h.Revisions[0].Damaged != label || len(h.Revisions[0].Changes) != 0 {
		t.Errorf("history = %+v, want the teammate's commit as damaged with no field changes", h.Revisions)
	}

	lint := alice.failing("lint")
	for _, want := range []string{
		label + "; served as its last version that parsed, from commit ",
		`fix: quote the value (line 3: title: "Deploys: two approvals"), then commit the file`,
		"project/rollbacks.md:2: invalid front matter: mapping values are not allowed in this context; not served: no committed version of it parses; fix: quote the value (line 2: title: \"Rollbacks: one approval\")",
	} {
		if !strings.Contains(lint, want) {
			t.Errorf("lint output lacks %q:\n%s", want, lint)
		}
	}
	if doctor := alice.failing("doctor"); !strings.Contains(doctor, `quote the value (line 3: title: "Deploys: two approvals")`) {
		t.Errorf("doctor does not name the fix:\n%s", doctor)
	}

	prompt := alice.hook("user-prompt-submit", map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": "how many approvals does a deploy to production need?"})
	start := alice.hook("session-start", map[string]string{"hook_event_name": "SessionStart"})
	for name, out := range map[string]string{"user-prompt-submit": prompt, "session-start": start} {
		if !strings.Contains(out, "Deploys need two approvals") || !strings.Contains(out, "damaged: project/deploys-need-two-approvals.md:3") {
			t.Errorf("hook %s: want the memory labelled damaged:\n%s", name, out)
		}
	}

	s := &mcpSession{t: t, bin: buildMemvault(t), root: alice.root}
	s.connect()
	var got view.Memory
	text := s.ok("get_memory", map[string]any{"id": id}, &got)
	checkServed("get_memory", got.ID, got.Title, got.Importance, got.Damaged)
	if !strings.Contains(text, "damaged: "+label) {
		t.Errorf("get_memory's text has no label:\n%s", text)
	}
	if ctx := readResource(t, s, "memory://context"); !strings.Contains(ctx, "Deploys need two approvals ("+id+")") || !strings.Contains(ctx, "[damaged: "+label+"]") {
		t.Errorf("memory://context does not carry the memory labelled:\n%s", ctx)
	}
}

// TestSecretFromUpstreamIsNeverServed is issue 27's finding 4, end to
// end: a teammate commits a memory holding a token with --no-verify and
// Alice pulls with git. No door serves the token: recall, list and show
// (CLI and MCP) serve the memory redacted with a label naming the file,
// memory://context and the session start likewise, the prompt hook
// withholds it; lint and doctor name the file and the fix. Before the fix
// recall printed the token. A fake value of the right shape.
func TestSecretFromUpstreamIsNeverServed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the end-to-end run of vault's TestFileWithSecretIsServedRedacted (about 40 processes); runs without -short, as CI does")
	}
	const token = "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"
	const leak = "hGAkWvj7"
	tm, alice := newTeamWithMemvault(t)
	alice.git("push", "-q", "origin", "HEAD")
	teammateCommits(tm, "ci: the bot's token", map[string]string{
		".memory/project/ci-bot.md": "---\nid: ci-bot\ntitle: CI bot credentials\nimportance: 9\ntags: [ci]\n---\nThe CI bot pushes with\n\n    GITHUB_TOKEN=" + token + "\n",
	})
	alice.git("pull", "-q", "--no-rebase", "origin", "main")

	const label = "redacted: project/ci-bot.md:9: secret detected: github-token at line 9, column 18"
	texts := map[string]string{}
	for _, load := range []string{"cold", "warm"} {
		texts[load+" recall"] = alice.must("recall", "CI bot credentials")
		texts[load+" recall --json"] = alice.must("recall", "CI bot credentials", "--json")
		texts[load+" list"] = alice.must("list")
		texts[load+" show"] = alice.must("show", "ci-bot")
		texts[load+" show --json"] = alice.must("show", "ci-bot", "--json")
	}
	texts["prompt hook"] = alice.hook("user-prompt-submit", map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": "which credentials does the CI bot push with?"})
	texts["session start"] = alice.hook("session-start", map[string]string{"hook_event_name": "SessionStart"})
	texts["lint"] = alice.failing("lint")
	texts["doctor"] = alice.failing("doctor")
	s := &mcpSession{t: t, bin: buildMemvault(t), root: alice.root}
	s.connect()
	var rec view.Recall
	texts["MCP recall"] = s.ok("recall", map[string]any{"query": "CI bot credentials"}, &rec)
	var mem view.Memory
	texts["MCP get_memory"] = s.ok("get_memory", map[string]any{"id": "ci-bot"}, &mem)
	texts["MCP list_memories"] = s.ok("list_memories", map[string]any{}, nil)
	texts["memory://context"] = readResource(t, s, "memory://context")
	if b, err := json.Marshal([]any{rec, mem}); err == nil {
		texts["MCP structuredContent"] = string(b)
	}
	for door, out := range texts {
		if strings.Contains(out, leak) {
			t.Errorf("%s serves the token:\n%s", door, out)
		}
	}
	for _, door := range []string{"cold recall", "warm recall", "warm list", "warm show", "session start", "MCP recall", "MCP get_memory", "MCP list_memories", "memory://context"} {
		if !strings.Contains(texts[door], label) {
			t.Errorf("%s has no label %q:\n%s", door, label, texts[door])
		}
	}
	if strings.Contains(texts["prompt hook"], "CI bot credentials") {
		t.Errorf("the prompt hook injects the memory:\n%s", texts["prompt hook"])
	}
	if mem.Redacted == "" || !strings.Contains(mem.Body, "[REDACTED:github-token]") {
		t.Errorf("get_memory = %+v, want the body redacted and labelled", mem)
	}
	for _, door := range []string{"lint", "doctor"} {
		if !strings.Contains(texts[door], "ci-bot.md:9: secret: secret detected: github-token at line 9, column 18; remove it") {
			t.Errorf("%s does not name the file and the fix:\n%s", door, texts[door])
		}
	}
}
