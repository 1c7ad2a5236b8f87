package view

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

func TestEmptyListsEncodeAsArrays(t *testing.T) {
	m := &vault.Memory{ID: "a", Title: "T", Layer: vault.Project, Status: vault.StatusActive, Version: 1}
	tests := []struct {
		name string
		v    any
		want []string
	}{
		{"memory", MemoryOf(m, "project", nil, nil),
			[]string{`"tags":[]`, `"aliases":[]`, `"supersedes":[]`, `"superseded_by":[]`, `"links":[]`, `"related":[]`}},
		{"recall result", RecallResultOf(vault.SetResult{Result: vault.Result{Memory: m, State: "active"}, Vault: "project"}),
			[]string{`"tags":[]`, `"supersedes":[]`, `"possible_conflict":[]`}},
		{"write", WriteOf(vault.WriteResult{Memory: m}, "project"), []string{`"superseded":[]`, `"commit":""`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s: want %s in %s", tt.name, w, b)
				}
			}
			if strings.Contains(string(b), "null") {
				t.Errorf("%s: null in %s", tt.name, b)
			}
		})
	}
}

func TestInstant(t *testing.T) {
	cst := time.FixedZone("CST", 8*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Time{}, ""},
		{time.Date(2026, 12, 1, 9, 30, 0, 123, cst), "2026-12-01T01:30:00Z"},
	}
	for _, tt := range tests {
		if got := Instant(tt.in); got != tt.want {
			t.Errorf("Instant(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRecallResultOf(t *testing.T) {
	eff := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	m := &vault.Memory{ID: "n", Title: "New", Layer: vault.Preference, Importance: 7, EffectiveAt: eff, Version: 3, Path: "preferences/new.md"}
	r := vault.SetResult{Vault: "user", Result: vault.Result{Memory: m, Score: 1.23456, State: "active", Snippet: "s",
		Supersedes: []vault.Ref{{ID: "o", Title: "Old"}}, PossibleConflict: []string{"x"}}}
	got := RecallResultOf(r)
	if got.Score != 1.235 || got.Layer != "preference" || got.Vault != "user" || got.EffectiveAt != "2026-11-01T00:00:00Z" ||
		len(got.Supersedes) != 1 || got.Supersedes[0] != (Ref{ID: "o", Title: "Old"}) || got.SupersededBy != nil ||
		got.PossibleConflict[0] != "x" || got.Version != 3 || got.Importance != 7 {
		t.Errorf("RecallResultOf = %+v", got)
	}
}

func TestForgetOf(t *testing.T) {
	m := &vault.Memory{ID: "a", Path: "project/a.md", Version: 4}
	tests := []struct {
		deleted bool
		want    string
	}{{false, "archived"}, {true, "deleted"}}
	for _, tt := range tests {
		got := ForgetOf("a", vault.WriteResult{Memory: m, Commit: "c"}, tt.deleted, "project")
		if got.Action != tt.want || got.Path != "project/a.md" || got.Version != 4 || got.Commit != "c" {
			t.Errorf("ForgetOf(deleted=%v) = %+v", tt.deleted, got)
		}
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		name string
		r    history.Revision
		want string
	}{
		{"added", history.Revision{Kind: "added"}, "added"},
		{"fields", history.Revision{Kind: "changed", Changes: []history.FieldChange{
			{Field: "status", Old: "active", New: "superseded"}, {Field: "tags", Old: "[a]", New: "[a, b]"},
			{Field: "version", Old: "1", New: "2"}, {Field: "effective_at", Old: "", New: "2026-01-01T00:00:00Z"}}},
			"changed (status active → superseded, tags, effective_at)"},
		{"body and move", history.Revision{Kind: "moved", OldPath: "short-term/x.md", BodyDiff: []string{"+ x"},
			Changes: []history.FieldChange{{Field: "layer", Old: "short-term", New: "project"}}},
			"moved (layer short-term → project, body, moved from short-term/x.md)"},
		{"importance set", history.Revision{Kind: "changed", Changes: []history.FieldChange{{Field: "importance", Old: "", New: "9"}}},
			"changed (importance (none) → 9)"},
	}
	for _, tt := range tests {
		if got := Summary(tt.r); got != tt.want {
			t.Errorf("%s: Summary = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProblemLines: the same problem in many files is one line of the
// summary with a count, so it does not fill the MaxProblems slots (issue
// 13, finding 15: nine identical warnings took nine of the 20).
func TestProblemLines(t *testing.T) {
	t.Parallel()
	diag := func(path string, line int, field, msg string) *vault.Diagnostic {
		return &vault.Diagnostic{Path: path, Line: line, Field: field, Err: errors.New(msg), Severity: parser.SeverityWarning}
	}
	var nine, many []*vault.Diagnostic
	for i := range 9 {
		nine = append(nine, diag(fmt.Sprintf("project/m%d.md", i), 3+i, "importance", "want a whole number"))
	}
	for i := range 25 {
		many = append(many, diag(fmt.Sprintf("project/m%02d.md", i), 2, "tags", fmt.Sprintf("problem %d", i)))
	}
	tests := []struct {
		name  string
		diags []*vault.Diagnostic
		want  []string
	}{
		{"none", nil, []string{}},
		{"nine identical warnings and another", append(slices.Clone(nine), diag("project/x.md", 1, "title", "missing")),
			[]string{"project/m0.md:3: importance: want a whole number (same in 8 more files)", "project/x.md:1: title: missing"}},
		{"twice in one file, once elsewhere", []*vault.Diagnostic{diag("a.md", 1, "tags", "bad"), diag("a.md", 4, "tags", "bad"), diag("b.md", 2, "tags", "bad")},
			[]string{"a.md:1: tags: bad (same in 1 more file)"}},
		{"distinct problems over the cap", append(slices.Clone(nine), many...), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemLines(tt.diags)
			if tt.want != nil {
				if !slices.Equal(got, tt.want) {
					t.Errorf("got %q\nwant %q", got, tt.want)
				}
				return
			}
			// One line for the nine, 19 of the 25, then the rest counted.
			if len(got) != MaxProblems+1 || got[MaxProblems] != "… and 6 more: run memvault lint" ||
				!strings.HasSuffix(got[0], "(same in 8 more files)") {
				t.Errorf("got %d lines: first %q, last %q", len(got), got[0], got[len(got)-1])
			}
		})
	}
}
