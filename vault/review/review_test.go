package review

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/access"
	"github.com/memvault/memvault/vault/staleness"
)

var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// mem is an active memory created 60 days before now; opts adjust it.
func mem(id, title string, l vault.Layer, opts ...func(*vault.Memory)) *vault.Memory {
	m := &vault.Memory{ID: id, Title: title, Layer: l, Status: vault.StatusActive, Path: l.Dir() + "/" + id + ".md",
		CreatedAt: now.AddDate(0, 0, -60), UpdatedAt: now.AddDate(0, 0, -60), Version: 1}
	for _, o := range opts {
		o(m)
	}
	return m
}

func tags(ts ...string) func(*vault.Memory) { return func(m *vault.Memory) { m.Tags = ts } }
func status(s vault.Status) func(*vault.Memory) {
	return func(m *vault.Memory) { m.Status = s }
}
func expires(d time.Duration) func(*vault.Memory) {
	return func(m *vault.Memory) { m.ExpiresAt = now.Add(d) }
}
func effective(d time.Duration) func(*vault.Memory) {
	return func(m *vault.Memory) { m.EffectiveAt = now.Add(d) }
}
func created(d time.Duration) func(*vault.Memory) {
	return func(m *vault.Memory) { m.CreatedAt = now.Add(d) }
}

const day = 24 * time.Hour

func ids(es []Entry) []string {
	out := []string{}
	for _, e := range es {
		s := e.ID
		if e.Kind != "" {
			s += ":" + e.Kind
		}
		for _, o := range e.With {
			s += "+" + o.ID
		}
		out = append(out, s)
	}
	return out
}

func check(t *testing.T, got []Entry, want []string) {
	t.Helper()
	if g := ids(got); !slices.Equal(g, want) {
		t.Errorf("entries %v, want %v", g, want)
	}
	for _, e := range got {
		if e.ID == "" && e.Path == "" || e.Reason == "" {
			t.Errorf("entry %+v has no id, path or reason", e)
		}
	}
}

func TestStale(t *testing.T) {
	t.Parallel()
	stale := staleness.Staleness{State: staleness.Stale, Reason: "a.go was renamed to b.go"}
	maybe := staleness.Staleness{State: staleness.PossiblyStale, Reason: "c.go changed in 1 commit"}
	fresh := staleness.Staleness{State: staleness.Fresh, Reason: "none of its 1 ref changed"}
	tests := []struct {
		name   string
		ms     []*vault.Memory
		states map[string]staleness.Staleness
		want   []string
	}{
		{"stale first, then possibly stale, by path",
			[]*vault.Memory{mem("a", "A", vault.Project), mem("b", "B", vault.Project), mem("c", "C", vault.Project)},
			map[string]staleness.Staleness{"a": maybe, "b": stale, "c": maybe}, []string{"b:stale", "a:possibly_stale", "c:possibly_stale"}},
		{"fresh and unchecked memories are left out",
			[]*vault.Memory{mem("a", "A", vault.Project), mem("b", "B", vault.Project)},
			map[string]staleness.Staleness{"a": fresh}, []string{}},
		{"archived, superseded, expired and transient memories are left out",
			[]*vault.Memory{mem("a", "A", vault.Project, status(vault.StatusArchived)), mem("b", "B", vault.Project, status(vault.StatusSuperseded)),
				mem("c", "C", vault.ShortTerm, expires(-day)), mem("d", "D", vault.Transient)},
			map[string]staleness.Staleness{"a": stale, "b": stale, "c": stale, "d": stale}, []string{}},
		{"a rule not yet in force is included",
			[]*vault.Memory{mem("a", "A", vault.Project, effective(3*day))},
			map[string]staleness.Staleness{"a": stale}, []string{"a:stale"}},
		{"outside git: no states, nothing stale", []*vault.Memory{mem("a", "A", vault.Project)}, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Build(Input{Memories: tt.ms, Staleness: tt.states, Now: now})
			check(t, r.Stale, tt.want)
			for _, e := range r.Stale {
				if want := tt.states[e.ID].Reason; e.Reason != want {
					t.Errorf("%s: reason %q, want the staleness reason %q", e.ID, e.Reason, want)
				}
			}
		})
	}
}

