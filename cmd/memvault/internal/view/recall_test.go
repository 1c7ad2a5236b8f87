package view

import (
	"encoding/json"
	"testing"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/index"
)

func TestRecallOf(t *testing.T) {
	t.Parallel()
	if b, err := json.Marshal(RecallOf(nil)); err != nil || string(b) != `{"results":[]}` {
		t.Errorf("RecallOf(nil) = %s, %v; want an empty list", b, err)
	}
	rs := []vault.SetResult{
		{Vault: "user", Result: vault.Result{Memory: &vault.Memory{ID: "b", Layer: vault.Preference}, State: "active"}},
		{Vault: "project", Result: vault.Result{Memory: &vault.Memory{ID: "a", Layer: vault.Project}, State: "archived"}},
	}
	got := RecallOf(rs).Results
	if len(got) != 2 || got[0].ID != "b" || got[0].Vault != "user" || got[1].ID != "a" || got[1].Status != "archived" {
		t.Errorf("RecallOf = %+v, want b (user) then a (archived), in order", got)
	}
}

// TestExplainOfOrigins checks where ExplainOf says each matched term came
// from: the query (a typed word, stemmed or not, or a whole identifier),
// a part of a typed identifier or Chinese word, or an expansion.
func TestExplainOfOrigins(t *testing.T) {
	t.Parallel()
	e := &index.Explanation{Terms: []index.TermMatch{
		{Term: "strategi", Source: index.SourceTyped, Concept: "strategy"},
		{Term: "ops/deploy.sh", Source: index.SourceTyped, Concept: "ops/deploy.sh"},
		{Term: "deploy", Source: index.SourceTyped, Concept: "ops/deploy.sh"},
		{Term: "覆盖", Source: index.SourceTyped, Concept: "覆盖率"},
		{Term: "测试", Source: index.SourceTyped, Concept: "测试"},
		{Term: "rollback", Source: index.SourceGeneral, From: "回滚", Concept: "回滚", Body: 2},
		{Term: "流程", Source: index.SourceParaphrase, From: "怎么"},
	}, Concepts: []index.ConceptMatch{{Label: "署和"}}}
	got := ExplainOf(e, []vault.Adjustment{{Rule: vault.AdjustLink, Factor: 1.25, Note: "n"}})
	want := []string{OriginQuery, OriginQuery, OriginPart, OriginPart, OriginQuery, OriginExpansion, OriginExpansion}
	for i, w := range want {
		if got.Terms[i].Origin != w {
			t.Errorf("%s (%s of %q): origin %q, want %q", got.Terms[i].Term, got.Terms[i].Source, got.Terms[i].Concept, got.Terms[i].Origin, w)
		}
	}
	if got.Terms[5].Source != "cc-cedict" || got.Terms[5].From != "回滚" || got.Terms[5].Fields["body"] != 2 {
		t.Errorf("expansion: %+v", got.Terms[5])
	}
	if got.Concepts[0].How != "missing" || len(got.Adjustments) != 1 || got.Adjustments[0].Factor != 1.25 {
		t.Errorf("concepts %+v, adjustments %+v", got.Concepts, got.Adjustments)
	}
	if ExplainOf(nil, nil) != nil {
		t.Error("ExplainOf(nil) should be nil")
	}
}
