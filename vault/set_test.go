package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// twoVaults is a project and a user vault on one clock, each with its
// own recording committer (its own repository), in a set with a cache.
type twoVaults struct {
	clock         *fakeClock
	project, user *Vault
	pc, uc        *recordingCommitter
	set           *Set
}

func openTwoVaults(t *testing.T, now string) *twoVaults {
	t.Helper()
	tv := &twoVaults{clock: newClock(now), pc: &recordingCommitter{}, uc: &recordingCommitter{}}
	open := func(c *recordingCommitter) *Vault {
		v, err := Open(t.Context(), t.TempDir(), Options{Now: tv.clock.Now, Committer: c})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tv.project, tv.user = open(tv.pc), open(tv.uc)
	tv.set = NewSet(Member{Name: ProjectVault, Vault: tv.project}, Member{Name: UserVault, Vault: tv.user})
	tv.set.Cache = &SetCache{}
	return tv
}

// remember must succeed.
func (tv *twoVaults) remember(t *testing.T, n NewMemory, scope string) Remembered {
	t.Helper()
	r, err := tv.set.Remember(t.Context(), n, scope, Author{})
	if err != nil {
		t.Fatalf("remember %q: %v", n.Title, err)
	}
	return r
}

func refIDs(rs []Ref) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestSetRecallAcrossVaults checks that a project rule superseding a user
// preference is honoured in recall as it would be within
// one vault, and that rival rules across the vaults are marked.
func TestSetRecallAcrossVaults(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	pytest := tv.remember(t, NewMemory{Title: "Prefer pytest for tests", Content: "Write and run tests with pytest.",
		Layer: Preference, Tags: []string{"testing"}}, "")
	unittest := tv.remember(t, NewMemory{Title: "Use unittest in this repository", Content: "This repository's tests use unittest, not pytest: the CI image has no pytest.",
		Tags: []string{"testing"}, Supersedes: []string{pytest.Memory.ID}}, "")
	english := tv.remember(t, NewMemory{Title: "Answer in English", Content: "Write answers in English.", Layer: Preference}, "")
	chinese := tv.remember(t, NewMemory{Title: "Answer in Chinese from December", Content: "From December, answer in Chinese. 用中文回答。",
		EffectiveAt: mustDate(t, "2026-12-10"), Supersedes: []string{english.Memory.ID}}, "")
	tabs := tv.remember(t, NewMemory{Title: "Indent with tabs", Content: "Indent code with tabs.", Layer: Preference, Tags: []string{"style"}}, "")
	spaces := tv.remember(t, NewMemory{Title: "Indent with spaces", Content: "Indent code with four spaces.", Tags: []string{"style"}, Importance: 8}, "")
	pyID, utID, enID, zhID, tabID, spID := pytest.Memory.ID, unittest.Memory.ID, english.Memory.ID, chinese.Memory.ID, tabs.Memory.ID, spaces.Memory.ID

	if pytest.Vault != UserVault || unittest.Vault != ProjectVault || english.Vault != UserVault || chinese.Vault != ProjectVault ||
		tabs.Vault != UserVault || spaces.Vault != ProjectVault {
		t.Fatalf("vaults: %s %s %s %s %s %s; want user, project, user, project, user, project",
			pytest.Vault, unittest.Vault, english.Vault, chinese.Vault, tabs.Vault, spaces.Vault)
	}
	// The user vault's file is left alone: the project's rule applies in
	// this project only.
	if m, err := tv.user.Get(pyID); err != nil || m.Status != StatusActive || m.Version != 1 {
		t.Errorf("user preference after the project superseded it: %+v, %v; want active, version 1 (not written)", m, err)
	}
	if m, err := tv.project.Get(utID); err != nil || !slices.Equal(m.Supersedes, []string{pyID}) {
		t.Errorf("project rule: %+v, %v; want it to supersede [%s]", m, err, pyID)
	}

	type want struct {
		present    map[string]string   // id -> state
		absent     []string            // ids not returned
		superBy    map[string][]string // id -> superseded_by
		supersedes map[string][]string // id -> supersedes
		conflicts  map[string][]string // id -> possible_conflict
		titles     map[string]string   // id of a ref in supersedes or superseded_by -> its title
	}
	tests := []struct {
		name string
		q    Query
		want want
	}{
		{"project rule supersedes the preference",
			Query{Text: "tests pytest unittest"},
			want{present: map[string]string{utID: "active"}, absent: []string{pyID},
				supersedes: map[string][]string{utID: {pyID}}, titles: map[string]string{pyID: "Prefer pytest for tests"}}},
		{"include_inactive shows the superseded preference",
			Query{Text: "tests pytest unittest", IncludeInactive: true},
			want{present: map[string]string{utID: "active", pyID: "superseded"},
				superBy: map[string][]string{pyID: {utID}}, titles: map[string]string{utID: "Use unittest in this repository"}}},
		{"a future rule does not supersede yet",
			Query{Text: "answer English Chinese"},
			want{present: map[string]string{enID: "active"}, absent: []string{zhID}}},
		{"a future rule does not supersede yet, include_inactive",
			Query{Text: "answer English Chinese", IncludeInactive: true},
			want{present: map[string]string{enID: "active", zhID: "future"}, superBy: map[string][]string{enID: nil}}},
		{"as_of after effective_at: superseded",
			Query{Text: "answer English Chinese", AsOf: mustDate(t, "2026-12-11")},
			want{present: map[string]string{zhID: "active"}, absent: []string{enID}}},
		{"as_of after effective_at, include_inactive",
			Query{Text: "answer English Chinese", AsOf: mustDate(t, "2026-12-11"), IncludeInactive: true},
			want{present: map[string]string{zhID: "active", enID: "superseded"}, superBy: map[string][]string{enID: {zhID}}}},
		{"rival rules across the vaults, both ways",
			Query{Text: "indent tabs spaces"},
			want{present: map[string]string{tabID: "active", spID: "active"},
				conflicts: map[string][]string{tabID: {spID}, spID: {tabID}}}},
		{"a rule and the preference it supersedes are no rivals",
			Query{Text: "tests pytest unittest", IncludeInactive: true},
			want{conflicts: map[string][]string{utID: nil, pyID: nil}}},
		{"empty query lists recent memories without the superseded one",
			Query{Limit: 50},
			want{present: map[string]string{utID: "active", enID: "active", tabID: "active", spID: "active"},
				absent: []string{pyID, zhID}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := tv.set.Recall(t.Context(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]SetResult{}
			titles := map[string]string{}
			for _, r := range rs {
				got[r.Memory.ID] = r
				for _, ref := range append(slices.Clone(r.Supersedes), r.SupersededBy...) {
					titles[ref.ID] = ref.Title
				}
			}
			for id, state := range tc.want.present {
				if r, ok := got[id]; !ok || r.State != state {
					t.Errorf("%s: got %+v (present %v), want state %s", id, r, ok, state)
				}
			}
			for _, id := range tc.want.absent {
				if r, ok := got[id]; ok {
					t.Errorf("%s returned (%s), want it hidden", id, r.State)
				}
			}
			for id, want := range tc.want.superBy {
				if r := got[id]; !slices.Equal(refIDs(r.SupersededBy), want) {
					t.Errorf("%s superseded_by = %v, want %v", id, refIDs(r.SupersededBy), want)
				}
			}
			for id, want := range tc.want.supersedes {
				if r := got[id]; !slices.Equal(refIDs(r.Supersedes), want) {
					t.Errorf("%s supersedes = %v, want %v", id, refIDs(r.Supersedes), want)
				}
			}
			for id, want := range tc.want.conflicts {
				if r := got[id]; !slices.Equal(r.PossibleConflict, want) {
					t.Errorf("%s possible_conflict = %v, want %v", id, r.PossibleConflict, want)
				}
			}
			for id, want := range tc.want.titles {
				if titles[id] != want {
					t.Errorf("ref %s titled %q, want %q", id, titles[id], want)
				}
			}
		})
	}
}

// TestCrossRivalsMatchTheVault checks that MarkCrossConflicts judges a
// pair of rules from two vaults as Vault.Recall judges the same pair in
// one vault: each pair is put in one vault, and the vault's verdict must
// be the cross-vault one.
func TestCrossRivalsMatchTheVault(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	type rule struct {
		title string
		tags  []string
		layer Layer
	}
	tests := []struct {
		name string
		a, b rule
	}{
		{"strong title overlap", rule{"Use pytest for tests", nil, Project}, rule{"Use pytest for all tests", nil, Preference}},
		{"shared tag, some overlap", rule{"Indent with tabs", []string{"style"}, Preference}, rule{"Indent with spaces", []string{"style"}, Project}},
		{"shared tag, no overlap", rule{"Answer in English", []string{"lang"}, Preference}, rule{"Reply briefly", []string{"lang"}, Project}},
		{"two languages, shared tags", rule{"测试用 pytest", []string{"testing", "python"}, Preference}, rule{"Tests use pytest", []string{"testing", "python"}, Project}},
		{"unrelated", rule{"Deploy on Mondays", nil, Project}, rule{"Prefer dark mode", nil, Preference}},
		{"task state never conflicts", rule{"Indent with tabs", []string{"style"}, ShortTerm}, rule{"Indent with spaces", []string{"style"}, Project}},
		{"one shared tag of many", rule{"Cache builds", []string{"ci", "speed", "cache"}, Project}, rule{"Cache test results", []string{"ci", "tests"}, Preference}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Open(ctx, t.TempDir(), Options{Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			var ms []*Memory
			for _, r := range []rule{tc.a, tc.b} {
				res, err := v.Create(ctx, NewMemory{Title: r.title, Content: r.title + ".", Tags: r.tags, Layer: r.layer}, Author{})
				if err != nil {
					t.Fatal(err)
				}
				ms = append(ms, res.Memory)
			}
			inVault := false
			for _, r := range v.Recall(Query{Limit: 10}) {
				if r.Memory.ID == ms[0].ID && slices.Contains(r.PossibleConflict, ms[1].ID) {
					inVault = true
				}
			}
			rs := []SetResult{
				{Result: Result{Memory: ms[0], State: "active"}, Vault: ProjectVault},
				{Result: Result{Memory: ms[1], State: "active"}, Vault: UserVault},
			}
			MarkCrossConflicts(rs)
			across := slices.Contains(rs[0].PossibleConflict, ms[1].ID)
			if across != inVault {
				t.Errorf("rivals across vaults = %v, within one vault = %v; want the same verdict", across, inVault)
			}
			if across != slices.Contains(rs[1].PossibleConflict, ms[0].ID) {
				t.Errorf("marked one way only: %v / %v", rs[0].PossibleConflict, rs[1].PossibleConflict)
			}
		})
	}
}

// TestSetRecallRanksTheVaultsTogether: a user vault of one preference
// scores its match against its own tiny corpus, which would lose to weaker
// project matches; ranked together, the preference comes first.
func TestSetRecallRanksTheVaultsTogether(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	pref := tv.remember(t, NewMemory{Title: "测试用 pytest", Layer: Preference, Content: "开发者要求测试一律用 pytest 编写和运行，不要用 unittest。"}, "")
	for _, n := range []NewMemory{
		{Title: "上线流程", Content: "上线部署：CI 通过后在仓库根目录运行 ops/deploy.sh。"},
		{Title: "代码格式用 black", Content: "提交前用 black 格式化 Python 代码。"},
		{Title: "数据库迁移", Content: "用 alembic 写迁移脚本，已执行的迁移不要修改。"},
		{Title: "分支命名", Content: "分支命名为 feature/<单号> 或 fix/<单号>。"},
		{Title: "预发环境", Content: "预发环境在 staging.internal，用 make reset-staging 重置。"},
	} {
		tv.remember(t, n, "")
	}
	for _, cache := range []*SetCache{nil, tv.set.Cache} {
		tv.set.Cache = cache
		for _, q := range []string{"单元测试怎么写", "测试用什么框架"} {
			rs, err := tv.set.Recall(t.Context(), Query{Text: q})
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) == 0 || rs[0].Memory.ID != pref.Memory.ID || rs[0].Vault != UserVault {
				t.Errorf("recall %q (cache %v) = %+v, want the user vault's %s first", q, cache != nil, rs, pref.Memory.ID)
			}
		}
	}
}

// TestSetRecallAsOf checks which vaults an as-of reads: from the set's
// now on the live ones, so a transient memory (never recorded) written a
// minute ago is in "what applies in a minute"; before now, the recorded
// past through Member.AsOf.
func TestSetRecallAsOf(t *testing.T) {
	clock := newClock("2026-11-30T12:00:00Z")
	ctx := t.Context()
	v, err := Open(ctx, t.TempDir(), Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	rule, err := v.Create(ctx, NewMemory{Title: "Flaky tests go to quarantine", Content: "Mark flaky tests and move them to quarantine."}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * time.Minute)
	note, err := v.Create(ctx, NewMemory{Title: "Flaky test in checkout", Content: "TestCheckout is flaky today: quarantine it.", Layer: Transient}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	now := clock.Now()
	// The recorded past holds the rule only: the transient note is never
	// committed.
	data, err := os.ReadFile(filepath.Join(v.Dir(), filepath.FromSlash(rule.Memory.Path)))
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := OpenSnapshot(ctx, "recorded", []File{{Rel: rule.Memory.Path, Data: data}}, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	var reads []time.Time
	fail := errors.New("no history here")
	asOf := func(_ context.Context, at time.Time) (*Vault, error) {
		reads = append(reads, at)
		if at.Before(now.Add(-time.Hour)) {
			return nil, fail
		}
		return recorded, nil
	}
	set := NewSet(Member{Name: ProjectVault, Vault: v, AsOf: asOf})
	tests := []struct {
		name     string
		asOf     time.Time
		want     []string
		read     bool // through Member.AsOf
		wantErr  error
		noReader bool
	}{
		{name: "no as_of: live", want: []string{rule.Memory.ID, note.Memory.ID}},
		{name: "as_of now: live", asOf: now, want: []string{rule.Memory.ID, note.Memory.ID}},
		{name: "as_of in a minute: live, with the transient note", asOf: now.Add(time.Minute), want: []string{rule.Memory.ID, note.Memory.ID}},
		{name: "as_of in two hours: live, the note expired then", asOf: now.Add(2 * time.Hour), want: []string{rule.Memory.ID}},
		{name: "as_of a minute ago: the recorded past", asOf: now.Add(-time.Minute), want: []string{rule.Memory.ID}, read: true},
		{name: "the recorded past cannot be read", asOf: now.Add(-2 * time.Hour), read: true, wantErr: fail},
		{name: "no reader: the live vault at that instant", asOf: now.Add(-5 * time.Minute), want: []string{rule.Memory.ID}, noReader: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reads = nil
			s := set
			if tc.noReader {
				s = NewSet(Member{Name: ProjectVault, Vault: v})
			}
			rs, err := s.Recall(ctx, Query{Text: "flaky quarantine", AsOf: tc.asOf})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			var got []string
			for _, r := range rs {
				got = append(got, r.Memory.ID)
			}
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("results %v, want %v", got, want)
			}
			if tc.read != (len(reads) == 1) || (tc.read && !reads[0].Equal(tc.asOf)) {
				t.Errorf("recorded reads %v, want one at %v: %v", reads, tc.asOf, tc.read)
			}
		})
	}
}

func TestSetTarget(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	projectOnly := NewSet(Member{Name: ProjectVault, Vault: tv.project}, Member{Name: UserVault})
	tests := []struct {
		name    string
		set     *Set
		layer   Layer
		scope   string
		want    string
		wantErr error
	}{
		{"a preference goes to the user vault", tv.set, Preference, "", UserVault, nil},
		{"a project rule stays in the project", tv.set, Project, "", ProjectVault, nil},
		{"the default layer stays in the project", tv.set, 0, "", ProjectVault, nil},
		{"scope project keeps a preference in the project", tv.set, Preference, "project", ProjectVault, nil},
		{"scope user takes a project rule to the user vault", tv.set, Project, " USER ", UserVault, nil},
		{"without a user vault a preference stays in the project", projectOnly, Preference, "", ProjectVault, nil},
		{"scope user without a user vault", projectOnly, Preference, "user", "", ErrNoVault},
		{"unknown scope", tv.set, Project, "team", "", ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.set.Target(tc.layer, tc.scope)
			if !errors.Is(err, tc.wantErr) || m.Name != tc.want {
				t.Errorf("Target(%v, %q) = %q, %v; want %q, %v", tc.layer, tc.scope, m.Name, err, tc.want, tc.wantErr)
			}
		})
	}
	if _, err := projectOnly.Target(Preference, "user"); err == nil || !strings.Contains(err.Error(), "scope: no user vault") {
		t.Errorf("error %v does not say scope: no user vault", err)
	}
}

func TestSetFindAndSupersededBy(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	pref := tv.remember(t, NewMemory{Title: "Prefer pylint", Content: "Lint with pylint.", Layer: Preference}, "")
	userSucc := tv.remember(t, NewMemory{Title: "Prefer ruff", Content: "Lint with ruff.", Layer: Preference, Supersedes: []string{pref.Memory.ID}}, "")
	projSucc := tv.remember(t, NewMemory{Title: "Lint with flake8 here", Content: "This repository lints with flake8.", Supersedes: []string{pref.Memory.ID}}, "")
	for _, tc := range []struct{ id, vault string }{{pref.Memory.ID, UserVault}, {projSucc.Memory.ID, ProjectVault}} {
		m, mem, err := tv.set.Find(tc.id)
		if err != nil || m.Name != tc.vault || mem.ID != tc.id {
			t.Errorf("Find(%s) = %q, %+v, %v; want it in the %s vault", tc.id, m.Name, mem, err, tc.vault)
		}
	}
	if _, _, err := tv.set.Find("01NOSUCHMEMORY0000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(unknown) error = %v, want ErrNotFound", err)
	}
	// Project first, then the user vault.
	want := []string{projSucc.Memory.ID, userSucc.Memory.ID}
	if got := tv.set.SupersededBy(pref.Memory.ID); !slices.Equal(got, want) {
		t.Errorf("SupersededBy(%s) = %v, want %v", pref.Memory.ID, got, want)
	}
	// The cache follows a write.
	third := tv.remember(t, NewMemory{Title: "Lint nothing", Content: "No linter.", Layer: Meta, Supersedes: []string{pref.Memory.ID}}, "")
	want = []string{third.Memory.ID, projSucc.Memory.ID, userSucc.Memory.ID} // meta/ before project/
	if got := tv.set.SupersededBy(pref.Memory.ID); !slices.Equal(got, want) {
		t.Errorf("SupersededBy after a write = %v, want %v", got, want)
	}
	if got := tv.set.SupersededBy(projSucc.Memory.ID); got != nil {
		t.Errorf("SupersededBy(a memory nothing supersedes) = %v, want none", got)
	}
}

// TestSetCacheIsSafeForConcurrentCalls recalls through one cache from
// several goroutines while memories that supersede across the vaults are
// written (run with -race).
func TestSetCacheIsSafeForConcurrentCalls(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	pref := tv.remember(t, NewMemory{Title: "Prefer pytest", Content: "Tests use pytest.", Layer: Preference}, "")
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			for range 20 {
				set := NewSet(tv.set.Members()...)
				set.Cache = tv.set.Cache
				if _, err := set.Recall(ctx, Query{Text: "pytest tests"}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var last Remembered
	for _, module := range []string{"checkout", "billing", "search", "login", "export"} {
		r, err := tv.set.Remember(ctx, NewMemory{Title: "Pytest runs the " + module + " tests", Content: "Tests use pytest here too.",
			Supersedes: []string{pref.Memory.ID}}, "", Author{})
		if err != nil {
			t.Fatal(err)
		}
		last = r
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// After the writes the cache knows the last successor.
	rs, err := tv.set.Recall(ctx, Query{Text: "pytest tests", IncludeInactive: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Memory.ID == pref.Memory.ID && !slices.Contains(refIDs(r.SupersededBy), last.Memory.ID) {
			t.Errorf("superseded_by %v lacks the last successor %s", refIDs(r.SupersededBy), last.Memory.ID)
		}
	}
}
