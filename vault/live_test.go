package vault

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// syncState is each memory's path and staleness by id.
func syncState(v *Vault) map[string]string {
	out := map[string]string{}
	for _, m := range v.All() {
		s := m.Path
		if m.Stale {
			s += " (stale)"
		}
		out[m.ID] = s
	}
	return out
}

func TestSyncFiles(t *testing.T) {
	t.Parallel()
	const (
		a = "---\nid: a\ntitle: A\n---\nalpha\n"
		b = "---\nid: b\ntitle: B\n---\nbeta\n"
	)
	tests := []struct {
		name    string
		change  func(t *testing.T, dir string)
		batch   []string
		want    map[string]string
		changed []string
		diag    bool // the batch leaves a diagnostic
	}{
		{
			name: "promote: short-term to project in one batch",
			change: func(t *testing.T, dir string) {
				moveFile(t, dir, "short-term/b.md", "project/b.md")
			},
			batch:   []string{"project/b.md", "short-term/b.md"}, // the new path sorts first
			want:    map[string]string{"a": "project/a.md", "b": "project/b.md"},
			changed: []string{"b"},
		},
		{
			name: "demote: project to short-term in one batch",
			change: func(t *testing.T, dir string) {
				moveFile(t, dir, "project/a.md", "short-term/a.md")
			},
			batch:   []string{"project/a.md", "short-term/a.md"},
			want:    map[string]string{"a": "short-term/a.md", "b": "short-term/b.md"},
			changed: []string{"a"},
		},
		{
			name: "two files swap ids",
			change: func(t *testing.T, dir string) {
				writeFiles(t, dir, map[string]string{
					"project/a.md":    "---\nid: b\ntitle: B\n---\nbeta\n",
					"short-term/b.md": "---\nid: a\ntitle: A\n---\nalpha\n",
				})
			},
			batch:   []string{"project/a.md", "short-term/b.md"},
			want:    map[string]string{"a": "short-term/b.md", "b": "project/a.md"},
			changed: []string{"a", "b"},
		},
		{
			name: "broken front matter keeps the last good version",
			change: func(t *testing.T, dir string) {
				writeFiles(t, dir, map[string]string{"project/a.md": "---\nid: a\ntitle: [oops\n---\nalpha two\n"})
			},
			batch:   []string{"project/a.md"},
			want:    map[string]string{"a": "project/a.md (stale)", "b": "short-term/b.md"},
			changed: []string{"a"},
			diag:    true,
		},
		{
			name: "unclosed front matter keeps the last good version",
			change: func(t *testing.T, dir string) {
				writeFiles(t, dir, map[string]string{"project/a.md": "---\nid: a\ntitle: A\nalpha two\n"})
			},
			batch:   []string{"project/a.md"},
			want:    map[string]string{"a": "project/a.md (stale)", "b": "short-term/b.md"},
			changed: []string{"a"},
			diag:    true,
		},
		{
			name:    "unchanged file changes nothing",
			change:  func(t *testing.T, dir string) { writeFiles(t, dir, map[string]string{"project/a.md": a}) },
			batch:   []string{"project/a.md", "project/missing.md", "notes.txt"},
			want:    map[string]string{"a": "project/a.md", "b": "short-term/b.md"},
			changed: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"project/a.md": a, "short-term/b.md": b})
			v, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var published [][]string
			v.Subscribe(func(c Change) { published = append(published, c.IDs) })
			tt.change(t, dir)
			changed, err := v.SyncFiles(t.Context(), tt.batch)
			if err != nil {
				t.Fatal(err)
			}
			if got := syncState(v); !maps.Equal(got, tt.want) {
				t.Errorf("index = %v, want %v", got, tt.want)
			}
			if !slices.Equal(changed, tt.changed) {
				t.Errorf("changed = %v, want %v", changed, tt.changed)
			}
			if want := len(tt.changed) > 0; (len(published) == 1) != want || len(published) > 1 {
				t.Errorf("published %v, want one change: %v", published, want)
			}
			if d := v.Diagnostics(); (len(d) > 0) != tt.diag {
				t.Errorf("diagnostics = %v, want some: %v", d, tt.diag)
			}
		})
	}
}

// TestSyncAllKeepsStaleVersion: a full reload after a broken edit (a
// branch switch in the same burst) keeps the last good version too.
func TestSyncAllKeepsStaleVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/a.md": "---\nid: a\ntitle: A\n---\nalpha\n"})
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"project/a.md": "---\nid: a\ntitle: [oops\n---\nalpha\n"})
	if err := v.SyncAll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := syncState(v), map[string]string{"a": "project/a.md (stale)"}; !maps.Equal(got, want) {
		t.Errorf("after SyncAll = %v, want %v", got, want)
	}
	if len(v.Diagnostics()) == 0 {
		t.Error("no diagnostic for the broken file")
	}
	// A fresh process without the file's history has no good version to
	// serve: it serves nothing rather than another memory under the
	// path's id (issue 24, finding 2).
	fresh, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := syncState(fresh); len(got) != 0 {
		t.Errorf("fresh open = %v, want nothing served", got)
	}
}

func moveFile(t *testing.T, dir, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)); err != nil {
		t.Fatal(err)
	}
}
