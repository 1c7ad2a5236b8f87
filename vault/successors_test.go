package vault

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRefreshSuccessors checks the successor rules after refreshes that
// skip rebuilding the successor map (a memory that neither supersedes nor
// is superseded) and after ones that must rebuild it.
func TestRefreshSuccessors(t *testing.T) {
	dir := t.TempDir()
	mem := func(id, supersedes string) string {
		s := "---\nid: " + id + "\ntitle: Memory " + id + "\ncreated_at: 2026-01-01T00:00:00Z\n"
		if supersedes != "" {
			s += "supersedes: [" + supersedes + "]\n"
		}
		return s + "---\nBody of " + id + ".\n"
	}
	writeFiles(t, dir, map[string]string{"project/a.md": mem("a", ""), "project/b.md": mem("b", "a"), "project/c.md": mem("c", "")})
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now})
	if err != nil {
		t.Fatal(err)
	}
	state := func(id string) string {
		v.mu.RLock()
		defer v.mu.RUnlock()
		d, ok := v.byID[id]
		if !ok {
			return "missing"
		}
		return v.stateLocked(d, v.entries[d], v.now(), v.succ)
	}
	steps := []struct {
		name  string
		files map[string]string // "" removes
		want  map[string]string
	}{
		{"unrelated edit", map[string]string{"project/c.md": mem("c", "") + "More.\n"}, map[string]string{"a": "superseded", "c": "active"}},
		{"unrelated new memory", map[string]string{"project/d.md": mem("d", "")}, map[string]string{"a": "superseded", "d": "active"}},
		{"successor drops supersedes", map[string]string{"project/b.md": mem("b", "")}, map[string]string{"a": "active", "b": "active"}},
		{"new memory supersedes", map[string]string{"project/e.md": mem("e", "c")}, map[string]string{"a": "active", "c": "superseded"}},
		{"superseded memory removed and written again", map[string]string{"project/c.md": ""}, map[string]string{"c": "missing"}},
		{"written again", map[string]string{"project/c2.md": mem("c", "")}, map[string]string{"c": "superseded"}},
		{"successor removed", map[string]string{"project/e.md": ""}, map[string]string{"c": "active"}},
	}
	for _, st := range steps {
		var rels []string
		for rel, text := range st.files {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if text == "" {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFiles(t, dir, map[string]string{rel: text})
			}
			rels = append(rels, rel)
		}
		if err := v.Refresh(t.Context(), rels); err != nil {
			t.Fatal(err)
		}
		for id, want := range st.want {
			if got := state(id); got != want {
				t.Errorf("%s: %s is %s, want %s", st.name, id, got, want)
			}
		}
	}
}
