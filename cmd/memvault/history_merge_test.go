package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
)

// TestHistoryOfMergesAndRebases: a merge whose result for a memory
// differs from both parents appears in its history once, as merged, with
// the reasons of the last commit on each side; a merge that took one
// side's version does not appear; a commit rebased onto another branch
// keeps its reason and client; why tells the merge by its sides' reasons.
func TestHistoryOfMergesAndRebases(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	r := newCLIRepo(t)
	liveGitOut(t, r.root, "config", "merge.memvault.driver", gitrepo.DriverCommand(buildMemvault(t)))
	both := r.addMemory("Money is int64 cents", "Money is int64 cents, never float64.\n", "--tags", "money", "--reason", "first cut")
	oneSide := r.addMemory("Deploys go through make ship", "Never by hand.\n", "--reason", "ops rule")
	rebased := r.addMemory("Logs are JSON lines", "One object per line.\n", "--reason", "log shipping")
	liveGitOut(t, r.root, "branch", "-M", "main")

	liveGitOut(t, r.root, "checkout", "-q", "-b", "feature")
	r.tick(time.Hour)
	r.ok("update", both, "--importance", "8", "--reason", "ledger incident")
	r.tick(time.Hour)
	r.ok("update", oneSide, "--importance", "7", "--reason", "outage last week")
	liveGitOut(t, r.root, "checkout", "-q", "main")
	r.tick(time.Hour)
	r.ok("update", both, "--tags", "money,ledger", "--reason", "tagged for search")
	liveGitOut(t, r.root, "merge", "-q", "--no-edit", "feature")
	merge := liveGitOut(t, r.root, "rev-parse", "HEAD")

	var h view.History
	if err := json.Unmarshal([]byte(r.ok("history", both, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	type row struct{ Kind, Reason string }
	var got []row
	for _, rev := range h.Revisions {
		got = append(got, row{rev.Kind, rev.Reason})
	}
	want := []row{{"merged", "tagged for search + ledger incident"}, {"changed", "tagged for search"}, {"changed", "ledger incident"}, {"added", "first cut"}}
	if !slices.Equal(got, want) {
		t.Fatalf("history of the memory both sides changed:\n got %v\nwant %v", got, want)
	}
	m := h.Revisions[0]
	if m.Commit != merge || len(m.Merged) != 2 || m.Merged[0].Reason != "tagged for search" || m.Merged[1].Reason != "ledger incident" ||
		m.Merged[0].Client != "cli" || !strings.Contains(m.Summary, "importance 5 → 8") {
		t.Errorf("merged revision: %+v", m)
	}

	if err := json.Unmarshal([]byte(r.ok("history", oneSide, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Revisions) != 2 || h.Revisions[0].Kind != "changed" || h.Revisions[0].Reason != "outage last week" {
		t.Errorf("a merge that took one side's version is in the history: %+v", h.Revisions)
	}

	text := r.ok("history", both)
	for _, w := range []string{"merged (version", "why: ledger incident", "why: tagged for search", "importance 5 → 8"} {
		if !strings.Contains(text, w) {
			t.Errorf("history text lacks %q:\n%s", w, text)
		}
	}
	if text := r.ok("why", "money int64 cents"); !strings.Contains(text, "merged (importance 5 → 8") || !strings.Contains(text, ": tagged for search + ledger incident") {
		t.Errorf("why does not tell the merge by its sides' reasons:\n%s", text)
	}

	// A rebased commit keeps its reason and client trailer.
	liveGitOut(t, r.root, "checkout", "-q", "-b", "topic", "main~1")
	r.tick(time.Hour)
	r.ok("update", rebased, "--importance", "6", "--reason", "parsers depend on it")
	liveGitOut(t, r.root, "rebase", "-q", "main")
	if err := json.Unmarshal([]byte(r.ok("history", rebased, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Revisions) != 2 || h.Revisions[0].Reason != "parsers depend on it" || h.Revisions[0].Client != "cli" ||
		h.Revisions[0].Kind != "changed" || !strings.Contains(h.Revisions[0].Summary, "importance 5 → 6") {
		t.Errorf("rebased history: %+v", h.Revisions)
	}
}

// TestDiffFromTheMergeBase: once main moves on, diff main..feature (and
// main...feature) still lists only what the branch did: main's new
// memory is not "deleted", main's edit is not undone; the body diff of
// the branch's change is in the JSON and the Markdown.
func TestDiffFromTheMergeBase(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	shared := r.addMemory("Money is int64 cents", "Money is int64 cents.\nNever float64.\n", "--reason", "first cut")
	liveGitOut(t, r.root, "branch", "-M", "main")
	liveGitOut(t, r.root, "checkout", "-q", "-b", "feature")
	r.tick(time.Hour)
	r.ok("update", shared, "--content", "Money is int64 cents.\nNever float64, not even in tests.\n", "--reason", "a test used float")
	added := r.addMemory("Logs are JSON lines", "One object per line.\n", "--reason", "log shipping")
	liveGitOut(t, r.root, "checkout", "-q", "main")
	r.tick(time.Hour)
	mainOnly := r.addMemory("Deploys go through make ship", "Never by hand.\n", "--reason", "ops rule")

	for _, rg := range []string{"main..feature", "main...feature"} {
		var rep struct {
			MergeBase string `json:"merge_base"`
			Changes   []struct {
				ID, Kind string
				BodyDiff []string `json:"body_diff"`
			}
		}
		if err := json.Unmarshal([]byte(r.ok("diff", rg, "--json")), &rep); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range rep.Changes {
			got[c.ID] = c.Kind
			if c.ID == shared && !slices.Contains(c.BodyDiff, "+Never float64, not even in tests.") {
				t.Errorf("%s: body diff %q", rg, c.BodyDiff)
			}
		}
		if len(got) != 2 || got[shared] != "changed" || got[added] != "added" || got[mainOnly] != "" {
			t.Errorf("diff %s: %v; want %s changed and %s added, nothing about main's %s", rg, got, shared, added, mainOnly)
		}
		if fork := liveGitOut(t, r.root, "merge-base", "main", "feature"); rep.MergeBase != fork {
			t.Errorf("diff %s: merge_base %s, want %s", rg, rep.MergeBase, fork)
		}
	}
	md := r.ok("diff", "main...feature", "--markdown")
	if !strings.Contains(md, "<details><summary>body: <b>Money is int64 cents</b>") || !strings.Contains(md, "-Never float64.\n+Never float64, not even in tests.\n") {
		t.Errorf("markdown lacks the body diff:\n%s", md)
	}
}

// TestHistoryKeepsTheOutrankedSide: two edits of one field in the same
// second on two branches merge into one side's version (the higher
// importance wins, and the rest is equal): the merge is not listed, and
// the outranked edit still is, with its reason.
func TestHistoryKeepsTheOutrankedSide(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	liveGitOut(t, r.root, "config", "merge.memvault.driver", gitrepo.DriverCommand(buildMemvault(t)))
	id := r.addMemory("Money is int64 cents", "Never float64.\n", "--reason", "first cut")
	liveGitOut(t, r.root, "branch", "-M", "main")
	liveGitOut(t, r.root, "checkout", "-q", "-b", "feature")
	r.tick(time.Hour)
	r.ok("update", id, "--importance", "3", "--reason", "rarely matters")
	liveGitOut(t, r.root, "checkout", "-q", "main")
	r.ok("update", id, "--importance", "9", "--reason", "ledger incident") // the same second
	liveGitOut(t, r.root, "merge", "-q", "--no-edit", "feature")
	if m := r.memory(id); m.Importance != 9 || m.Version != 2 {
		t.Fatalf("merged importance %d version %d; want main's whole version (9, 2)", m.Importance, m.Version)
	}
	var h view.History
	if err := json.Unmarshal([]byte(r.ok("history", id, "--json")), &h); err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, rev := range h.Revisions {
		if rev.Kind == "merged" {
			t.Errorf("a merge that kept one side's version is listed: %+v", rev)
		}
		reasons = append(reasons, rev.Reason)
	}
	slices.Sort(reasons)
	if want := []string{"first cut", "ledger incident", "rarely matters"}; !slices.Equal(reasons, want) {
		t.Errorf("history reasons %q, want %q", reasons, want)
	}
}
