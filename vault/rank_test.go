package vault

import (
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/rank"
)

func TestRecallStrongOnlyWhenAnswered(t *testing.T) {
	v := openTest(t, newClock("2026-11-30T10:00:00Z"))
	mustCreate(t, v, NewMemory{Title: "Kafka topic naming", Content: "Topics are named <domain>.<event>.v<N>, for example order.events.v1.", Tags: []string{"kafka"}})
	mustCreate(t, v, NewMemory{Title: "Production deploy via ops/deploy.sh", Content: "ops/deploy.sh runs helm upgrade with health checks.", Tags: []string{"deploy"}})
	mustCreate(t, v, NewMemory{Title: "Redis key naming", Content: "Keys are service:entity:id with a TTL.", Tags: []string{"redis"}})
	for _, tt := range []struct {
		query  string
		strong bool
	}{
		{"how are kafka topics named", true},
		{"ops/deploy.sh", true},
		// Most of what it asks, the vault does not hold.
		{"how many partitions and replicas does the billing kafka topic have in production", false},
		{"明天天气怎么样", false},
	} {
		rs := v.Recall(Query{Text: tt.query})
		got := len(rs) > 0 && rs[0].Match == MatchStrong
		if got != tt.strong {
			var desc []string
			for _, r := range rs {
				desc = append(desc, r.Memory.Title+" "+r.Match+" "+r.MatchReason)
			}
			t.Errorf("%q: strong first result = %v, want %v (%v)", tt.query, got, tt.strong, desc)
		}
		for _, r := range rs {
			if r.Match == MatchWeak && r.MatchReason == "" {
				t.Errorf("%q: weak result %q has no reason", tt.query, r.Memory.Title)
			}
		}
	}
}

func TestRecallLinkEvidence(t *testing.T) {
	v := openTest(t, newClock("2026-11-30T10:00:00Z"))
	refund := mustCreate(t, v, NewMemory{Title: "Refunds go back through the original channel", Content: "A refund is paid to the card or wallet the order was paid with."})
	ledger := mustCreate(t, v, NewMemory{Title: "Ledger entries are append-only", Content: "Money movements are never updated in place."})
	mustCreate(t, v, NewMemory{Title: "Topic index: payments", Layer: Meta, Content: "Payment memories: refunds, ledger rules, reconciliation.",
		Links: []string{refund.ID, ledger.ID}})
	mustCreate(t, v, NewMemory{Title: "Reconciliation runs nightly", Content: "Payments are reconciled against the provider report at 02:00."})
	rs := v.Recall(Query{Text: "payments topic index"})
	pos := map[string]int{}
	for i, r := range rs {
		pos[r.Memory.ID] = i
	}
	i, ok := pos[ledger.ID]
	if !ok {
		t.Fatalf("the ledger memory, linked from the matching index note, is missing: %v", ids(rs))
	}
	if r := rs[i]; r.MatchReason != `linked from "Topic index: payments"` || r.Match != MatchWeak {
		t.Errorf("ledger result: match %q, reason %q; want weak, linked from the index note", r.Match, r.MatchReason)
	}
	// A note that does not match strongly vouches for nothing, and
	// neither does one that mentions the query's words in passing (its
	// title is about something else).
	mustCreate(t, v, NewMemory{Title: "Topic index: payments and money", Layer: Meta, Importance: 10,
		Content: "Money rules. API errors: API errors never carry amounts, and API errors are logged.", Links: []string{ledger.ID}})
	mustCreate(t, v, NewMemory{Title: "API conventions", Content: "Errors answer 4xx or 5xx with a JSON body; the API is versioned."})
	for _, q := range []string{"nightly reconciliation report", "API errors"} {
		for _, r := range v.Recall(Query{Text: q}) {
			if strings.HasPrefix(r.MatchReason, "linked from") {
				t.Errorf("%q: %q gained through a link from a note not about the query", q, r.Memory.Title)
			}
		}
	}
}

func TestRecallSuccessorsFirst(t *testing.T) {
	v := openTest(t, newClock("2026-11-30T10:00:00Z"))
	old := mustCreate(t, v, NewMemory{Title: "Unpaid orders are cancelled after 30 minutes", Importance: 9,
		Content: "Unpaid orders are cancelled after 30 minutes by the cancel_stale_orders task; unpaid orders cancelled."})
	newer := mustCreate(t, v, NewMemory{Title: "Unpaid timeout is now 15 minutes", Importance: 5,
		Content: "The cancel window for unpaid orders is 15 minutes.", Supersedes: []string{old.ID}})
	rs := v.Recall(Query{Text: "unpaid orders cancelled", IncludeInactive: true})
	got := ids(rs)
	io, in := slices.Index(got, old.ID), slices.Index(got, newer.ID)
	if io < 0 || in < 0 {
		t.Fatalf("want both rules shown with include_inactive, got %v", got)
	}
	if io < in {
		t.Errorf("the replaced rule ranks %d, above its successor at %d", io, in)
	}
	if rs[io].Score > rs[in].Score {
		t.Errorf("the replaced rule scores %v, above its successor's %v", rs[io].Score, rs[in].Score)
	}
}

