package mcpserver

import (
	"flag"
	"fmt"
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

// TestContextSaysWhatItLeftOut fills the digest past its budget and
// checks that memory://context stays within it and ends by saying how
// many memories of each layer it left out.
func TestContextSaysWhatItLeftOut(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{})
	long := strings.Repeat("A rule with a long explanation that the digest shows in part. ", 4)
	for i := range 60 {
		// One made-up word per title: no two rules look like rivals.
		word := string([]byte{'q', byte('a' + i/26), byte('a' + i%26), 'x'})
		ts.project.add(t, vault.NewMemory{Title: word, Content: long, Importance: 9})
	}
	for i := range 12 {
		ts.project.add(t, vault.NewMemory{Title: fmt.Sprintf("Task %02d", i), Content: "Half done.", Layer: vault.ShortTerm})
	}
	text, err := readResource(t, ts.c, contextURI)
	if err != nil {
		t.Fatal(err)
	}
	if len(text) > resultsBudgetBytes {
		t.Errorf("digest is %d bytes, over the %d budget", len(text), resultsBudgetBytes)
	}
	shown := strings.Count(text, "\n- q")
	want := fmt.Sprintf("(%d more memories not shown: 12 L2, %d L3; use the recall tool to see them)\n", 72-shown, 60-shown)
	if shown == 0 || shown == 60 || !strings.HasSuffix(text, want) {
		t.Errorf("%d rules shown; digest ends %q, want %q", shown, text[max(0, len(text)-120):], want)
	}
}

// TestRecallTextStaleness: a result whose code moved on carries its state
// and reason in the text the model reads; a fresh one and one without
// refs add nothing.
func TestRecallTextStaleness(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		st   *view.Staleness
		want string // "" means no staleness line
	}{
		{"stale", &view.Staleness{State: "stale", Reason: "ops/deploy.sh was renamed to ops/release.sh"}, "   stale: ops/deploy.sh was renamed to ops/release.sh"},
		{"possibly stale", &view.Staleness{State: "possibly_stale", Reason: "a.go changed in 1 commit"}, "   possibly stale: a.go changed in 1 commit"},
		{"fresh", &view.Staleness{State: "fresh", Reason: "none of its 1 ref changed"}, ""},
		{"no refs", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, _ := renderResults([]view.RecallResult{{ID: "x", Title: "X", Layer: "project", Status: "active", Version: 1, Staleness: tt.st}}, "", "")
			got := ""
			for _, line := range strings.Split(text, "\n") {
				if strings.Contains(line, "stale") || strings.Contains(line, "fresh") {
					got = line
				}
			}
			if got != tt.want {
				t.Errorf("staleness line %q, want %q; text:\n%s", got, tt.want, text)
			}
		})
	}
}
