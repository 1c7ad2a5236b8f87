package mcpserver

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// TestToolErrorPaths checks each tool's refusals: an isError result whose
// text names the argument or the problem, never a protocol error, and no
// commit.
func TestToolErrorPaths(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	w := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Use tabs", "content": "Indent with tabs."})
	missing := "01NOSUCHMEMORY0000000000000"
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"recall", map[string]any{"bogus": 1}, "bogus: unknown argument; this tool accepts as_of, explain, include_inactive, k, layers, limit, q, query, since, tags, top_k"},
		{"recall", map[string]any{"query": 5}, "query: want a string"},
		{"recall", map[string]any{"query": "a", "q": "b"}, `query: given twice (as "query" and "q")`},
		{"recall", map[string]any{"k": 2, "top_k": 3}, `limit: given twice (as "k" and "top_k")`},
		{"recall", map[string]any{"top_k": 0}, "top_k: 0 is outside 1..50"},
		{"recall", map[string]any{"limit": "5"}, `limit: want a JSON number, got the string "5"`},
		{"recall", map[string]any{"limit": 2.5}, "limit: want a whole number, got 2.5"},
		{"recall", map[string]any{"layers": "L9"}, "layers: want a list"},
		{"recall", map[string]any{"layers": []any{"L9"}}, `layers[0]: "L9" is not one of transient, short-term, project, preference, meta, L1`},
		{"recall", map[string]any{"tags": "a,b"}, `tags: want a list (a JSON array, e.g. ["a", "b"]), got the string "a,b"`},
		{"recall", map[string]any{"since": "soon"}, "since:"},
		{"recall", map[string]any{"include_inactive": "true"}, `include_inactive: want true or false (a JSON boolean), got the string "true"`},
		{"remember", map[string]any{"title": "t", "content": "c", "bogus": true}, "bogus: unknown argument"},
		{"remember", map[string]any{"title": "t"}, "content: required"},
		{"remember", map[string]any{"title": " ", "content": "c"}, "title: must not be empty"},
		{"remember", map[string]any{"title": "t", "content": "c", "scope": "team"}, `scope: "team" is not one of project or user`},
		{"remember", map[string]any{"title": "t", "content": "c", "scope": "USER"}, `scope: "USER" is not one of project or user`},
		{"remember", map[string]any{"title": "t", "content": "c", "scope": "user"}, "scope: no user vault"},
		{"remember", map[string]any{"title": "t", "content": "c", "effective_at": "later"}, "effective_at:"},
		{"remember", map[string]any{"title": "t", "content": "c", "tags": []any{1}}, "tags[0]: want a string, got the number 1"},
		{"remember", map[string]any{"title": "t", "content": "c", "importance": "7"}, `importance: want a JSON number, got the string "7"`},
		{"remember", map[string]any{"title": "AWS key", "content": "aws_access_key_id = AKIAUJZDEGXDNCF32EPF"}, "secret"},
		{"get_memory", map[string]any{}, "id: required"},
		{"get_memory", map[string]any{"id": missing}, "not found"},
		{"get_memory", map[string]any{"id": w.ID, "version": 1}, "version: unknown argument; this tool accepts id"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1}, "reason: required"},
		{"update_memory", map[string]any{"id": w.ID, "reason": "r"}, "expected_version: required"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 3, "content": "x", "reason": "r"}, "expected_version"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": "1", "content": "x", "reason": "r"}, "expected_version: want a JSON number"},
		{"update_memory", map[string]any{"id": missing, "expected_version": 1, "content": "x", "reason": "r"}, "not found"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "colour": "red", "reason": "r"}, "colour: unknown argument"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "importance": 0, "reason": "r"}, "importance: 0 is outside 1..10"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "expires_at": "someday", "reason": "r"}, "expires_at:"},
		{"forget", map[string]any{"id": w.ID}, "reason: required"},
		{"forget", map[string]any{"id": missing, "reason": "r"}, "not found"},
		{"forget", map[string]any{"id": w.ID, "reason": "r", "delete": "yes please"}, "delete: want true or false"},
		{"forget", map[string]any{"id": w.ID, "reason": "r", "purge": true}, "purge: unknown argument"},
		{"list_memories", map[string]any{"statuses": []any{"gone"}}, `statuses[0]: "gone" is not one of active, archived, superseded, expired or future`},
		{"list_memories", map[string]any{"limit": 201}, "limit: 201 is outside 1..200"},
		{"memory_history", map[string]any{}, "id: required"},
		{"memory_history", map[string]any{"id": missing}, "not found"},
		{"memory_history", map[string]any{"id": w.ID, "limit": 3}, "limit: unknown argument"},
		{"memory_stats", map[string]any{"verbose": true}, "verbose: unknown argument; this tool takes none"},
	}
	before := ts.project.commits.count()
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.want, func(t *testing.T) {
			res, text := callTool(t, ts.c, tc.tool, tc.args)
			if !res.IsError {
				t.Fatalf("%s(%v) = %q, want isError", tc.tool, tc.args, text)
			}
			if !strings.Contains(text, tc.want) {
				t.Errorf("%s(%v): error %q does not say %q", tc.tool, tc.args, text, tc.want)
			}
			if strings.Contains(text, "AKIAUJZDEGXDNCF32EPF") {
				t.Errorf("error %q repeats the secret", text)
			}
		})
	}
	if got := ts.project.commits.count(); got != before {
		t.Errorf("commits: %d after refused calls, want %d", got, before)
	}
}

