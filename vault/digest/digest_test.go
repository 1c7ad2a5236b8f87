package digest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/internal/vaulttest"
)

// twoVaults is a project vault and a user vault in one set, on one clock.
type twoVaults struct {
	clock         *vaulttest.Clock
	project, user *vault.Vault
	set           *vault.Set
}

func openTwoVaults(t *testing.T, now string) *twoVaults {
	t.Helper()
	at, err := time.Parse(time.RFC3339, now)
	if err != nil {
		t.Fatal(err)
	}
	tv := &twoVaults{clock: vaulttest.NewClock(at)}
	open := func() *vault.Vault {
		v, err := vault.Open(t.Context(), t.TempDir(), vault.Options{Now: tv.clock.Now, Committer: &vaulttest.Committer{}})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tv.project, tv.user = open(), open()
	tv.set = vault.NewSet(vault.Member{Name: vault.ProjectVault, Vault: tv.project}, vault.Member{Name: vault.UserVault, Vault: tv.user})
	tv.set.Cache = &vault.SetCache{}
	return tv
}

// remember must succeed.
func (tv *twoVaults) remember(t *testing.T, n vault.NewMemory, scope string) vault.Remembered {
	t.Helper()
	r, err := tv.set.Remember(t.Context(), n, scope, vault.Author{})
	if err != nil {
		t.Fatalf("remember %q: %v", n.Title, err)
	}
	return r
}

// unitSizer counts every part of a digest as 1.
type unitSizer struct{}

func (unitSizer) Heading(string) int         { return 1 }
func (unitSizer) Memory(vault.SetResult) int { return 1 }
func (unitSizer) Conflict([2]string) int     { return 1 }

// TestDigest checks the session-start digest's policy: which memories go
// into which section, in which order, and what the budget leaves out.
func TestDigest(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	ctx := t.Context()
	add := func(n vault.NewMemory) string {
		t.Helper()
		tv.clock.Advance(time.Minute) // distinct update times
		return tv.remember(t, n, "").Memory.ID
	}
	pref := add(vault.NewMemory{Title: "Answer in Chinese", Content: "用中文回答。", Layer: vault.Preference})
	rule := add(vault.NewMemory{Title: "Never force-push main", Content: "Protected branch.", Importance: 9})
	minor := add(vault.NewMemory{Title: "Minor naming habit", Content: "Prefer short names.", Importance: 5})
	old := add(vault.NewMemory{Title: "Deploy from laptops", Content: "Run the deploy script locally.", Importance: 8})
	successor := add(vault.NewMemory{Title: "Deploy from CI only", Content: "Deploys run in CI.", Importance: 8, Supersedes: []string{old}})
	var tasks []string
	for i := range 12 {
		tasks = append(tasks, add(vault.NewMemory{Title: fmt.Sprintf("Task %s in progress", []string{"alpha", "bravo", "charlie", "delta", "echo",
			"foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}[i]), Content: "Half done.", Layer: vault.ShortTerm}))
	}
	add(vault.NewMemory{Title: "Memory index", Content: "Notes about the vault.", Layer: vault.Meta, Importance: 9})

	ids := func(rs []vault.SetResult) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Memory.ID)
		}
		return out
	}
	d, err := Build(ctx, tv.set, 1<<20, unitSizer{})
	if err != nil {
		t.Fatal(err)
	}
	recent := slices.Clone(tasks[2:])
	slices.Reverse(recent) // newest first, ten of them
	want := []struct {
		title string
		ids   []string
	}{
		{Preferences, []string{pref}},
		{KeyRules, []string{rule, successor}}, // importance 9 before 8, as recall ranks them
		// This week's decisions that the key rules do not list already.
		{Recent, []string{minor}},
		{TaskState, recent},
	}
	// The two oldest tasks are beyond the section's ten: left out, and
	// counted as such.
	if len(d.Sections) != len(want) || d.LeftOut != 2 || d.Omitted[vault.ShortTerm] != 2 || len(d.Omitted) != 1 {
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
		omitted  map[vault.Layer]int
	}{
		{"exactly enough", whole, 4, 10, 2, map[vault.Layer]int{vault.ShortTerm: 2}},
		{"one task too few", whole - 1, 4, 9, 3, map[vault.Layer]int{vault.ShortTerm: 3}},
		{"the task heading does not fit", 7, 3, 1, 12, map[vault.Layer]int{vault.ShortTerm: 12}},
		{"a rule does not fit: nothing after it either", 4, 2, 1, 14, map[vault.Layer]int{vault.Project: 2, vault.ShortTerm: 12}},
		{"nothing fits", 0, 0, 0, 16, map[vault.Layer]int{vault.Preference: 1, vault.Project: 3, vault.ShortTerm: 12}},
	}
	for _, b := range budgets {
		t.Run(b.name, func(t *testing.T) {
			d, err := Build(ctx, tv.set, b.budget, unitSizer{})
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
		d, err := Build(ctx, tv.set, 1<<20, unitSizer{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Sections {
			if s.Title == Recent {
				t.Errorf("%s lists %v a week later", s.Title, ids(s.Memories))
			}
		}
	})

	t.Run("an empty set", func(t *testing.T) {
		empty := openTwoVaults(t, "2026-11-30T12:00:00Z")
		d, err := Build(ctx, empty.set, 1<<20, unitSizer{})
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
	oldPref := tv.remember(t, vault.NewMemory{Title: "Use tabs", Content: "Tabs.", Layer: vault.Preference, Importance: 9}, "").Memory.ID
	tv.clock.Advance(2 * 365 * 24 * time.Hour)
	newPref := tv.remember(t, vault.NewMemory{Title: "Answer in Chinese", Content: "用中文回答。", Layer: vault.Preference}, "").Memory.ID
	tv.clock.Advance(22 * time.Hour)
	important := tv.remember(t, vault.NewMemory{Title: "Release blocker in payments", Content: "Fix first.", Layer: vault.ShortTerm, Importance: 10}, "").Memory.ID
	tv.clock.Advance(time.Hour)
	minor := tv.remember(t, vault.NewMemory{Title: "Rename a variable", Content: "Later.", Layer: vault.ShortTerm, Importance: 1}, "").Memory.ID
	tv.clock.Advance(time.Hour)

	d, err := Build(ctx, tv.set, 1<<20, unitSizer{})
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
		Preferences: {oldPref, newPref},
		TaskState:   {important, minor},
	} {
		if !slices.Equal(got[title], want) {
			t.Errorf("%s: %v, want %v", title, got[title], want)
		}
	}
}

// TestDigestAcrossVaults checks that a project rule superseding a user
// preference is honoured in the digest as in recall, once it takes
// effect, and that rival rules from the two vaults, which land in
// different sections, are listed as open conflicts.
func TestDigestAcrossVaults(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	pytest := tv.remember(t, vault.NewMemory{Title: "Prefer pytest for tests", Content: "Write and run tests with pytest.",
		Layer: vault.Preference, Tags: []string{"testing"}}, "")
	tv.remember(t, vault.NewMemory{Title: "Use unittest in this repository", Content: "This repository's tests use unittest, not pytest: the CI image has no pytest.",
		Tags: []string{"testing"}, Supersedes: []string{pytest.Memory.ID}}, "")
	english := tv.remember(t, vault.NewMemory{Title: "Answer in English", Content: "Write answers in English.", Layer: vault.Preference}, "")
	tv.remember(t, vault.NewMemory{Title: "Answer in Chinese from December", Content: "From December, answer in Chinese. 用中文回答。",
		EffectiveAt: time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC), Supersedes: []string{english.Memory.ID}}, "")
	tabs := tv.remember(t, vault.NewMemory{Title: "Indent with tabs", Content: "Indent code with tabs.", Layer: vault.Preference, Tags: []string{"style"}}, "")
	spaces := tv.remember(t, vault.NewMemory{Title: "Indent with spaces", Content: "Indent code with four spaces.", Tags: []string{"style"}, Importance: 8}, "")
	if tabs.Vault != vault.UserVault || spaces.Vault != vault.ProjectVault {
		t.Fatalf("vaults: %s %s; want user, project", tabs.Vault, spaces.Vault)
	}
	tabID, spID := tabs.Memory.ID, spaces.Memory.ID

	titles := func(d Digest) (string, [][2]string) {
		var b strings.Builder
		var pairs [][2]string
		for _, s := range d.Sections {
			for _, r := range s.Memories {
				b.WriteString(r.Memory.Title + "\n")
			}
			pairs = append(pairs, s.Conflicts...)
		}
		return b.String(), pairs
	}
	d, err := Build(t.Context(), tv.set, 1<<20, unitSizer{})
	if err != nil {
		t.Fatal(err)
	}
	listed, pairs := titles(d)
	for _, w := range []string{"Answer in English", "Indent with tabs", "Indent with spaces"} {
		if !strings.Contains(listed, w) {
			t.Errorf("digest lacks %q:\n%s", w, listed)
		}
	}
	if want := [2]string{min(tabID, spID), max(tabID, spID)}; !slices.Contains(pairs, want) {
		t.Errorf("digest conflicts %v lack %v", pairs, want)
	}
	if strings.Contains(listed, "Prefer pytest") {
		t.Errorf("digest lists the preference the project superseded:\n%s", listed)
	}
	tv.clock.Advance(time.Date(2026, 12, 11, 0, 0, 0, 0, time.UTC).Sub(tv.clock.Now()))
	d, err = Build(t.Context(), tv.set, 1<<20, unitSizer{})
	if err != nil {
		t.Fatal(err)
	}
	if listed, _ := titles(d); strings.Contains(listed, "Answer in English") {
		t.Errorf("digest after the project's rule took effect still lists the preference it supersedes:\n%s", listed)
	}
}
