package vault

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/memory"
)

func TestParseState(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"active", "Archived", " superseded", "expired", "future"} {
		if _, err := ParseState(s); err != nil {
			t.Errorf("ParseState(%q): %v", s, err)
		}
	}
	for _, s := range []string{"", "gone", "in force"} {
		if _, err := ParseState(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseState(%q) = %v, want ErrInvalid", s, err)
		}
	}
}

// TestStatesAreTheStatesListReports ties States to the states the domain
// gives results: memories in every state, listed, show exactly these.
func TestStatesAreTheStatesListReports(t *testing.T) {
	t.Parallel()
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	old := tv.remember(t, NewMemory{Title: "Prefer pytest for tests", Content: "pytest."}, "")
	tv.remember(t, NewMemory{Title: "Use unittest here", Content: "unittest.", Supersedes: []string{old.Memory.ID}}, "")
	tv.remember(t, NewMemory{Title: "Answer in Chinese from December", Content: "中文。", EffectiveAt: mustDate(t, "2026-12-10")}, "")
	gone := tv.remember(t, NewMemory{Title: "Deploy on Fridays", Content: "Fridays."}, "")
	if _, err := tv.project.Forget(t.Context(), gone.Memory.ID, false, Author{Reason: "no more"}); err != nil {
		t.Fatal(err)
	}
	tv.remember(t, NewMemory{Title: "Freeze until noon", Content: "No merges.", Layer: ShortTerm, ExpiresAt: tv.clock.Now().Add(time.Minute)}, "")
	tv.clock.Advance(time.Hour)
	seen := map[Status]bool{}
	for _, r := range tv.set.List(ListQuery{}) {
		seen[Status(r.State)] = true
	}
	for _, st := range memory.States() {
		if !seen[st] {
			t.Errorf("no listed memory is %s", st)
		}
		delete(seen, st)
	}
	if len(seen) > 0 {
		t.Errorf("listed states outside memory.States(): %v", seen)
	}
}

func TestTransition(t *testing.T) {
	mem := func(st Status, sup ...string) *Memory { return &Memory{Status: st, Supersedes: sup} }
	for _, tc := range []struct {
		name          string
		before, after *Memory
		kind          string
		added         []string
	}{
		{"edit", mem(StatusActive), mem(StatusActive), "changed", nil},
		{"superseded", mem(StatusActive), mem(StatusSuperseded), "superseded", nil},
		{"archived", mem(StatusActive), mem(StatusArchived), "archived", nil},
		{"still superseded", mem(StatusSuperseded), mem(StatusSuperseded), "changed", nil},
		{"supersedes one more", mem(StatusActive, "a"), mem(StatusActive, "a", "b"), "changed", []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Transition(tc.before, tc.after); got != tc.kind {
				t.Errorf("Transition = %q, want %q", got, tc.kind)
			}
			var ids []string
			for _, r := range NewSupersedes(tc.before, tc.after) {
				ids = append(ids, r.ID)
			}
			if !slices.Equal(ids, tc.added) {
				t.Errorf("NewSupersedes = %v, want %v", ids, tc.added)
			}
		})
	}
	if got := NewSupersedes(nil, mem(StatusActive, "a", "b")); len(got) != 2 {
		t.Errorf("NewSupersedes of a new memory = %v, want both", got)
	}
}
