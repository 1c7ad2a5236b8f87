package vault

import (
	"slices"
	"testing"
	"time"
)

// TestSetList lists the memories of a project and a user vault with each
// filter: by layer, by state (supersession across the vaults included),
// by tag, with a limit; newest first, nothing ranked or hidden.
func TestSetList(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	step := func() { tv.clock.Advance(time.Minute) }
	pytest := tv.remember(t, NewMemory{Title: "Prefer pytest for tests", Content: "Write and run tests with pytest.",
		Layer: Preference, Tags: []string{"testing"}}, "")
	step()
	unittest := tv.remember(t, NewMemory{Title: "Use unittest in this repository", Content: "The CI image has no pytest.",
		Tags: []string{"Testing"}, Supersedes: []string{pytest.Memory.ID}}, "")
	step()
	task := tv.remember(t, NewMemory{Title: "Migrating auth", Content: "Half done.", Layer: ShortTerm, Tags: []string{"auth"}}, "")
	step()
	future := tv.remember(t, NewMemory{Title: "Answer in Chinese from December", Content: "用中文回答。",
		EffectiveAt: mustDate(t, "2026-12-10")}, "")
	step()
	old := tv.remember(t, NewMemory{Title: "Deploy on Fridays", Content: "Deploy at the end of the week."}, "")
	step()
	if _, err := tv.project.Forget(t.Context(), old.Memory.ID, false, Author{Reason: "no more"}); err != nil {
		t.Fatal(err)
	}
	step()
	expired := tv.remember(t, NewMemory{Title: "Freeze until noon", Content: "No merges.", Layer: ShortTerm,
		ExpiresAt: tv.clock.Now().Add(time.Minute)}, "")
	tv.clock.Advance(time.Hour)

	tests := []struct {
		name  string
		q     ListQuery
		want  []string          // ids, in order
		state map[string]string // id -> state, for some
		vault map[string]string // id -> vault, for some
	}{
		{name: "everything, newest first", q: ListQuery{},
			want: []string{expired.Memory.ID, old.Memory.ID, future.Memory.ID, task.Memory.ID, unittest.Memory.ID, pytest.Memory.ID},
			state: map[string]string{expired.Memory.ID: "expired", old.Memory.ID: "archived", future.Memory.ID: "future",
				task.Memory.ID: "active", unittest.Memory.ID: "active", pytest.Memory.ID: "superseded"},
			vault: map[string]string{pytest.Memory.ID: UserVault, unittest.Memory.ID: ProjectVault}},
		{name: "active only", q: ListQuery{Statuses: []Status{StatusActive}}, want: []string{task.Memory.ID, unittest.Memory.ID}},
		{name: "superseded across the vaults", q: ListQuery{Statuses: []Status{StatusSuperseded}}, want: []string{pytest.Memory.ID}},
		{name: "archived or expired", q: ListQuery{Statuses: []Status{StatusArchived, "expired"}}, want: []string{expired.Memory.ID, old.Memory.ID}},
		{name: "layer", q: ListQuery{Layers: []Layer{ShortTerm}}, want: []string{expired.Memory.ID, task.Memory.ID}},
		{name: "layers and state", q: ListQuery{Layers: []Layer{Project, Preference}, Statuses: []Status{StatusActive, StatusSuperseded}},
			want: []string{unittest.Memory.ID, pytest.Memory.ID}},
		{name: "tag, any case, with #", q: ListQuery{Tags: []string{"#testing"}}, want: []string{unittest.Memory.ID, pytest.Memory.ID}},
		{name: "limit", q: ListQuery{Limit: 2}, want: []string{expired.Memory.ID, old.Memory.ID}},
		{name: "nothing matches", q: ListQuery{Tags: []string{"nothing"}}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := tv.set.List(tc.q)
			var got []string
			for _, r := range rs {
				got = append(got, r.Memory.ID)
				if w, ok := tc.state[r.Memory.ID]; ok && r.State != w {
					t.Errorf("%s (%s): state %s, want %s", r.Memory.ID, r.Memory.Title, r.State, w)
				}
				if w, ok := tc.vault[r.Memory.ID]; ok && r.Vault != w {
					t.Errorf("%s: vault %s, want %s", r.Memory.ID, r.Vault, w)
				}
				if r.Snippet == "" || r.Score != 0 || len(r.PossibleConflict) != 0 {
					t.Errorf("%s: snippet %q, score %v, conflicts %v; want the text's start, no score, no conflicts", r.Memory.ID, r.Snippet, r.Score, r.PossibleConflict)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("supersession is named both ways", func(t *testing.T) {
		rs := tv.set.List(ListQuery{Tags: []string{"testing"}})
		if len(rs) != 2 {
			t.Fatalf("got %d results, want 2", len(rs))
		}
		if got := refIDs(rs[0].Supersedes); !slices.Equal(got, []string{pytest.Memory.ID}) || rs[0].Supersedes[0].Title != "Prefer pytest for tests" {
			t.Errorf("unittest supersedes %+v, want pytest with its title", rs[0].Supersedes)
		}
		if got := refIDs(rs[1].SupersededBy); !slices.Equal(got, []string{unittest.Memory.ID}) {
			t.Errorf("pytest superseded by %v, want [%s]", got, unittest.Memory.ID)
		}
	})

	t.Run("the future rule takes effect", func(t *testing.T) {
		tv.clock.Advance(20 * 24 * time.Hour)
		rs := tv.set.List(ListQuery{Statuses: []Status{StatusActive}, Layers: []Layer{Project}})
		if len(rs) != 2 || rs[0].Memory.ID != future.Memory.ID {
			t.Errorf("active project memories: %v, want the December rule first, then unittest", rs)
		}
	})
}
