package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
	"github.com/memvault/memvault/vault/review"
)

// reviewNow is the instant the sample's review is judged at: the morning
// after the sample's "today".
var reviewNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// TestReviewSample replays the sample vault's history, uses the clone for
// three weeks (recalls through the CLI 20 days before reviewNow, through
// MCP 2 days before; the clock moves, the repository does not), then
// reviews it through both doors: `review --markdown` is the golden file
// testdata/git/review-sample.md, every section has at least one entry,
// and memory://review is the same Markdown.
func TestReviewSample(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	root := filepath.Join(t.TempDir(), "shopflow")
	clock := &testClock{now: reviewNow.AddDate(0, 0, -20)}
	r := &cliRepo{t: t, root: root, dir: filepath.Join(root, samplehistory.VaultDir), now: clock.now, home: t.TempDir()}
	r.ok("sample-history", root, "--sample", filepath.Join("..", "..", "sample-vault"))
	var early []string // by the CLI, 20 days before the review
	for _, q := range []string{"how do we ship to production", "结算模块怎么设计的", "order status", "Kafka topic naming"} {
		var out struct {
			Results []struct{ ID string } `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.ok("recall", q, "--json", "--limit", "3")), &out); err != nil {
			t.Fatal(err)
		}
		for _, x := range out.Results {
			early = append(early, x.ID)
		}
	}
	c := serveReview(t, clock.Now, r)
	clock.mu.Lock()
	clock.now = reviewNow.AddDate(0, 0, -2)
	clock.mu.Unlock()
	var recalled []string // by MCP, 2 days before the review
	for _, q := range []string{"API error response format", "duplicate OrderPaid events", "怎么上线", "money int64 cents"} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "recall", map[string]any{"query": q, "limit": 3}
		res, err := c.CallTool(t.Context(), req)
		if err != nil || res.IsError {
			t.Fatalf("recall %q: %v %v", q, err, res)
		}
		var out struct {
			Results []struct{ ID string } `json:"results"`
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		for _, x := range out.Results {
			recalled = append(recalled, x.ID)
		}
	}
	clock.mu.Lock()
	clock.now = reviewNow
	clock.mu.Unlock()
	r.now = reviewNow

	md := r.ok("review", "--markdown")
	golden(t, "review-sample.md", strings.ReplaceAll(md, r.dir, ".memory"))

	var rep review.Report
	if err := json.Unmarshal([]byte(r.ok("review", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	sections := map[string][]review.Entry{"stale": rep.Stale, "expiring": rep.Expiring, "rivals": rep.Rivals, "conflicted": rep.Conflicted,
		"duplicates": rep.Duplicates, "dangling": rep.Dangling, "unused": rep.Unused}
	for name, es := range sections {
		if len(es) == 0 {
			t.Errorf("section %s is empty on the replayed sample", name)
		}
		for _, e := range es {
			if e.ID == "" || e.Title == "" || e.Reason == "" {
				t.Errorf("%s entry without id, title or reason: %+v", name, e)
			}
		}
	}
	unused := map[string]bool{}
	for _, e := range rep.Unused {
		unused[e.ID] = true
	}
	for _, id := range recalled {
		if unused[id] {
			t.Errorf("%s was recalled through MCP 2 days ago, yet listed as unused", id)
		}
	}
	// Recalled through the CLI 20 days ago and not since: listed, with
	// the date of that recall.
	cliOnly := 0
	for _, e := range rep.Unused {
		if slices.Contains(early, e.ID) && !slices.Contains(recalled, e.ID) {
			cliOnly++
			if !strings.Contains(e.Reason, "last returned by a recall 2026-11-11") {
				t.Errorf("%s: reason %q, want the CLI recall's date", e.ID, e.Reason)
			}
		}
	}
	if cliOnly == 0 {
		t.Errorf("no memory recalled only through the CLI 20 days ago is listed unused (CLI %v, MCP %v)", early, recalled)
	}
	if !rep.UnusedJudged || !rep.AccessSince.Equal(reviewNow.AddDate(0, 0, -20)) {
		t.Errorf("access records since %s (judged %v), want since the first recall, %s", rep.AccessSince, rep.UnusedJudged, reviewNow.AddDate(0, 0, -20))
	}

	t.Run("memory://review is the same report", func(t *testing.T) {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = "memory://review"
		res, err := c.ReadResource(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		tc, ok := mcp.AsTextResourceContents(res.Contents[0])
		if !ok || tc.MIMEType != "text/markdown" {
			t.Fatalf("memory://review: %+v", res.Contents)
		}
		if tc.Text != md {
			t.Errorf("memory://review differs from review --markdown\nmcp:\n%s\ncli:\n%s", tc.Text, md)
		}
	})
	t.Run("text and flags", func(t *testing.T) {
		text := r.ok("review")
		for _, want := range []string{"Stale memories: the code moved on (4)", "ops/deploy.sh was renamed to ops/release.sh", "suggested title: Duplicate OrderPaid events"} {
			if !strings.Contains(text, want) {
				t.Errorf("text lacks %q:\n%s", want, text)
			}
		}
		if out := r.ok("review", "--json", "--days", "30", "--now", "2026-12-01T09:00:00Z"); !strings.Contains(out, `"days": 30`) {
			t.Errorf("--days 30: %s", out)
		}
		for _, bad := range [][]string{{"--days", "0"}, {"--json", "--markdown"}, {"--now", "yesterday"}} {
			if code, _ := r.run("", append([]string{"review"}, bad...)...); code != exitUsage {
				t.Errorf("review %v: exit %d, want %d", bad, code, exitUsage)
			}
		}
	})
}

// serveReview runs `memvault serve` in this process on r's vault with the
// clock now, and returns a client initialised against it.
func serveReview(t *testing.T, now func() time.Time, r *cliRepo) *client.Client {
	t.Helper()
	return serveAs(t, now, r.home, "review-test", "--vault", r.dir)
}
