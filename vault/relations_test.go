package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
)

// memFile is a memory file with id, created_at in the past of
// relationsNow, and extra front-matter lines.
func memFile(id string, extra ...string) string {
	return "---\nid: " + id + "\ntitle: T " + id + "\ncreated_at: 2026-01-01T00:00:00Z\n" + strings.Join(extra, "\n") + "\n---\nbody of " + id + "\n"
}

var relationsNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// relationProblems returns the vault's diagnostics about relations (dangling
// ids, status against supersession), as path:line: field: problem.
func relationProblems(t *testing.T, v *Vault) []string {
	t.Helper()
	var got []string
	for _, d := range v.Diagnostics() {
		if errors.Is(d.Err, ErrDangling) || errors.Is(d.Err, ErrStatusDisagrees) {
			got = append(got, d.Error())
		}
	}
	return got
}

// Issue 12: lint warns about supersedes and links naming no memory, and a
// status that disagrees with what supersession makes of the memory.
func TestLintReportsRelationProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string // prefixes, in Diagnostics order
	}{{
		name: "clean vault reports nothing",
		files: map[string]string{
			"project/a.md": memFile("ida", "supersedes: [idb]", "links: [idc]"),
			"project/b.md": memFile("idb", "status: superseded"),
			"project/c.md": memFile("idc", "status: active"),
			// Superseded by a successor that is not in force yet: the
			// file says superseded, recall shows it until the date.
			"project/d.md": memFile("idd", "status: superseded"),
			"project/e.md": memFile("ide", "supersedes: [idd]", "effective_at: 2027-01-01T00:00:00Z"),
			// Active while its successor is archived, or still to come.
			"project/f.md": memFile("idf"),
			"project/g.md": memFile("idg", "status: archived", "supersedes: [idf]"),
			"project/h.md": memFile("idh", "status: active"),
			"project/i.md": memFile("idi", "supersedes: [idh]", "effective_at: 2027-01-01T00:00:00Z"),
		},
	}, {
		name: "dangling supersedes",
		files: map[string]string{
			"project/a.md": memFile("ida", "supersedes: [idb, gone]"),
			"project/b.md": memFile("idb", "status: superseded"),
		},
		want: []string{`project/a.md:5: supersedes: "gone" names no memory of this vault: a deleted or mistyped id`},
	}, {
		name: "dangling links",
		files: map[string]string{
			"project/a.md": memFile("ida", "links:", "  - idb", "  - missing"),
			"project/b.md": memFile("idb"),
		},
		want: []string{`project/a.md:5: links: "missing" names no memory of this vault`},
	}, {
		// A hand-written memory given an id keeps its old path id in
		// aliases: a link written with the old id still names it.
		name: "a link by an alias is not dangling",
		files: map[string]string{
			"project/a.md":      memFile("ida", "links: [project/deploys]"),
			"project/deploy.md": memFile("idd", "aliases: [project/deploys]"),
		},
	}, {
		name: "active while an in-force successor supersedes it",
		files: map[string]string{
			"project/a.md": memFile("ida", "supersedes: [idb]"),
			"project/b.md": memFile("idb", "importance: 3", "status: active"),
		},
		want: []string{`project/b.md:6: status: disagrees with supersession: active, but ida ("T ida") supersedes it and is in force, so recall treats it as superseded; expected status: superseded`},
	}, {
		name: "active without a status line",
		files: map[string]string{
			"project/a.md": memFile("ida", "supersedes: [idb]"),
			"project/b.md": memFile("idb"),
		},
		want: []string{`project/b.md: status: disagrees with supersession: active, but ida`},
	}, {
		name: "superseded while nothing supersedes it",
		files: map[string]string{
			"project/a.md": memFile("ida", "status: superseded"),
			"project/b.md": memFile("idb", "supersedes: [idb]", "status: superseded"),
		},
		want: []string{
			`project/a.md:5: status: disagrees with supersession: superseded, but no memory of this vault lists ida in supersedes`,
			`project/b.md:6: status: disagrees with supersession: superseded, but no memory of this vault lists idb in supersedes`,
		},
	}, {
		name: "a ring is reported as a cycle only",
		files: map[string]string{
			"project/a.md": memFile("ida", "supersedes: [idb]"),
			"project/b.md": memFile("idb", "supersedes: [ida]"),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			v, err := Open(t.Context(), dir, Options{Now: func() time.Time { return relationsNow }})
			if err != nil {
				t.Fatal(err)
			}
			got := relationProblems(t, v)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d relation problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i := range tt.want {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s...", i, got[i], tt.want[i])
				}
			}
			if tt.name == "clean vault reports nothing" {
				if all := v.Diagnostics(); len(all) != 0 {
					t.Errorf("clean vault: %d diagnostics, first %v", len(all), all[0])
				}
			}
			for _, d := range v.Diagnostics() {
				if (errors.Is(d.Err, ErrDangling) || errors.Is(d.Err, ErrStatusDisagrees)) && d.Severity != parser.SeverityWarning {
					t.Errorf("%v: severity %v, want a warning", d, d.Severity)
				}
			}
			if s := v.Stats(); s.Warnings < len(tt.want) {
				t.Errorf("Stats().Warnings = %d, want at least the %d relation problems", s.Warnings, len(tt.want))
			}
		})
	}
}