func TestRememberScope(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{user: true})
	tests := []struct {
		name      string
		args      map[string]any
		wantVault string
	}{
		{"preference goes to the user vault", map[string]any{"layer": "preference"}, vault.UserVault},
		{"preference with scope project", map[string]any{"layer": "preference", "scope": "project"}, vault.ProjectVault},
		{"project rule", map[string]any{}, vault.ProjectVault},
		{"project rule with scope user", map[string]any{"scope": "user"}, vault.UserVault},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"title": "Rule " + string(rune('A'+i)), "content": "Body " + tc.name}
			for k, v := range tc.args {
				args[k] = v
			}
			pc, uc := ts.project.commits.count(), ts.user.commits.count()
			w := mustCall[view.Write](t, ts.c, "remember", args)
			if w.Vault != tc.wantVault {
				t.Errorf("vault = %q, want %q", w.Vault, tc.wantVault)
			}
			wantP, wantU := pc+1, uc
			if tc.wantVault == vault.UserVault {
				wantP, wantU = pc, uc+1
			}
			if p, u := ts.project.commits.count(), ts.user.commits.count(); p != wantP || u != wantU {
				t.Errorf("commits: project %d, user %d; want %d, %d", p, u, wantP, wantU)
			}
		})
	}
	t.Run("near-duplicates are refused within the target vault only", func(t *testing.T) {
		a := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Prefer short answers", "content": "Keep answers short.", "layer": "preference"})
		b := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Prefer short answers!", "content": "Keep answers short here.", "layer": "preference", "scope": "project"})
		if b.ID == a.ID || b.Vault != vault.ProjectVault {
			t.Errorf("remember in the project vault = %+v, want a new project memory, not a refusal because of the user vault's %s", b, a.ID)
		}
	})
}

