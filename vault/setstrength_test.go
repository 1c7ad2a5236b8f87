package vault

import (
	"testing"

	"github.com/memvault/memvault/vault/rank"
)

// TestSetRecallStrengthOnMergedList checks that Set.Recall decides strong
// and weak once, on the list merged from both vaults: a project rule that
// stands out in its own vault is not strong when a preference of the user
// vault answers the question as well, and the labels follow the merged
// scores.
func TestSetRecallStrengthOnMergedList(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	tv.remember(t, NewMemory{Title: "Deploy script runs in CI", Content: "The deploy script runs in CI, never by hand."}, "")
	tv.remember(t, NewMemory{Title: "Money is int64 cents", Content: "Store money as int64 cents."}, "")
	tv.remember(t, NewMemory{Title: "Deploy script on my laptop", Content: "I keep a copy of the deploy script.", Layer: Preference}, "")
	tv.remember(t, NewMemory{Title: "Answer in Chinese", Content: "用中文回答。", Layer: Preference}, "")
	const query = "deploy script rollback"

	alone := tv.project.Recall(Query{Text: query})
	if len(alone) == 0 || alone[0].Match != MatchStrong {
		t.Fatalf("project vault alone: %+v; want the CI rule first and strong (it stands out there)", alone)
	}
	rs, err := tv.set.Recall(t.Context(), Query{Text: query})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 2 {
		t.Fatalf("set recall: %d results, want the rule and the preference", len(rs))
	}
	for _, r := range rs {
		if r.Match != MatchWeak || r.MatchReason == "" {
			t.Errorf("%s (%s vault): match %q reason %q; want weak with a reason: neither stands out over the other", r.Memory.Title, r.Vault, r.Match, r.MatchReason)
		}
	}
	if rs[1].Score < rank.DefaultCut().Standout*rs[0].Score {
		t.Errorf("scores %v and %v: the second does not come close to the first, so the test shows nothing", rs[0].Score, rs[1].Score)
	}
	// Both were scored again together, and say so.
	for _, r := range rs[:2] {
		if n := len(r.Adjustments); n == 0 || r.Adjustments[n-1].Rule != AdjustCrossVault {
			t.Errorf("%s: adjustments %+v, want the cross-vault ranking last", r.Memory.Title, r.Adjustments)
		}
	}

	// A question the user vault alone answers: strong again, from the
	// merged list, and explained from its own vault's index.
	rs, err = tv.set.Recall(t.Context(), Query{Text: "answer in Chinese", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || rs[0].Memory.Title != "Answer in Chinese" || rs[0].Match != MatchStrong || rs[0].Vault != UserVault {
		t.Fatalf("got %+v; want the user preference, strong", rs)
	}
	if e := rs[0].Explain; e == nil || len(e.Terms) == 0 {
		t.Errorf("explain %+v; want the matched terms", e)
	}
}

// TestSetRecallOneVaultAsVaultRecall checks that a set whose other vault
// holds nothing answers as the one vault does: same results, order,
// labels and reasons.
func TestSetRecallOneVaultAsVaultRecall(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	for _, n := range []NewMemory{
		{Title: "Deploy with ops/deploy.sh", Content: "Blue-green deploy, 5% first."},
		{Title: "Deploy checklist", Content: "Check Grafana for ten minutes after the deploy."},
		{Title: "Rollback", Content: "Roll back with ops/rollback.sh."},
		{Title: "Money is int64 cents", Content: "Store money as int64 cents."},
	} {
		tv.remember(t, n, "")
	}
	for _, q := range []string{"deploy", "how do we roll back a deploy", "kubernetes helm", "money"} {
		want := tv.project.Recall(Query{Text: q})
		got, err := tv.set.Recall(t.Context(), Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: set %d results, vault %d", q, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Memory.ID != w.Memory.ID || g.Match != w.Match || g.MatchReason != w.MatchReason || g.Score != w.Score {
				t.Errorf("%q #%d: set %s %s %q %v, vault %s %s %q %v", q, i+1, g.Memory.Title, g.Match, g.MatchReason, g.Score,
					w.Memory.Title, w.Match, w.MatchReason, w.Score)
			}
		}
	}
}

// TestFinishTextStrongFirst checks that no weak result is listed above a
// strong one: a result that scores high on few of the query's concepts
// goes below the strong answers, which keep their order.
func TestFinishTextStrongFirst(t *testing.T) {
	res := func(title string, score, coverage float64) Result {
		return Result{Memory: &Memory{ID: title, Title: title}, Score: score, Coverage: coverage, Matched: 1, Concepts: 3}
	}
	rs := []Result{
		res("answer", 10, 0.9),
		res("one word, heavily", 9, 0.2), // weak: covers too little
		res("second answer", 8, 0.8),
		res("far below", 1, 0.5),
	}
	got := rank.Finish(rs, rank.DefaultCut(), 8, nil)
	var order []string
	for _, r := range got {
		order = append(order, r.Memory.Title+":"+r.Match)
	}
	want := []string{"answer:strong", "second answer:strong", "one word, heavily:weak"}
	if len(order) != len(want) {
		t.Fatalf("got %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("got %v, want %v", order, want)
		}
	}
}

// TestLinkedKeptBelowTheCut checks that a memory a strong match links to
// is kept, weak, with the link as its reason, even when its own text
// matches too little of the query to pass the tail cut.
func TestLinkedKeptBelowTheCut(t *testing.T) {
	tv := openTwoVaults(t, "2026-11-30T12:00:00Z")
	tv.remember(t, NewMemory{ID: "freeze", Title: "No releases on Fridays", Content: "Code freeze from Friday noon."}, "")
	tv.remember(t, NewMemory{ID: "index", Title: "Deploy index", Layer: Meta, Links: []string{"freeze"},
		Content: "Everything about how we deploy: the deploy script, the freeze rule."}, "")
	rs, err := tv.set.Recall(t.Context(), Query{Text: "deploy index"})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, r := range rs {
		titles = append(titles, r.Memory.Title+":"+r.Match)
	}
	if len(rs) != 2 || rs[1].Memory.ID != "freeze" || rs[1].Match != MatchWeak || rs[1].MatchReason != `linked from "Deploy index"` {
		t.Fatalf("got %v (%+v); want the index, then the rule it links to, weak, linked from the index", titles, rs)
	}
	if a := rs[1].Adjustments; len(a) == 0 || a[0].Rule != AdjustLink {
		t.Errorf("adjustments %+v, want the link", a)
	}
}
