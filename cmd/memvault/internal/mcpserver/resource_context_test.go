package mcpserver

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	catchup "github.com/memvault/memvault/vault/since"
	"github.com/memvault/memvault/vault/staleness"
)

// TestContextOpensWithNews checks that memory://context begins with what
// the client's catch-up reports, capped at maxNews entries with a line
// naming the command that lists the rest, asks for the calling client's
// point, and keeps the digest after it within the budget.
func TestContextOpensWithNews(t *testing.T) {
	t.Parallel()
	clock := newClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	when := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rep := catchup.Report{Base: "abc1234def", Head: "fed4321cba", Since: when, Commits: 21}
	for i := range 20 {
		rep.Changes = append(rep.Changes, catchup.Change{Kind: catchup.Added, ID: fmt.Sprintf("01M%023d", i), Title: fmt.Sprintf("Rule %d", i),
			Layer: "project", By: []catchup.Author{{Commit: "0123456789", Name: "Bob", When: when, Reason: strings.Repeat("because ", 40)}}})
	}
	rep.Stale = []catchup.WentStale{{ID: "01MSTALE", Title: "Old rule", Staleness: staleness.Staleness{State: staleness.Stale, Reason: "gone"}}}
	ts := newTestServer(t, clock, serverOptions{})
	project := ts.project
	project.news = &rep
	for i := range 40 {
		project.add(t, vault.NewMemory{Title: fmt.Sprintf("Key rule %d", i), Content: strings.Repeat("text ", 30), Importance: 9})
	}
	got, err := readResource(t, ts.c, contextURI)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, contextDigestHeader+"\n## New since your last session (2026-11-30 09:00 UTC, 21 commits)\n") {
		t.Fatalf("context does not open with the news:\n%s", got)
	}
	if n := strings.Count(got, "\n- Added \"Rule "); n != maxNews {
		t.Errorf("%d news entries shown, want %d", n, maxNews)
	}
	if !strings.Contains(got, "- … 6 more not shown; `memvault digest --since abc1234` lists them\n") {
		t.Errorf("no line counting the rest:\n%s", got)
	}
	if !strings.Contains(got, "## Project rules (importance 8+)") || len(got) > resultsBudgetBytes {
		t.Errorf("digest after the news missing or over budget (%d bytes):\n%s", len(got), got)
	}
	if !slices.Equal(project.asked, []string{"unit"}) {
		t.Errorf("catch-up asked for %q, want the calling client", project.asked)
	}
}