func TestExpiring(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		days int
		ms   []*vault.Memory
		want []string
	}{
		{"a rule expiring in the window",
			14, []*vault.Memory{mem("a", "A", vault.Project, expires(13*day))}, []string{"a:expires"}},
		{"a preference taking effect in the window",
			14, []*vault.Memory{mem("a", "A", vault.Preference, effective(2*day))}, []string{"a:takes_effect"}},
		{"soonest first; both events of one rule",
			14, []*vault.Memory{mem("a", "A", vault.Project, expires(10*day)), mem("b", "B", vault.Project, effective(day), expires(5*day))},
			[]string{"b:takes_effect", "b:expires", "a:expires"}},
		{"the window's last instant is in, the next one out",
			14, []*vault.Memory{mem("a", "A", vault.Project, expires(14*day)), mem("b", "B", vault.Project, expires(14*day+time.Second))}, []string{"a:expires"}},
		{"--days widens the window",
			30, []*vault.Memory{mem("a", "A", vault.Project, expires(20*day))}, []string{"a:expires"}},
		{"past dates, notes and archived rules are left out",
			14, []*vault.Memory{mem("a", "A", vault.Project, effective(-day)), mem("b", "B", vault.ShortTerm, expires(3*day)),
				mem("c", "C", vault.Meta, expires(3*day)), mem("d", "D", vault.Project, expires(3*day), status(vault.StatusArchived))}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Build(Input{Memories: tt.ms, Now: now, Days: tt.days})
			check(t, r.Expiring, tt.want)
			for _, e := range r.Expiring {
				if e.When.IsZero() || !strings.Contains(e.Reason, e.When.Format("2006-01-02")) {
					t.Errorf("%s: when %s, reason %q: want the date in the reason", e.ID, e.When, e.Reason)
				}
			}
		})
	}
}

func TestRivals(t *testing.T) {
	t.Parallel()
	a := mem("01A", "API errors always HTTP 200 with an error code", vault.Project, tags("api", "errors"))
	b := mem("01B", "API errors use real HTTP status codes", vault.Project, tags("api", "errors"))
	sup := mem("01C", "API errors use real HTTP status codes", vault.Project, tags("api", "errors"), func(m *vault.Memory) { m.Supersedes = []string{"01A"} })
	future := mem("01D", "API errors use real HTTP status codes", vault.Project, tags("api", "errors"), effective(3*day))
	note := mem("01E", "API errors use real HTTP status codes", vault.ShortTerm, tags("api", "errors"))
	dupA := mem("01F", "Commit messages follow Conventional Commits", vault.Preference, tags("git"))
	dupB := mem("01G", "Commit messages follow the Conventional Commits format", vault.Preference, tags("git"))
	flagAll := func(q vault.Query) []vault.Result {
		// Every rule of the test comes back, flagged against every other.
		var out []vault.Result
		all := []*vault.Memory{a, b, sup, future, note, dupA, dupB}
		for _, m := range all {
			r := vault.Result{Memory: m}
			for _, o := range all {
				if o != m {
					r.PossibleConflict = append(r.PossibleConflict, o.ID)
				}
			}
			out = append(out, r)
		}
		return out
	}
	flagNone := func(q vault.Query) []vault.Result { return []vault.Result{{Memory: a}, {Memory: b}} }
	tests := []struct {
		name   string
		ms     []*vault.Memory
		recall func(vault.Query) []vault.Result
		want   []string
	}{
		{"two rules on one subject, both in force", []*vault.Memory{a, b}, flagAll, []string{"01A+01B"}},
		{"without a recall, the criteria alone", []*vault.Memory{a, b}, nil, []string{"01A+01B"}},
		{"not when recall does not flag them together", []*vault.Memory{a, b}, flagNone, []string{}},
		{"not when one supersedes the other", []*vault.Memory{a, sup}, flagAll, []string{}},
		{"not when one is not in force yet", []*vault.Memory{a, future}, flagAll, []string{}},
		{"notes are not rules", []*vault.Memory{a, note}, flagAll, []string{}},
		{"near-duplicates are duplicates, not rivals", []*vault.Memory{dupA, dupB}, flagAll, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Build(Input{Memories: tt.ms, Recall: tt.recall, Now: now})
			check(t, r.Rivals, tt.want)
		})
	}
}

