package vault

import (
	"errors"
	"testing"
	"time"
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
	for _, st := range States() {
		if !seen[st] {
			t.Errorf("no listed memory is %s", st)
		}
		delete(seen, st)
	}
	if len(seen) > 0 {
		t.Errorf("listed states outside States(): %v", seen)
	}
}
