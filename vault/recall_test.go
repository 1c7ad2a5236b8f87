package vault

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/memory"
)

func openTest(t *testing.T, clock *fakeClock) *Vault {
	t.Helper()
	v, err := Open(t.Context(), t.TempDir(), Options{Now: clock.Now})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return v
}

func mustCreate(t *testing.T, v *Vault, n NewMemory) *Memory {
	t.Helper()
	res, err := v.Create(context.Background(), n, Author{Reason: "test"})
	if err != nil {
		t.Fatalf("Create(%q): %v", n.Title, err)
	}
	return res.Memory
}

func ids(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Memory.ID
	}
	return out
}

func TestRecallEffectiveAtHiddenUntilItComes(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	future := mustCreate(t, v, NewMemory{Title: "API paths use the /v2 prefix", Content: "All public API routes move to /v2.",
		EffectiveAt: clock.Now().Add(15 * 24 * time.Hour)})

	if got := ids(v.Recall(Query{Text: "API prefix v2"})); slices.Contains(got, future.ID) {
		t.Fatalf("before effective_at: got %v, want the future rule hidden", got)
	}
	inactive := v.Recall(Query{Text: "API prefix v2", IncludeInactive: true})
	if len(inactive) != 1 || inactive[0].State != "future" {
		t.Fatalf("IncludeInactive before effective_at: got %+v, want one result in state future", inactive)
	}
	asOf := v.Recall(Query{Text: "API prefix v2", AsOf: clock.Now().Add(16 * 24 * time.Hour)})
	if !slices.Contains(ids(asOf), future.ID) {
		t.Fatalf("as_of after effective_at: got %v, want it shown", ids(asOf))
	}
	clock.Advance(15*24*time.Hour + time.Second)
	if got := ids(v.Recall(Query{Text: "API prefix v2"})); !slices.Contains(got, future.ID) {
		t.Fatalf("after effective_at: got %v, want it shown", got)
	}
}

func TestRecallTTLExpiry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		layer   Layer
		expires time.Duration // explicit expires_at from now; 0 = layer default
		visible []time.Duration
		hidden  []time.Duration
	}{
		{"L1 default one hour", Transient, 0, []time.Duration{59 * time.Minute}, []time.Duration{time.Hour, 2 * time.Hour}},
		{"L2 default seven days", ShortTerm, 0, []time.Duration{6 * 24 * time.Hour}, []time.Duration{7 * 24 * time.Hour}},
		{"L3 never by default", Project, 0, []time.Duration{5 * 365 * 24 * time.Hour}, nil},
		{"explicit expires_at", Project, 48 * time.Hour, []time.Duration{47 * time.Hour}, []time.Duration{48 * time.Hour}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newClock("2026-11-30T10:00:00Z")
			v := openTest(t, clock)
			n := NewMemory{Title: "Order service runs on port 8201", Content: "Local port 8101 is taken.", Layer: tt.layer}
			if tt.expires > 0 {
				n.ExpiresAt = clock.Now().Add(tt.expires)
			}
			m := mustCreate(t, v, n)
			start := clock.Now()
			for _, d := range tt.visible {
				if got := ids(v.Recall(Query{Text: "order service port", AsOf: start.Add(d)})); !slices.Contains(got, m.ID) {
					t.Errorf("at +%v: got %v, want visible", d, got)
				}
			}
			for _, d := range tt.hidden {
				if got := ids(v.Recall(Query{Text: "order service port", AsOf: start.Add(d)})); slices.Contains(got, m.ID) {
					t.Errorf("at +%v: got %v, want expired", d, got)
				}
			}
		})
	}
}

