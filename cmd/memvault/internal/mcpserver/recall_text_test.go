package mcpserver

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestRecallTextGolden pins the recall tool's text for the model: strong
// matches first, the weaker ones with the reason each was kept, a plain
// statement when nothing answers strongly, and with explain the terms
// matched from the query and through expansion and the rules that moved
// a result. The structured answer carries match, match_reason and
// explain for the same results.
func TestRecallTextGolden(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{user: true})
	for _, n := range []vault.NewMemory{
		{ID: "deploy", Title: "Deploy with ops/deploy.sh", Tags: []string{"deploy"}, Importance: 8,
			Content: "上线用 ops/deploy.sh 做蓝绿发布：先切 5% 流量，盯 Grafana 十分钟再全量。"},
		{ID: "freeze", Title: "No releases on Fridays", Content: "Code freeze from Friday noon."},
		{ID: "index", Title: "Deploy index", Layer: vault.Meta, Links: []string{"freeze"},
			Content: "Everything about how we deploy: the deploy script, the freeze rule."},
		{ID: "money", Title: "Money is int64 cents", Content: "Store money as int64 cents, never float64."},
	} {
		ts.project.add(t, n)
	}
	ts.user.add(t, vault.NewMemory{ID: "pref", Title: "Deploy on Tuesdays if I can", Layer: vault.Preference,
		Content: "I like to deploy on Tuesdays."})

	var b strings.Builder
	for _, args := range []map[string]any{
		{"query": "how do we deploy"},
		{"query": "kubernetes helm chart for the deploy"},
		{"query": "怎么部署 ops/deploy.sh", "explain": true, "limit": 2},
		{"query": "deploy index", "explain": true},
		{"query": "terraform"},
	} {
		res, text := callTool(t, ts.c, "recall", args)
		if res.IsError {
			t.Fatalf("recall %v: %s", args, text)
		}
		var got view.Recall
		decodeStructured(t, res, &got)
		for _, r := range got.Results {
			if r.Match != vault.MatchStrong && r.Match != vault.MatchWeak {
				t.Errorf("%v: %s has match %q", args, r.ID, r.Match)
			}
			if (r.Match == vault.MatchWeak) != (r.MatchReason != "") {
				t.Errorf("%v: %s is %s with reason %q: a weak result says why it was kept, a strong one needs no reason", args, r.ID, r.Match, r.MatchReason)
			}
			if (r.Explain != nil) != (args["explain"] == true) {
				t.Errorf("%v: %s explain %+v", args, r.ID, r.Explain)
			}
		}
		b.WriteString("recall " + args["query"].(string) + "\n" + text + "\n\n")
	}
	golden(t, filepath.Join("testdata", "recall_text.golden"), b.String())
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update and check the diff):\n%s", path, got)
	}
}
