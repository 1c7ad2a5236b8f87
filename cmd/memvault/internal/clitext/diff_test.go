package clitext

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/history"
)

// TestDiffMarkdown: the pull-request section has the table, then one
// collapsed body diff per memory whose body the range changed or added,
// in the table's order; a body quoting a code fence gets a longer fence.
func TestDiffMarkdown(t *testing.T) {
	t.Parallel()
	base, head := "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	changes := []history.MemoryChange{
		{Kind: history.KindChanged, ID: "01M5E68866RCT3YJBGTRQ5KYHA", Title: "API 错误：使用真实 HTTP 状态码", Layer: "project",
			Path: "project/api-errors.md", Changes: []history.FieldChange{{Field: "importance", Old: "6", New: "8"}}, Body: true,
			BodyDiff: []string{"@@ -1,3 +1,3 @@", " 4xx for client errors.", "-5xx | 200 for server errors.", "+5xx for server errors.", " Body: {code, message}."},
			Reason:   "client SDKs retry on 5xx", Client: "claude-code"},
		{Kind: history.KindAdded, ID: "01M8GPD4P3BT9KFY4RD35W18B4", Title: "Deploy <with> make ship", Layer: "project",
			Path: "project/deploy.md", BodyDiff: []string{"@@ -0,0 +1,3 @@", "+```sh", "+make ship", "+```"}, BodyDiffMore: 2,
			Reason: "ops rule", Client: "cursor"},
		{Kind: history.KindArchived, ID: "01M3BT2X3CPJ07V9QBB7YCWNPP", Title: "API errors: always HTTP 200", Layer: "project",
			Path: "project/api-200.md", Changes: []history.FieldChange{{Field: "status", Old: "active", New: "archived"}}},
	}
	var b strings.Builder
	DiffMarkdown(&b, base, head, changes)
	got := b.String()
	golden(t, filepath.Join("testdata", "diff_markdown.golden"), got)
	if strings.Index(got, "<summary>new memory") > strings.Index(got, "<summary>body") {
		t.Errorf("body diffs are not in the table's order (added first):\n%s", got)
	}
	if !strings.Contains(got, "````diff\n@@ -0,0 +1,3 @@\n+```sh\n+make ship\n+```\n````\n") {
		t.Errorf("a body quoting a fence did not get a longer fence:\n%s", got)
	}
	if strings.Count(got, "<details>") != 2 {
		t.Errorf("want two body diffs (the archived memory's body did not change):\n%s", got)
	}
}
