package history

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindMemoryFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"project/a-successor.md": "---\nid: 01SUCCESSOR\ntitle: New\nsupersedes: [01TARGET]\n---\nReplaces 01TARGET.\n",
		"project/z-target.md":    "---\nid: 01TARGET\ntitle: Old\n---\nbody\n",
		"project/hand.md":        "# Hand-written\n",
		".hidden/x.md":           "---\nid: 01HIDDEN\n---\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ id, wantPath string }{
		{"01TARGET", "project/z-target.md"},
		{"01SUCCESSOR", "project/a-successor.md"},
		{"project/hand", "project/hand.md"},
		{"01HIDDEN", ""},
		{"01NONE", ""},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			m, err := FindMemoryFile(t.Context(), dir, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if m != nil {
				got = m.Path
			}
			if got != tt.wantPath {
				t.Errorf("found %q, want %q", got, tt.wantPath)
			}
		})
	}
	if m, err := FindMemoryFile(t.Context(), filepath.Join(dir, "missing"), "01TARGET"); m != nil || err != nil {
		t.Errorf("missing vault: %v %v", m, err)
	}
}