// TestRecallDeclaredOldBelowSuccessor pins the inferred successor: an old
// rule that says so in its title, with no supersedes recorded, ranks below
// the rule on its topic (a shared tag) that covers as much of the query,
// though its title holds the query's words; an old rule with no such
// result keeps its place, and so does one whose only same-topic result
// covers less of the query.
func TestRecallDeclaredOldBelowSuccessor(t *testing.T) {
	v := openTest(t, newClock("2026-11-30T10:00:00Z"))
	old := mustCreate(t, v, NewMemory{Title: "Coverage threshold 70% for the whole repo (old rule)", Importance: 4, Tags: []string{"testing", "coverage"},
		Content: "Every service must keep line coverage at 70%; CI fails below the coverage threshold."})
	newer := mustCreate(t, v, NewMemory{Title: "Order and payment services raised to 85%", Importance: 7, Tags: []string{"testing", "coverage"},
		Content: "Since 2024-02 the line coverage threshold of services/order and services/payment is 85%, replacing the earlier repo-wide rule."})
	lint := mustCreate(t, v, NewMemory{Title: "Lint with flake8 (deprecated)", Tags: []string{"lint"},
		Content: "Python code was linted with flake8 before ruff."})
	mustCreate(t, v, NewMemory{Title: "Lint in CI", Tags: []string{"ci"}, Content: "The CI lint stage runs ruff check."})
	mustCreate(t, v, NewMemory{Title: "Lint config", Tags: []string{"lint"}, Content: "Lint settings live in pyproject.toml."})

	rs := v.Recall(Query{Text: "coverage threshold"})
	if got := ids(rs); len(got) < 2 || got[0] != newer.ID || got[1] != old.ID {
		t.Fatalf("got %v, want the current rule %s before the old one %s", got, newer.ID, old.ID)
	}
	if adj := rs[1].Adjustments; len(adj) != 1 || adj[0].Rule != AdjustSupersession || !strings.Contains(adj[0].Note, "old rule") {
		t.Errorf("old rule adjustments = %+v, want one supersession note saying why", adj)
	}
	// Without the marker in its title the old rule wins on its words.
	plain := openTest(t, newClock("2026-11-30T10:00:00Z"))
	o2 := mustCreate(t, plain, NewMemory{Title: "Coverage threshold 70% for the whole repo", Importance: 4, Tags: []string{"testing", "coverage"},
		Content: "Every service must keep line coverage at 70%; CI fails below the coverage threshold."})
	mustCreate(t, plain, NewMemory{Title: "Order and payment services raised to 85%", Importance: 7, Tags: []string{"testing", "coverage"},
		Content: "Since 2024-02 the line coverage threshold of services/order and services/payment is 85%, replacing the earlier repo-wide rule."})
	if got := ids(plain.Recall(Query{Text: "coverage threshold"})); len(got) == 0 || got[0] != o2.ID {
		t.Fatalf("without the marker the test loses its point: got %v, want %s first", got, o2.ID)
	}
	// "Lint in CI" shares no tag; "Lint config" shares one but covers less
	// of "flake8 lint": the deprecated note stays first.
	if got := ids(v.Recall(Query{Text: "flake8 lint"})); len(got) == 0 || got[0] != lint.ID {
		t.Errorf("got %v, want the deprecated note %s first: no result stands in for it", got, lint.ID)
	}
}

func TestRecallNearDuplicatesApart(t *testing.T) {
	v := openTest(t, newClock("2026-11-30T10:00:00Z"))
	text := "Service logs are JSON lines written with structlog; every line carries trace_id and request_id."
	a := mustCreate(t, v, NewMemory{Title: "Logs are structured JSON", Content: text, Importance: 6})
	b := mustCreate(t, v, NewMemory{Title: "Logs are structured JSON lines", Content: text, Importance: 6})
	mustCreate(t, v, NewMemory{Title: "Log levels", Content: "Use INFO for business events, DEBUG only locally; logs ship to Loki."})
	mustCreate(t, v, NewMemory{Title: "Log retention", Content: "Loki keeps logs for 30 days; structured fields are indexed."})
	mustCreate(t, v, NewMemory{Title: "JSON logs in the admin console", Content: "The admin console writes structured JSON logs too."})
	rs := v.Recall(Query{Text: "structured JSON logs"})
	if len(rs) < 4 {
		t.Fatalf("want at least 4 results, got %d", len(rs))
	}
	top := ids(rs[:rank.DistinctTop])
	if slices.Contains(top, a.ID) && slices.Contains(top, b.ID) {
		t.Errorf("near-identical memories share the first %d places: %v", rank.DistinctTop, top)
	}
	if !slices.Contains(top, a.ID) && !slices.Contains(top, b.ID) {
		t.Errorf("neither copy is among the first %d places: %v", rank.DistinctTop, top)
	}
	if r := rs[rank.DistinctTop]; (r.Memory.ID != a.ID && r.Memory.ID != b.ID) || r.Match != MatchWeak ||
		!strings.HasPrefix(r.MatchReason, "near-duplicate of") {
		t.Errorf("place %d: %q %s %q, want the other copy, weak, named a near-duplicate", rank.DistinctTop+1, r.Memory.Title, r.Match, r.MatchReason)
	}
}

func TestRecallExplain(t *testing.T) {
	v := openTest(t, newClock("2026-11-30T10:00:00Z"))
	mustCreate(t, v, NewMemory{Title: "Production deploy via ops/deploy.sh", Content: "Run ops/deploy.sh prod.", Tags: []string{"deploy"}})
	rs := v.Recall(Query{Text: "怎么部署 ops/deploy.sh", Explain: true})
	if len(rs) != 1 || rs[0].Explain == nil {
		t.Fatalf("want one explained result, got %+v", rs)
	}
	e := rs[0].Explain
	if abs := e.Relevance - rs[0].Relevance; abs > 1e-6 || abs < -1e-6 {
		t.Errorf("explained relevance %v, result %v", e.Relevance, rs[0].Relevance)
	}
	var sb strings.Builder
	if err := e.Format(&sb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ops/deploy.sh"`, "typed", `dictionary of "部署"`, "title×"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("explanation lacks %q:\n%s", want, sb.String())
		}
	}
	if rs := v.Recall(Query{Text: "deploy"}); rs[0].Explain != nil {
		t.Error("Explain filled without Query.Explain")
	}
}
