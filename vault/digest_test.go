package vault

import (
	"fmt"
	"maps"
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
	minor := add(NewMemory{Title: "Minor naming habit", Content: "Prefer short names.", Importance: 5})
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
		{DigestKeyRules, []string{rule, successor}}, // importance 9 before 8, as recall ranks them
		// This week's decisions that the key rules do not list already.
		{DigestRecent, []string{minor}},
		{DigestTaskState, recent},
	}
	// The two oldest tasks are beyond the section's ten: left out, and
	// counted as such.
	if len(d.Sections) != len(want) || d.LeftOut != 2 || d.Omitted[ShortTerm] != 2 || len(d.Omitted) != 1 {
		t.Fatalf("sections %d, left out %d %v; want %d, 2 (both L2): %+v", len(d.Sections), d.LeftOut, d.Omitted, len(want), d)
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
	// 1 heading + 1 preference, 1 heading + 2 rules, 1 heading + 1 recent
	// decision, 1 heading + 10 tasks; two more tasks beyond the section's
	// cap are always left out.
	whole := 18
	budgets := []struct {
		name     string
		budget   int
		sections int
		last     int // entries of the last section kept
		leftOut  int
		omitted  map[Layer]int
	}{
		{"exactly enough", whole, 4, 10, 2, map[Layer]int{ShortTerm: 2}},
		{"one task too few", whole - 1, 4, 9, 3, map[Layer]int{ShortTerm: 3}},
		{"the task heading does not fit", 7, 3, 1, 12, map[Layer]int{ShortTerm: 12}},
		{"a rule does not fit: nothing after it either", 4, 2, 1, 14, map[Layer]int{Project: 2, ShortTerm: 12}},
		{"nothing fits", 0, 0, 0, 16, map[Layer]int{Preference: 1, Project: 3, ShortTerm: 12}},
	}
	for _, b := range budgets {
		t.Run(b.name, func(t *testing.T) {
			d, err := tv.set.Digest(ctx, b.budget, unitSizer{})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Sections) != b.sections || d.LeftOut != b.leftOut || !maps.Equal(d.Omitted, b.omitted) {
				t.Fatalf("sections %d, left out %d %v; want %d, %d %v", len(d.Sections), d.LeftOut, d.Omitted, b.sections, b.leftOut, b.omitted)
			}
			if b.sections > 0 {
				if got := len(d.Sections[b.sections-1].Memories); got != b.last {
					t.Errorf("last section lists %d, want %d", got, b.last)
				}
			}
		})
	}

	t.Run("a decision older than a week is not recent", func(t *testing.T) {
		tv.clock.Advance(RecentDecisions + time.Hour)
		d, err := tv.set.Digest(ctx, 1<<20, unitSizer{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Sections {
			if s.Title == DigestRecent {
				t.Errorf("%s lists %v a week later", s.Title, ids(s.Memories))
			}
		}
	})

	t.Run("an empty set", func(t *testing.T) {
		empty := openTwoVaults(t, "2026-11-30T12:00:00Z")
		d, err := empty.set.Digest(ctx, 1<<20, unitSizer{})
		if err != nil || len(d.Sections) != 0 || d.LeftOut != 0 {
			t.Errorf("got %+v, %v; want nothing", d, err)
		}
	})
}

// TestDigestByWeight checks that each section of the digest ranks its
// memories as recall ranks them without a query text, by layer weight x
// decay x importance: an important task noted yesterday comes before a
// minor one noted an hour ago, and a two-year-old preference of
// importance 9 (which never decays) before a newer one of importance 5.
func TestDigestByWeight(t *testing.T) {
	tv := openTwoVaults(t, "2024-01-01T12:00:00Z")
	ctx := t.Context()
	oldPref := tv.remember(t, NewMemory{Title: "Use tabs", Content: "Tabs.", Layer: Preference, Importance: 9}, "").Memory.ID
	tv.clock.Advance(2 * 365 * 24 * time.Hour)
	newPref := tv.remember(t, NewMemory{Title: "Answer in Chinese", Content: "用中文回答。", Layer: Preference}, "").Memory.ID
	tv.clock.Advance(22 * time.Hour)
	important := tv.remember(t, NewMemory{Title: "Release blocker in payments", Content: "Fix first.", Layer: ShortTerm, Importance: 10}, "").Memory.ID
	tv.clock.Advance(time.Hour)
	minor := tv.remember(t, NewMemory{Title: "Rename a variable", Content: "Later.", Layer: ShortTerm, Importance: 1}, "").Memory.ID
	tv.clock.Advance(time.Hour)

	d, err := tv.set.Digest(ctx, 1<<20, unitSizer{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, s := range d.Sections {
		for _, r := range s.Memories {
			got[s.Title] = append(got[s.Title], r.Memory.ID)
		}
	}
	for title, want := range map[string][]string{
		DigestPreferences: {oldPref, newPref},
		DigestTaskState:   {important, minor},
	} {
		if !slices.Equal(got[title], want) {
			t.Errorf("%s: %v, want %v", title, got[title], want)
		}
	}
}