// The relation problems follow the other files: a link becomes dangling
// when its target goes, a status disagrees once the successor is active,
// and both clear when the files are fixed.
func TestRelationProblemsFollowOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"project/a.md": memFile("ida", "links: [idb]"),
		"project/b.md": memFile("idb"),
		"project/c.md": memFile("idc", "status: active"),
		"project/d.md": memFile("idd", "status: archived", "supersedes: [idc]"),
	})
	v, err := Open(t.Context(), dir, Options{Now: func() time.Time { return relationsNow }})
	if err != nil {
		t.Fatal(err)
	}
	if got := relationProblems(t, v); len(got) != 0 {
		t.Fatalf("before: %q, want none", got)
	}
	if err := os.Remove(filepath.Join(dir, "project", "b.md")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"project/d.md": memFile("idd", "status: active", "supersedes: [idc]")})
	if err := v.Refresh(t.Context(), []string{"project/b.md", "project/d.md"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`project/a.md:5: links: "idb" names no memory of this vault`,
		`project/c.md:5: status: disagrees with supersession: active, but idd`,
	}
	got := relationProblems(t, v)
	if len(got) != len(want) {
		t.Fatalf("after: got %q, want %d problems", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("after, problem %d:\n got %s\nwant %s...", i, got[i], want[i])
		}
	}
	// Asked for one file, only that file's problems come back.
	onlyA := v.DiagnosticsOf(func(path string) bool { return path == "project/a.md" })
	if len(onlyA) != 1 || onlyA[0].Path != "project/a.md" || !errors.Is(onlyA[0].Err, ErrDangling) {
		t.Errorf("DiagnosticsOf(project/a.md) = %v, want its dangling link alone", onlyA)
	}
	writeFiles(t, dir, map[string]string{
		"project/a.md": memFile("ida"),
		"project/c.md": memFile("idc", "status: superseded"),
	})
	if err := v.Refresh(t.Context(), []string{"project/a.md", "project/c.md"}); err != nil {
		t.Fatal(err)
	}
	if got := relationProblems(t, v); len(got) != 0 {
		t.Errorf("fixed: %q, want none", got)
	}
}

// BenchmarkRelationDiags measures the relation pass that Diagnostics and
// Stats now make on each call, at 100k memories (a tenth with links, one
// in a hundred superseding another, 100 dangling links), next to Stats as
// a whole.
func BenchmarkRelationDiags(b *testing.B) {
	const n = 100_000
	v := &Vault{now: func() time.Time { return relationsNow }, memState: memState{byID: map[string]index.DocID{}, byPath: map[string]index.DocID{}}}
	created := relationsNow.AddDate(0, -1, 0)
	for i := range n {
		m := &Memory{ID: fmt.Sprintf("id%06d", i), Path: fmt.Sprintf("project/m%06d.md", i), Status: StatusActive, CreatedAt: created}
		if i%10 == 1 {
			m.Links = []string{fmt.Sprintf("id%06d", i-1)}
		}
		if i%1000 == 3 {
			m.Links = append(m.Links, "gone") // 100 dangling links
		}
		if i%100 == 2 {
			m.Supersedes = []string{fmt.Sprintf("id%06d", i-2)}
		}
		v.byID[m.ID], v.byPath[m.Path] = index.DocID(i), index.DocID(i)
		v.entries = append(v.entries, m)
	}
	v.rebuildSuccLocked()
	b.Run("relations", func(b *testing.B) {
		for b.Loop() {
			v.mu.RLock()
			_ = v.relationDiagsLocked(relationsNow, nil)
			v.mu.RUnlock()
		}
	})
	b.Run("stats", func(b *testing.B) {
		for b.Loop() {
			_ = v.Stats()
		}
	})
}