// TestRememberSupersedesInBothVaults checks remember's supersedes list
// naming memories of both vaults: the target vault's own one is marked
// superseded as vault.Create would, the other vault's is recorded only,
// and an id no vault holds is refused without a commit.
func TestRememberSupersedesInBothVaults(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{user: true})
	own := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Lint with flake8", "content": "Run flake8 before committing."})
	pref := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Prefer pylint", "content": "Lint Python with pylint.", "layer": "preference"})
	projectBefore, userBefore := ts.project.commits.count(), ts.user.commits.count()
	both := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Lint with ruff", "content": "Run ruff check; it replaces flake8 and pylint here.",
		"supersedes": []any{own.ID, pref.ID}, "reason": "ruff is faster"})
	if both.Vault != vault.ProjectVault || !slices.Equal(both.Superseded, []string{own.ID}) {
		t.Errorf("remember = %+v, want a project memory that marked only %s superseded", both, own.ID)
	}
	// One commit in the project's repository, atomic there; none in the
	// user's.
	if p, u := ts.project.commits.count()-projectBefore, ts.user.commits.count()-userBefore; p != 1 || u != 0 {
		t.Errorf("commits: project %d, user %d; want 1 and 0", p, u)
	}
	for _, tc := range []struct {
		id, status string
		version    int
	}{{own.ID, "superseded", 2}, {pref.ID, "active", 1}} {
		if m := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": tc.id}); m.Status != tc.status || m.Version != tc.version {
			t.Errorf("%s: status %s version %d, want %s %d", tc.id, m.Status, m.Version, tc.status, tc.version)
		}
	}
	out := mustCall[view.Recall](t, ts.c, "recall", map[string]any{"query": "lint flake8 pylint ruff"})
	if len(out.Results) != 1 || out.Results[0].ID != both.ID || !slices.Equal(refIDs(out.Results[0].Supersedes), []string{own.ID, pref.ID}) {
		t.Errorf("recall = %+v, want only %s, superseding both", out.Results, both.ID)
	}
	before := ts.project.commits.count()
	res, text := callTool(t, ts.c, "remember", map[string]any{"title": "Lint nothing", "content": "x",
		"supersedes": []any{pref.ID, "01NOSUCHMEMORY0000000000000"}})
	if !res.IsError || !strings.Contains(text, "not found") {
		t.Errorf("remember superseding an unknown id = %q, want not found", text)
	}
	if got := ts.project.commits.count(); got != before {
		t.Errorf("commits after a refused remember: %d, want %d", got, before)
	}
}

// TestUpdateMemoryChangesWhatIsGiven updates each field update_memory
// takes, as CLI update does: the fields given change, the others stay,
// and an empty effective_at or expires_at removes it.
func TestUpdateMemoryChangesWhatIsGiven(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	other := ts.project.add(t, vault.NewMemory{Title: "Old deploy rule", Content: "Deploy by hand."})
	linked := ts.project.add(t, vault.NewMemory{Title: "Release checklist", Content: "Tag, build, publish."})
	w := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Deploy with the script", "content": "Run ops/deploy.sh.",
		"tags": []any{"ops"}, "effective_at": "2026-11-01", "expires_at": "2027-06-01"})
	version := w.Version
	tests := []struct {
		name  string
		args  map[string]any
		check func(m view.Memory) bool
	}{
		{"title", map[string]any{"title": "Deploy with ops/deploy.sh"}, func(m view.Memory) bool { return m.Title == "Deploy with ops/deploy.sh" }},
		{"content", map[string]any{"content": "Run ops/deploy.sh --canary."}, func(m view.Memory) bool { return m.Body == "Run ops/deploy.sh --canary.\n" }},
		{"tags", map[string]any{"tags": []any{"ops", "deploy"}}, func(m view.Memory) bool { return slices.Equal(m.Tags, []string{"ops", "deploy"}) }},
		{"importance", map[string]any{"importance": 8}, func(m view.Memory) bool { return m.Importance == 8 }},
		{"supersedes", map[string]any{"supersedes": []any{other}}, func(m view.Memory) bool { return slices.Equal(m.Supersedes, []string{other}) }},
		{"links", map[string]any{"links": []any{linked}}, func(m view.Memory) bool { return slices.Equal(m.Links, []string{linked}) }},
		{"expires_at", map[string]any{"expires_at": "2027-12-31"}, func(m view.Memory) bool { return m.ExpiresAt == "2027-12-31T00:00:00Z" }},
		{"empty expires_at removes it", map[string]any{"expires_at": ""}, func(m view.Memory) bool { return m.ExpiresAt == "" }},
		{"empty effective_at removes it", map[string]any{"effective_at": ""}, func(m view.Memory) bool { return m.EffectiveAt == "" }},
		{"layer", map[string]any{"layer": "short-term"}, func(m view.Memory) bool { return m.Layer == "short-term" && strings.HasPrefix(m.Path, "short-term/") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": w.ID})
			args := map[string]any{"id": w.ID, "expected_version": version, "reason": "test " + tc.name}
			for k, v := range tc.args {
				args[k] = v
			}
			u := mustCall[view.Write](t, ts.c, "update_memory", args)
			version = u.Version
			m := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": w.ID})
			if !tc.check(m) || u.Version != before.Version+1 {
				t.Errorf("after %v: %+v (version %d, was %d)", tc.args, m, u.Version, before.Version)
			}
			if m.Title != before.Title && tc.name != "title" {
				t.Errorf("title changed to %q by an update of %s", m.Title, tc.name)
			}
		})
	}
	if msg := ts.project.commits.last(); !strings.Contains(msg, "test layer") {
		t.Errorf("last commit does not carry the reason:\n%s", msg)
	}
}

