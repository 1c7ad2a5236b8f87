package importrules

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestArchitectureTableIsTrue compares the package table of
// docs/architecture.md with the module as go list sees it: every package
// has a row, and each row's imports are the package's project imports.
func TestArchitectureTableIsTrue(t *testing.T) {
	pkgs := moduleGraph(t)
	doc, err := os.ReadFile(filepath.Join(moduleRoot(t), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ParseTable(string(doc))
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	for _, d := range CompareTable(rows, pkgs) {
		t.Errorf("docs/architecture.md: %s", d)
	}
}

func TestCompareTable(t *testing.T) {
	m := func(p string) string { return Module + "/" + p }
	pkgs := []Package{
		{Path: m("parser")},
		{Path: m("vault"), Imports: []string{"fmt", m("parser"), m("vault/index")}},
		{Path: m("vault/index")},
		{Path: m("cmd/memvault"), Imports: []string{m("vault"), m("cmd/memvault/internal/view")}},
		{Path: m("cmd/memvault/internal/view"), Imports: []string{m("vault")}},
		{Path: m("vault/internal/view")},
		{Path: "fmt", Standard: true},
	}
	table := func(rows ...string) string {
		return "intro\n\n| package | owns | imports (project) |\n|---|---|---|\n" + strings.Join(rows, "\n") + "\n\nafter\n"
	}
	full := []string{
		"| `parser` | bytes | none |",
		"| `vault` | rules | `parser`, `vault/...` |",
		"| `vault/index` | search | none |",
		"| `cmd/memvault` (package main) | wiring | everything |",
		"| `cmd/memvault/internal/view` | shapes | `vault` |",
		"| `vault/internal/view` | x | none |",
	}
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"true table", table(full...), nil},
		{"missing row", table(full[:5]...), []string{"package vault/internal/view has no row"}},
		{"unstated import", table(append([]string{full[0], "| `vault` | rules | `parser` |"}, full[2:]...)...),
			[]string{"line 6 (vault): imports vault/index, which the row does not state"}},
		{"stale import", table(append(full[:2:2], "| `vault/index` | search | `parser` |", full[3], full[4], full[5])...),
			[]string{"line 7 (vault/index): states parser, which it does not import"}},
		{"ambiguous short name", table(append(full[:4:4], "| `view` | shapes | `vault` |", full[5])...),
			[]string{`line 9: "view" names several packages (` + m("cmd/memvault/internal/view") + ", " + m("vault/internal/view") + "): write its path",
				"package cmd/memvault/internal/view has no row"}},
		{"unknown package", table(append(full, "| `gone` | x | none |")...), []string{`line 11: "gone" names no package of the module`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := ParseTable(tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			if got := CompareTable(rows, pkgs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseTableRefuses(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"no table", "# title\n\ntext\n", "no package table"},
		{"no package name", "| package | imports |\n|---|---|\n| parser | none |\n", "line 3: the first cell names no package"},
		{"bad imports cell", "| package | imports |\n|---|---|\n| `parser` | some |\n", "line 3: the imports cell"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTable(tt.doc)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
