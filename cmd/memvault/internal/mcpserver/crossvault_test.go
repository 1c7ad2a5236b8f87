package mcpserver

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// TestSupersessionAcrossVaults serves a project and a user vault and
// checks, through the MCP handlers, that a project rule superseding a user
// preference is honoured in recall and in memory://context as it would be
// within one vault.
func TestSupersessionAcrossVaults(t *testing.T) {
	t.Parallel()
	now := t0
	clock := newClock(now)
	ts := newTestServer(t, clock, serverOptions{user: true})
	remember := func(args map[string]any) view.Write { return mustCall[view.Write](t, ts.c, "remember", args) }
	pytest := remember(map[string]any{"title": "Prefer pytest for tests", "content": "Write and run tests with pytest.",
		"layer": "preference", "tags": []any{"testing"}})
	unittest := remember(map[string]any{"title": "Use unittest in this repository", "content": "This repository's tests use unittest, not pytest: the CI image has no pytest.",
		"tags": []any{"testing"}, "supersedes": []any{pytest.ID}, "reason": "CI has no pytest"})
	english := remember(map[string]any{"title": "Answer in English", "content": "Write answers in English.", "layer": "preference"})
	chinese := remember(map[string]any{"title": "Answer in Chinese from December", "content": "From December, answer in Chinese. 用中文回答。",
		"effective_at": "2026-12-10", "supersedes": []any{english.ID}})
	tabs := remember(map[string]any{"title": "Indent with tabs", "content": "Indent code with tabs.", "layer": "preference", "tags": []any{"style"}})
	spaces := remember(map[string]any{"title": "Indent with spaces", "content": "Indent code with four spaces.", "tags": []any{"style"}, "importance": 8})

	if pytest.Vault != vault.UserVault || unittest.Vault != vault.ProjectVault || english.Vault != vault.UserVault || chinese.Vault != vault.ProjectVault ||
		tabs.Vault != vault.UserVault || spaces.Vault != vault.ProjectVault {
		t.Fatalf("vaults: %s %s %s %s %s %s; want user, project, user, project, user, project",
			pytest.Vault, unittest.Vault, english.Vault, chinese.Vault, tabs.Vault, spaces.Vault)
	}
	// The user vault's file is left alone: the project's rule applies in
	// this project only.
	if m := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": pytest.ID}); m.Status != "active" || m.Version != 1 {
		t.Errorf("user preference after the project superseded it: status %s, version %d; want active, 1 (not written)", m.Status, m.Version)
	}
	if m := mustCall[view.Memory](t, ts.c, "get_memory", map[string]any{"id": unittest.ID}); !slices.Equal(m.Supersedes, []string{pytest.ID}) {
		t.Errorf("project rule supersedes %v, want [%s]", m.Supersedes, pytest.ID)
	}

	byID := func(rs []view.RecallResult) map[string]view.RecallResult {
		out := map[string]view.RecallResult{}
		for _, r := range rs {
			out[r.ID] = r
		}
		return out
	}
	type want struct {
		present    map[string]string   // id -> status
		absent     []string            // ids not returned
		superBy    map[string][]string // id -> superseded_by
		supersedes map[string][]string // id -> supersedes
		conflicts  map[string][]string // id -> possible_conflict
		text       []string            // in the readable answer
	}
	tests := []struct {
		name string
		args map[string]any
		want want
	}{
		{"project rule supersedes the preference",
			map[string]any{"query": "tests pytest unittest"},
			want{present: map[string]string{unittest.ID: "active"}, absent: []string{pytest.ID},
				supersedes: map[string][]string{unittest.ID: {pytest.ID}},
				text:       []string{`supersedes: "Prefer pytest for tests" (` + pytest.ID + `)`}}},
		{"include_inactive shows the superseded preference",
			map[string]any{"query": "tests pytest unittest", "include_inactive": true},
			want{present: map[string]string{unittest.ID: "active", pytest.ID: "superseded"},
				superBy: map[string][]string{pytest.ID: {unittest.ID}},
				text:    []string{`superseded by: "Use unittest in this repository" (` + unittest.ID + `)`}}},
		{"a future rule does not supersede yet",
			map[string]any{"query": "answer English Chinese"},
			want{present: map[string]string{english.ID: "active"}, absent: []string{chinese.ID}}},
		{"a future rule does not supersede yet, include_inactive",
			map[string]any{"query": "answer English Chinese", "include_inactive": true},
			want{present: map[string]string{english.ID: "active", chinese.ID: "future"}, superBy: map[string][]string{english.ID: nil}}},
		{"as_of after effective_at: superseded",
			map[string]any{"query": "answer English Chinese", "as_of": "2026-12-11"},
			want{present: map[string]string{chinese.ID: "active"}, absent: []string{english.ID}}},
		{"as_of after effective_at, include_inactive",
			map[string]any{"query": "answer English Chinese", "as_of": "2026-12-11", "include_inactive": true},
			want{present: map[string]string{chinese.ID: "active", english.ID: "superseded"}, superBy: map[string][]string{english.ID: {chinese.ID}}}},
		{"rival rules across the vaults, both ways",
			map[string]any{"query": "indent tabs spaces"},
			want{present: map[string]string{tabs.ID: "active", spaces.ID: "active"},
				conflicts: map[string][]string{tabs.ID: {spaces.ID}, spaces.ID: {tabs.ID}}}},
		{"a rule and the preference it supersedes are no rivals",
			map[string]any{"query": "tests pytest unittest", "include_inactive": true},
			want{conflicts: map[string][]string{unittest.ID: {}, pytest.ID: {}}}},
		{"empty query lists recent memories without the superseded one",
			map[string]any{"limit": 50},
			want{present: map[string]string{unittest.ID: "active", english.ID: "active", tabs.ID: "active", spaces.ID: "active"},
				absent: []string{pytest.ID, chinese.ID}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, text := callTool(t, ts.c, "recall", tc.args)
			if res.IsError {
				t.Fatalf("recall(%v): %s", tc.args, text)
			}
			var out view.Recall
			decodeStructured(t, res, &out)
			got := byID(out.Results)
			for id, status := range tc.want.present {
				if r, ok := got[id]; !ok || r.Status != status {
					t.Errorf("%s: got %+v (present %v), want status %s", id, r, ok, status)
				}
			}
			for _, id := range tc.want.absent {
				if r, ok := got[id]; ok {
					t.Errorf("%s returned (%s), want it hidden", id, r.Status)
				}
			}
			for id, want := range tc.want.superBy {
				if r := got[id]; !slices.Equal(refIDs(r.SupersededBy), orNone(want)) {
					t.Errorf("%s superseded_by = %v, want %v", id, r.SupersededBy, want)
				}
			}
			for id, want := range tc.want.supersedes {
				if r := got[id]; !slices.Equal(refIDs(r.Supersedes), want) {
					t.Errorf("%s supersedes = %v, want %v", id, r.Supersedes, want)
				}
			}
			for id, want := range tc.want.conflicts {
				if r := got[id]; !slices.Equal(r.PossibleConflict, want) {
					t.Errorf("%s possible_conflict = %v, want %v", id, r.PossibleConflict, want)
				}
			}
			for _, w := range tc.want.text {
				if !strings.Contains(text, w) {
					t.Errorf("answer lacks %q:\n%s", w, text)
				}
			}
		})
	}

	t.Run("memory://context", func(t *testing.T) {
		read := func() string {
			t.Helper()
			text, err := readResource(t, ts.c, contextURI)
			if err != nil {
				t.Fatal(err)
			}
			return text
		}
		digest := read()
		for _, w := range []string{"Answer in English", "Indent with tabs", "Indent with spaces",
			"## Open conflicts", minMax(tabs.ID, spaces.ID)} {
			if !strings.Contains(digest, w) {
				t.Errorf("context lacks %q:\n%s", w, digest)
			}
		}
		if strings.Contains(digest, "Prefer pytest") {
			t.Errorf("context lists the preference the project superseded:\n%s", digest)
		}
		clock.set(time.Date(2026, 12, 11, 0, 0, 0, 0, time.UTC))
		t.Cleanup(func() { clock.set(now) })
		if digest := read(); strings.Contains(digest, "Answer in English") {
			t.Errorf("context after the project's rule took effect still lists the preference it supersedes:\n%s", digest)
		}
	})
}

// minMax renders the conflict line of memory://context for two ids.
func minMax(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return "- " + a + " may conflict with " + b
}

// orNone is want as refIDs renders it: a nil want is no reference.
func orNone(want []string) []string {
	if want == nil {
		return []string{}
	}
	return want
}
