package sincetext

import (
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/since"
	"github.com/memvault/memvault/vault/staleness"
)

func TestMarkdown(t *testing.T) {
	when := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	bob := since.Author{Commit: "984247f0aa", Name: "Bob", Client: "claude-code", When: when, Subject: "memory(project): add", Reason: "the Makefile\nwraps it"}
	ann := since.Author{Commit: "1111111aa", Name: "Ann", When: when, Subject: "memory(project): update \"X\""}
	rep := since.Report{Commits: 3, Since: when, Changes: []since.Change{
		{Kind: since.Added, ID: "B", Title: "Make deploy", Layer: "project", Supersedes: []vault.Ref{{ID: "A", Title: "Script"}}, By: []since.Author{bob}},
		{Kind: since.Changed, ID: "C", Title: "Tags", Layer: "project", By: []since.Author{ann, bob, bob}},
		{Kind: since.Superseded, ID: "A", Title: "Script", Layer: "project", SupersededBy: []vault.Ref{{ID: "B", Title: "Make deploy"}}, By: []since.Author{bob}},
	}, Stale: []since.WentStale{{ID: "D", Title: "Cache", Staleness: staleness.Staleness{State: staleness.PossiblyStale, Reason: "cache.go changed"}}}}
	tests := []struct {
		name string
		rep  since.Report
		o    Options
		want []string
	}{
		{name: "everything", rep: rep, o: Options{Heading: "H"}, want: []string{
			"## H",
			`- Added "Make deploy" (B, project), replacing "Script" (A) — Bob via claude-code, 2026-12-01, 984247f: the Makefile wraps it`,
			`- Changed "Tags" (C, project) — Ann, 2026-12-01, 1111111: memory(project): update "X"; Bob via claude-code, 2026-12-01, 984247f: the Makefile wraps it (+1 more commits)`,
			`- Superseded "Script" (A, project) by "Make deploy" (B) — Bob via claude-code, 2026-12-01, 984247f: the Makefile wraps it`,
			`- Went possibly stale: "Cache" (D): cache.go changed`,
		}},
		{name: "capped", rep: rep, o: Options{Heading: "H", Max: 1, More: "memvault digest --since abc"}, want: []string{
			"## H",
			`- Added "Make deploy" (B, project), replacing "Script" (A) — Bob via claude-code, 2026-12-01, 984247f: the Makefile wraps it`,
			"- … 3 more not shown; `memvault digest --since abc` lists them",
		}},
		{name: "more commits than read", rep: since.Report{Commits: 500, More: true, Changes: rep.Changes[:1]}, o: Options{Heading: "H"}, want: []string{
			"## H",
			`- Added "Make deploy" (B, project), replacing "Script" (A) — Bob via claude-code, 2026-12-01, 984247f: the Makefile wraps it`,
			"- … more changes than the 500 commits read",
		}},
		{name: "nothing, silent", rep: since.Report{}, o: Options{Heading: "H"}, want: nil},
		{name: "nothing, said", rep: since.Report{}, o: Options{Heading: "H", Empty: "Nothing."}, want: []string{"## H", "Nothing."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Markdown(tt.rep, tt.o)
			var lines []string
			for _, l := range strings.Split(got, "\n") {
				if l != "" {
					lines = append(lines, l)
				}
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestHeading(t *testing.T) {
	rep := since.Report{Commits: 1, Since: time.Date(2026, 12, 1, 9, 5, 0, 0, time.FixedZone("CST", 8*3600))}
	if got, want := Heading(rep, ""), "New since your last session (2026-12-01 01:05 UTC, 1 commit)"; got != want {
		t.Errorf("Heading = %q, want %q", got, want)
	}
	if got, want := Heading(rep, "v1.2"), "Memory changes since v1.2 (1 commit)"; got != want {
		t.Errorf("Heading = %q, want %q", got, want)
	}
}