func approx(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestRecallProtectionPeriodRanking(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-06-01T00:00:00Z")
	v := openTest(t, clock)
	old := mustCreate(t, v, NewMemory{Title: "Cache keys use the shop prefix", Content: "Redis cache keys start with shop:.", Importance: 5})
	clock.Advance(40 * 24 * time.Hour)
	young := mustCreate(t, v, NewMemory{Title: "Cache keys use the shop prefix", Content: "Redis cache keys start with shop:.", Importance: 5, Layer: Project})
	// Both inside protection: equal weight, equal relevance.
	rs := v.Recall(Query{Text: "redis cache key prefix"})
	if len(rs) != 2 || !approx(rs[0].Score, rs[1].Score) {
		t.Fatalf("inside protection: got %+v, want two equal scores", rs)
	}
	// 100 days later the older one has left protection first and decays more.
	clock.Advance(100 * 24 * time.Hour)
	rs = v.Recall(Query{Text: "redis cache key prefix"})
	if len(rs) != 2 || rs[0].Memory.ID != young.ID || rs[1].Memory.ID != old.ID || rs[0].Score <= rs[1].Score {
		t.Fatalf("after protection: got %v, want younger %s first with a higher score", ids(rs), young.ID)
	}
}

func TestRecallTransientOutranksProjectOnlyBriefly(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	l3 := mustCreate(t, v, NewMemory{Title: "Order service port", Content: "The order service listens on 8101.", Layer: Project})
	l1 := mustCreate(t, v, NewMemory{Title: "Order service port", Content: "The order service listens on 8101.", Layer: Transient})

	clock.Advance(time.Minute)
	if got := ids(v.Recall(Query{Text: "order service port"})); len(got) < 2 || got[0] != l1.ID {
		t.Fatalf("one minute after writing: got %v, want L1 %s first", got, l1.ID)
	}
	clock.Advance(49 * time.Minute)
	if got := ids(v.Recall(Query{Text: "order service port"})); len(got) < 1 || got[0] != l3.ID {
		t.Fatalf("fifty minutes later: got %v, want L3 %s first", got, l3.ID)
	}
}

// A fresh note wins a tie with durable knowledge, not a contest: a
// transient note that matches the question clearly less well (here 87% of
// the rule's relevance) stays below the project rule even in its first
// minute. With the former layer weight 1.2 it came first.
func TestRecallFreshNoteDoesNotOutrankBetterRule(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	rule := mustCreate(t, v, NewMemory{Title: "Order service port", Content: "The order service listens on port 8101, set in dev/ports.env.", Layer: Project})
	note := mustCreate(t, v, NewMemory{Title: "Order service port for this session only", Content: "Moved to 8201 for now.", Layer: Transient})
	mustCreate(t, v, NewMemory{Title: "Payment service", Content: "The payment service listens on 8102.", Layer: Project})
	clock.Advance(time.Minute)
	rs := v.Recall(Query{Text: "order service port"})
	if len(rs) < 2 || rs[0].Memory.ID != rule.ID || rs[1].Memory.ID != note.ID {
		t.Fatalf("got %v, want the rule %s before the fresh note %s", ids(rs), rule.ID, note.ID)
	}
	// A fresh memory of importance 5 weighs its layer's weight.
	layerWeight := func(l Layer) float64 { return memory.Weight(&Memory{Layer: l, Importance: 5}, time.Time{}) }
	if w := layerWeight(Transient) / layerWeight(Project); w > 1.1 {
		t.Fatalf("transient/project layer weight = %v, want <= 1.1", w)
	}
}

func TestRecallImportanceIsBounded(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	relevant := mustCreate(t, v, NewMemory{Title: "Deploy with ops/deploy.sh", Content: "Blue-green deploy via ops/deploy.sh; rollback with --rollback.", Importance: 1})
	loud := mustCreate(t, v, NewMemory{Title: "Code review needs two approvals", Content: "Every merge request needs two approvals before deploy day.", Importance: 10})
	rs := v.Recall(Query{Text: "how to deploy with deploy.sh rollback"})
	if len(rs) == 0 || rs[0].Memory.ID != relevant.ID {
		t.Fatalf("got %v, want the relevant low-importance %s above the important but barely relevant %s", ids(rs), relevant.ID, loud.ID)
	}
	if b := memory.ImportanceBoost(10) / memory.ImportanceBoost(1); b > 1.26 {
		t.Fatalf("importance boost ratio = %v, want <= 1.25", b)
	}
}

func TestRecallSupersededHiddenAndNamed(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	old := mustCreate(t, v, NewMemory{Title: "Order states: unpaid, paid, cancelled", Content: "订单状态只有 unpaid / paid / cancelled。", Tags: []string{"orders"}})
	clock.Advance(24 * time.Hour)
	res, err := v.Create(t.Context(), NewMemory{Title: "Order states: unpaid, paid, cancelled, refunded", Content: "订单状态增加 refunded。",
		Tags: []string{"orders"}, Supersedes: []string{old.ID}}, Author{Reason: "refunds launched"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Superseded, []string{old.ID}) {
		t.Fatalf("Superseded = %v, want [%s]", res.Superseded, old.ID)
	}
	if got, _ := v.Get(old.ID); got.Status != StatusSuperseded || got.Version != 2 {
		t.Fatalf("old memory status=%s version=%d, want superseded version 2", got.Status, got.Version)
	}
	rs := v.Recall(Query{Text: "order states 订单状态"})
	if len(rs) != 1 || rs[0].Memory.ID != res.Memory.ID {
		t.Fatalf("got %v, want only the successor %s", ids(rs), res.Memory.ID)
	}
	if want := []Ref{{ID: old.ID, Title: old.Title}}; !slices.Equal(rs[0].Supersedes, want) {
		t.Fatalf("Supersedes = %v, want %v", rs[0].Supersedes, want)
	}
	if len(rs[0].PossibleConflict) != 0 {
		t.Fatalf("successor marked as conflicting: %v", rs[0].PossibleConflict)
	}
	all := v.Recall(Query{Text: "order states 订单状态", IncludeInactive: true})
	if len(all) != 2 {
		t.Fatalf("IncludeInactive: got %v, want both", ids(all))
	}
	for _, r := range all {
		if r.Memory.ID == old.ID && (r.State != "superseded" || len(r.SupersededBy) != 1 || r.SupersededBy[0].ID != res.Memory.ID) {
			t.Fatalf("old with IncludeInactive: state %q supersededBy %v, want superseded by %s", r.State, r.SupersededBy, res.Memory.ID)
		}
	}
}

func TestRecallFutureSuccessorDoesNotHideTheRuleInForce(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	old := mustCreate(t, v, NewMemory{Title: "Minimum Go version is 1.22", Content: "Services build with Go 1.22."})
	next := mustCreate(t, v, NewMemory{Title: "Minimum Go version is 1.24", Content: "Services build with Go 1.24.",
		Supersedes: []string{old.ID}, EffectiveAt: clock.Now().Add(30 * 24 * time.Hour)})
	if got := ids(v.Recall(Query{Text: "minimum Go version"})); !slices.Equal(got, []string{old.ID}) {
		t.Fatalf("before the successor applies: got %v, want only %s", got, old.ID)
	}
	clock.Advance(31 * 24 * time.Hour)
	if got := ids(v.Recall(Query{Text: "minimum Go version"})); !slices.Equal(got, []string{next.ID}) {
		t.Fatalf("after: got %v, want only %s", got, next.ID)
	}
}

func TestRecallMarksRivalRules(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	a := mustCreate(t, v, NewMemory{Title: "API errors: HTTP 200 with code=0 for success", Content: "Mobile clients read the code field; non-zero code is an error.", Tags: []string{"api", "errors"}})
	b := mustCreate(t, v, NewMemory{Title: "API errors: real HTTP status codes, success=true", Content: "Use 4xx/5xx statuses; successful bodies carry success=true.", Tags: []string{"api", "errors"}})
	c := mustCreate(t, v, NewMemory{Title: "Log format is JSON lines", Content: "Services log JSON lines with trace_id for API errors.", Tags: []string{"logging"}})
	// The query names what both rules are about; a memory that only
	// mentions API errors in passing may be cut as the weak tail.
	rs := v.Recall(Query{Text: "API errors HTTP status"})
	byID := map[string]Result{}
	for _, r := range rs {
		byID[r.Memory.ID] = r
	}
	if got := byID[a.ID].PossibleConflict; !slices.Equal(got, []string{b.ID}) {
		t.Errorf("a.PossibleConflict = %v, want [%s]", got, b.ID)
	}
	if got := byID[b.ID].PossibleConflict; !slices.Equal(got, []string{a.ID}) {
		t.Errorf("b.PossibleConflict = %v, want [%s]", got, a.ID)
	}
	if r, ok := byID[c.ID]; ok && len(r.PossibleConflict) > 0 {
		t.Errorf("unrelated memory marked as conflicting: %v", r.PossibleConflict)
	}
}

func TestRecallFilters(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	p := mustCreate(t, v, NewMemory{Title: "Tests use pytest", Content: "Python tooling tests use pytest.", Layer: Preference, Tags: []string{"testing", "python"}})
	q := mustCreate(t, v, NewMemory{Title: "Go tests are table-driven", Content: "Go tests use table-driven subtests.", Layer: Project, Tags: []string{"testing", "go"}})
	archived := mustCreate(t, v, NewMemory{Title: "Tests use nose", Content: "Python tests use nose.", Layer: Preference, Tags: []string{"python"}})
	if _, err := v.Forget(t.Context(), archived.ID, false, Author{Reason: "nose is dead"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"layers", Query{Text: "tests", Layers: []Layer{Preference}}, []string{p.ID}},
		{"tags any-of", Query{Text: "tests", Tags: []string{"GO"}}, []string{q.ID}},
		{"archived hidden", Query{Text: "python tests nose", Layers: []Layer{Preference}}, []string{p.ID}},
		{"limit", Query{Text: "tests", Limit: 1}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(v.Recall(tt.q))
			if tt.want == nil {
				if len(got) != tt.q.Limit {
					t.Fatalf("got %v, want %d result(s)", got, tt.q.Limit)
				}
				return
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRecallEmptyQueryListsRecent(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	var want []string
	for _, title := range []string{"first note", "second note", "third note"} {
		m := mustCreate(t, v, NewMemory{Title: title, Content: "body"})
		want = append([]string{m.ID}, want...)
		clock.Advance(time.Minute)
	}
	if got := ids(v.Recall(Query{})); !slices.Equal(got, want) {
		t.Fatalf("got %v, want newest first %v", got, want)
	}
}

func TestRecallMarksCrossLanguageRivals(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	en := mustCreate(t, v, NewMemory{Title: "API errors: always HTTP 200 with code=0 for success", Content: "Mobile clients read code.", Tags: []string{"api", "errors", "http", "mobile"}})
	zh := mustCreate(t, v, NewMemory{Title: "API 错误：使用真实 HTTP 状态码，成功响应带 success=true", Content: "用 4xx/5xx 状态码。", Tags: []string{"api", "errors", "http", "gateway"}})
	other := mustCreate(t, v, NewMemory{Title: "API 分页用 cursor", Content: "列表接口用 cursor 分页，不用 offset。", Tags: []string{"api", "pagination"}})
	rs := v.Recall(Query{Text: "API 错误 HTTP 状态码 code success 分页"})
	byID := map[string][]string{}
	for _, r := range rs {
		byID[r.Memory.ID] = r.PossibleConflict
	}
	if !slices.Equal(byID[en.ID], []string{zh.ID}) || !slices.Equal(byID[zh.ID], []string{en.ID}) {
		t.Fatalf("rivals not marked: en=%v zh=%v", byID[en.ID], byID[zh.ID])
	}
	if len(byID[other.ID]) != 0 {
		t.Fatalf("pagination rule marked as a rival: %v", byID[other.ID])
	}
}
