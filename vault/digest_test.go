package vault

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestDigest checks the session-start digest's policy: which memories go
// into which section, in which order, and what the budget leaves out.
func TestDigest(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	ctx := t.Context()
	add := func(n NewMemory) string {
		t.Helper()
		tv.clock.Advance(time.Minute) // distinct update times
		return tv.remember(t, n, "").Memory.ID
	}
	pref := add(NewMemory{Title: "Answer in Chinese", Content: "用中文回答。", Layer: Preference})
	rule := add(NewMemory{Title: "Never force-push main", Content: "Protected branch.", Importance: 9})
	add(NewMemory{Title: "Minor naming habit", Content: "Prefer short names.", Importance: 5})
	old := add(NewMemory{Title: "Deploy from laptops", Content: "Run the deploy script locally.", Importance: 8})
	successor := add(NewMemory{Title: "Deploy from CI only", Content: "Deploys run in CI.", Importance: 8, Supersedes: []string{old}})
	var tasks []string
	for i := range 12 {
		tasks = append(tasks, add(NewMemory{Title: fmt.Sprintf("Task %s in progress", []string{"alpha", "bravo", "charlie", "delta", "echo",
			"foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}[i]), Content: "Half done.", Layer: ShortTerm}))
	}
	add(NewMemory{Title: "Memory index", Content: "Notes about the vault.", Layer: Meta, Importance: 9})

	ids := func(rs []SetResult) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Memory.ID)
		}
		return out
	}
	d, err := tv.set.Digest(ctx, 1<<20, unitSizer{})
	if err != nil {
		t.Fatal(err)
	}
	recent := slices.Clone(tasks[2:])
	slices.Reverse(recent) // newest first, ten of them
	want := []struct {
		title string
		ids   []string
	}{
		{DigestPreferences, []string{pref}},
		{DigestKeyRules, nil}, // checked as a set below: order by score
		{DigestTaskState, recent},
	}
	if len(d.Sections) != len(want) || d.LeftOut != 0 {
		t.Fatalf("sections %d, left out %d; want %d, 0: %+v", len(d.Sections), d.LeftOut, len(want), d)
	}
	for i, w := range want {
		s := d.Sections[i]
		if s.Title != w.title {
			t.Errorf("section %d is %q, want %q", i, s.Title, w.title)
		}
		if w.ids != nil && !slices.Equal(ids(s.Memories), w.ids) {
			t.Errorf("%s lists %v, want %v", s.Title, ids(s.Memories), w.ids)
		}
	}
	keyRules := ids(d.Sections[1].Memories)
	slices.Sort(keyRules)
	wantRules := []string{rule, successor}
	slices.Sort(wantRules)
	if !slices.Equal(keyRules, wantRules) {
		t.Errorf("key rules %v, want %v (importance 8+, the superseded one left out)", keyRules, wantRules)
	}

	// 1 heading + 1 preference, 1 heading + 2 rules, 1 heading + 10 tasks.
	whole := 16
	budgets := []struct {
		name     string
		budget   int
		sections int
		last     int // entries of the last section kept
		leftOut  int
	}{
		{"exactly enough", whole, 3, 10, 0},
		{"one task too few", whole - 1, 3, 9, 1},
		{"the task heading does not fit", 5, 2, 2, 10},
		{"a rule does not fit: nothing after it either", 4, 2, 1, 11},
		{"nothing fits", 0, 0, 0, 13},
	}
	for _, b := range budgets {
		t.Run(b.name, func(t *testing.T) {
			d, err := tv.set.Digest(ctx, b.budget, unitSizer{})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Sections) != b.sections || d.LeftOut != b.leftOut {
				t.Fatalf("sections %d, left out %d; want %d, %d", len(d.Sections), d.LeftOut, b.sections, b.leftOut)
			}
			if b.sections > 0 {
				if got := len(d.Sections[b.sections-1].Memories); got != b.last {
					t.Errorf("last section lists %d, want %d", got, b.last)
				}
			}
		})
	}

	t.Run("an empty set", func(t *testing.T) {
		empty := openTwoVaults(t, "2026-11-30T12:00:00Z")
		d, err := empty.set.Digest(ctx, 1<<20, unitSizer{})
		if err != nil || len(d.Sections) != 0 || d.LeftOut != 0 {
			t.Errorf("got %+v, %v; want nothing", d, err)
		}
	})
}