func TestConflicted(t *testing.T) {
	t.Parallel()
	m := mem("01A", "Load test plan", vault.ShortTerm, func(m *vault.Memory) {
		m.Conflicted = []string{"importance", "body"}
		m.ConflictTheirs = map[string]string{"importance": "8", "body": "their text"}
	})
	tests := []struct {
		name   string
		files  []vault.ConflictedFile
		want   []string
		reason string
	}{
		{"a conflict record names the fields and their values",
			[]vault.ConflictedFile{{Path: m.Path, ID: m.ID, What: []string{"importance", "body"}}}, []string{"01A:record"}, "importance (theirs: 8), body"},
		{"conflict markers",
			[]vault.ConflictedFile{{Path: "project/x.md", What: []string{vault.ConflictedMarkers}}}, []string{":markers"}, "conflict markers"},
		{"none", nil, []string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Build(Input{Memories: []*vault.Memory{m}, Conflicted: tt.files, Now: now})
			check(t, r.Conflicted, tt.want)
			if len(r.Conflicted) > 0 && !strings.Contains(r.Conflicted[0].Reason, tt.reason) {
				t.Errorf("reason %q, want it to contain %q", r.Conflicted[0].Reason, tt.reason)
			}
		})
	}
}

func TestDuplicates(t *testing.T) {
	t.Parallel()
	older := created(-90 * day)
	tests := []struct {
		name      string
		ms        []*vault.Memory
		want      []string
		suggested []string
	}{
		{"near-identical titles in one layer, the oldest first",
			[]*vault.Memory{mem("01B", "Commit messages follow the Conventional Commits format", vault.Preference),
				mem("01A", "Commit messages follow Conventional Commits", vault.Preference, older)},
			[]string{"01A:near_duplicate+01B"}, []string{"Commit messages follow Conventional Commits"}},
		{"not across layers",
			[]*vault.Memory{mem("01A", "Commit messages follow Conventional Commits", vault.Preference),
				mem("01B", "Commit messages follow Conventional Commits.", vault.Project)}, []string{}, nil},
		{"not a rule and its negation",
			[]*vault.Memory{mem("01A", "Use tabs for indentation", vault.Preference), mem("01B", "Do not use tabs for indentation", vault.Preference)}, []string{}, nil},
		{"not a rule and a narrower one (under 75% alike)",
			[]*vault.Memory{mem("01A", "Use pytest for tests", vault.Preference), mem("01B", "Use pytest for integration tests in CI", vault.Preference)}, []string{}, nil},
		{"L2 notes sharing two tags, with the words their titles share",
			[]*vault.Memory{mem("01A", "Investigating duplicate OrderPaid events in staging", vault.ShortTerm, older, tags("orders", "events", "kafka")),
				mem("01B", "Duplicate OrderPaid events: the relay marks rows sent after publishing", vault.ShortTerm, tags("orders", "events", "outbox"))},
			[]string{"01A:same_topic+01B"}, []string{"Duplicate OrderPaid events"}},
		{"three L2 notes chained into one cluster",
			[]*vault.Memory{mem("01A", "Checkout p99 regression", vault.ShortTerm, older, tags("checkout", "perf")),
				mem("01B", "Checkout preview slow under load", vault.ShortTerm, tags("checkout", "perf", "load-test")),
				mem("01C", "Load test plan", vault.ShortTerm, tags("load-test", "perf"))},
			[]string{"01A:same_topic+01B+01C"}, []string{"Checkout p99 regression"}},
		{"one shared tag is not enough when the titles differ",
			[]*vault.Memory{mem("01A", "Load test on Tuesday", vault.ShortTerm, tags("双12", "load-test")),
				mem("01B", "Freeze until 12-15", vault.ShortTerm, tags("双12", "deploy"))}, []string{}, nil},
		{"expired L2 notes are not consolidated",
			[]*vault.Memory{mem("01A", "Investigating duplicate events", vault.ShortTerm, tags("orders", "events"), expires(-day)),
				mem("01B", "Duplicate events root cause", vault.ShortTerm, tags("orders", "events"))}, []string{}, nil},
		{"project rules sharing tags are not notes to merge",
			[]*vault.Memory{mem("01A", "Order events use an outbox", vault.Project, tags("orders", "events")),
				mem("01B", "Kafka topic naming", vault.Project, tags("orders", "events"))}, []string{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Build(Input{Memories: tt.ms, Now: now})
			check(t, r.Duplicates, tt.want)
			var got []string
			for _, e := range r.Duplicates {
				got = append(got, e.Suggested)
			}
			if !slices.Equal(got, tt.suggested) {
				t.Errorf("suggested titles %q, want %q", got, tt.suggested)
			}
		})
	}
}