// TestListMemories lists by layer, state and tag, newest first, with the
// readable text within its budget.
func TestListMemories(t *testing.T) {
	t.Parallel()
	clock := newClock(t0)
	ts := newTestServer(t, clock, serverOptions{user: true})
	step := func() { clock.set(clock.Now().Add(time.Minute)) }
	pref := ts.user.add(t, vault.NewMemory{Title: "Prefer pytest", Content: "Use pytest.", Layer: vault.Preference, Tags: []string{"testing"}})
	step()
	rule := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Use unittest here", "content": "CI has no pytest.",
		"tags": []any{"testing"}, "supersedes": []any{pref}})
	step()
	task := ts.project.add(t, vault.NewMemory{Title: "Migrating auth", Content: "Half done.", Layer: vault.ShortTerm})
	step()
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"everything", map[string]any{}, []string{task, rule.ID, pref}},
		{"active", map[string]any{"statuses": []any{"active"}}, []string{task, rule.ID}},
		{"superseded across vaults", map[string]any{"statuses": []any{"superseded"}}, []string{pref}},
		{"layer", map[string]any{"layers": []any{"short-term"}}, []string{task}},
		{"tag", map[string]any{"tags": []any{"testing"}}, []string{rule.ID, pref}},
		{"limit", map[string]any{"limit": 1}, []string{task}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, text := callTool(t, ts.c, "list_memories", tc.args)
			if res.IsError {
				t.Fatal(text)
			}
			var out view.Recall
			decodeStructured(t, res, &out)
			if got := ids(out.Results); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for _, id := range tc.want {
				if !strings.Contains(text, "id="+id) {
					t.Errorf("text lacks %s:\n%s", id, text)
				}
			}
			if tc.name == "limit" && !strings.Contains(text, "more memories match") {
				t.Errorf("text does not say more match:\n%s", text)
			}
		})
	}
	out := mustCall[view.Recall](t, ts.c, "list_memories", map[string]any{"tags": []any{"testing"}})
	if r := out.Results[1]; r.Status != "superseded" || r.Vault != vault.UserVault || !slices.Equal(refIDs(r.SupersededBy), []string{rule.ID}) {
		t.Errorf("the preference: %+v, want superseded in the user vault by %s", r, rule.ID)
	}
}

// TestMemoryHistoryAcrossVaults asks for the story of memories in either
// vault, and of one deleted from the user vault that only its history
// knows.
func TestMemoryHistoryAcrossVaults(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{user: true})
	pref := ts.user.add(t, vault.NewMemory{Title: "Prefer pytest", Content: "Use pytest.", Layer: vault.Preference})
	ts.user.stories["01DELETED"] = &history.Story{ID: "01DELETED", Title: "Answer tersely", Path: "preferences/answer-tersely.md",
		Revisions: []history.Revision{{Commit: strings.Repeat("c", 40), Date: t0, Author: "Ada", Client: "claude-code", Kind: "deleted",
			Reason: "changed\ntheir mind", Path: "preferences/answer-tersely.md"}}}
	rule := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Use unittest here", "content": "CI has no pytest.", "supersedes": []any{pref}})

	h := mustCall[view.History](t, ts.c, "memory_history", map[string]any{"id": pref})
	if h.Vault != vault.UserVault || h.Title != "Prefer pytest" || !slices.Equal(h.SupersededBy, []string{rule.ID}) {
		t.Errorf("history of the preference: %+v, want the user vault's, superseded by %s", h, rule.ID)
	}
	res, text := callTool(t, ts.c, "memory_history", map[string]any{"id": "01DELETED"})
	if res.IsError {
		t.Fatal(text)
	}
	decodeStructured(t, res, &h)
	if h.Vault != vault.UserVault || len(h.Revisions) != 1 || h.Revisions[0].Kind != "deleted" || h.Revisions[0].Summary != "deleted" {
		t.Errorf("history of the deleted memory: %+v", h)
	}
	for _, want := range []string{"Answer tersely (01DELETED)", "ccccccc by Ada via claude-code: deleted; why: changed their mind"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}