func TestDangling(t *testing.T) {
	t.Parallel()
	target := mem("01T", "Target", vault.Project, func(m *vault.Memory) { m.Aliases = []string{"project/target"} })
	tests := []struct {
		name string
		m    *vault.Memory
		want []string
	}{
		{"a link by an old path id the target keeps in aliases", mem("01A", "Index", vault.Meta, func(m *vault.Memory) { m.Links = []string{"project/target"} }), []string{}},
		{"a link to a deleted memory", mem("01A", "Index", vault.Meta, func(m *vault.Memory) { m.Links = []string{"01T", "01GONE"} }), []string{"01A:link"}},
		{"supersedes naming nothing", mem("01A", "New", vault.Project, func(m *vault.Memory) { m.Supersedes = []string{"01GONE"} }), []string{"01A:supersedes"}},
		{"a repeat and itself are not reported again", mem("01A", "New", vault.Project, func(m *vault.Memory) { m.Links = []string{"01GONE", "01GONE", "01A"} }), []string{"01A:link"}},
		{"a ref that does not parse", mem("01A", "Deploys", vault.Project, func(m *vault.Memory) { m.Refs = []string{"ops/deploy.sh", "/etc/passwd", "../x"} }), []string{"01A:ref", "01A:ref"}},
		{"an archived memory's dangling link still misleads", mem("01A", "Old", vault.Meta, status(vault.StatusArchived), func(m *vault.Memory) { m.Links = []string{"01GONE"} }), []string{"01A:link"}},
		{"links and refs that resolve", mem("01A", "Index", vault.Meta, func(m *vault.Memory) { m.Links = []string{"01T"}; m.Refs = []string{"a/b.go#F", "dir/"} }), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Build(Input{Memories: []*vault.Memory{target, tt.m}, Now: now})
			check(t, r.Dangling, tt.want)
		})
	}
}

func TestUnused(t *testing.T) {
	t.Parallel()
	ms := []*vault.Memory{
		mem("01A", "Never recalled", vault.Project),
		mem("01B", "Recalled last week", vault.Project),
		mem("01C", "Recalled long ago", vault.Preference),
		mem("01D", "Too new to judge", vault.Project, created(-3*day)),
		mem("01E", "Scratch", vault.Transient),
		mem("01F", "Archived", vault.Project, status(vault.StatusArchived)),
	}
	acc := func(since time.Duration) *access.Summary {
		return &access.Summary{Since: now.Add(since),
			Last:  map[string]time.Time{"01B": now.Add(-7 * day), "01C": now.Add(-40 * day)},
			Count: map[string]int{"01B": 3, "01C": 2}}
	}
	tests := []struct {
		name   string
		acc    *access.Summary
		days   int
		judged bool
		want   []string
	}{
		{"never recalled first, then the longest unrecalled", acc(-50 * day), 14, true, []string{"01A:unused", "01C:unused"}},
		{"a wider window forgives less", acc(-50 * day), 45, true, []string{"01A:unused"}},
		{"records younger than the window judge nothing", acc(-5 * day), 14, false, []string{}},
		{"outside git there is no record", nil, 14, false, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Build(Input{Memories: ms, Access: tt.acc, Now: now, Days: tt.days})
			if r.UnusedJudged != tt.judged {
				t.Errorf("UnusedJudged %v, want %v", r.UnusedJudged, tt.judged)
			}
			check(t, r.Unused, tt.want)
		})
	}
}

// TestEmptySectionsAreLists: every section is a list in JSON, empty or
// not (scripts rely on the keys).
func TestEmptySectionsAreLists(t *testing.T) {
	t.Parallel()
	r := Build(Input{Now: now})
	for name, s := range map[string][]Entry{"stale": r.Stale, "expiring": r.Expiring, "rivals": r.Rivals, "conflicted": r.Conflicted,
		"duplicates": r.Duplicates, "dangling": r.Dangling, "unused": r.Unused} {
		if s == nil {
			t.Errorf("%s is nil", name)
		}
	}
	if r.Days != DefaultDays || r.Total() != 0 {
		t.Errorf("days %d, total %d", r.Days, r.Total())
	}
}
