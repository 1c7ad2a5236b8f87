package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault/load"
)

// TestServeSurvivesTruncatedCache: another program truncating the index
// cache under a running server does not kill it (issue 27 finding 7: the
// server mapped the file, and touching a body after the truncation raised
// SIGBUS). The server maps a private copy of the cache instead.
func TestServeSurvivesTruncatedCache(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)
	root := newRepo(t)
	vaultDir := filepath.Join(root, ".memory")
	// Bodies of several pages each, so that a recall reads pages the load
	// left alone.
	for i, name := range []string{"alpha", "beta", "gamma"} {
		body := strings.Repeat("The deploy checklist for "+name+" covers every step. ", 400)
		text := "---\nid: 01KTRUNC" + strings.Repeat("0", 17) + string(rune('A'+i)) + "\ntitle: Deploy checklist " + name + "\nlayer: project\n---\n" + body + "\n"
		p := filepath.Join(vaultDir, "project", name+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A command writes the cache the server then loads.
	cmd := exec.Command(bin, "recall", "deploy checklist")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("recall: %v\n%s", err, out)
	}
	cache := filepath.Join(vaultDir, load.CacheDirName, "index-v2")
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("no index cache: %v", err)
	}
	s := &mcpSession{t: t, bin: bin, root: root}
	s.connect()
	s.ok("memory_stats", map[string]any{}, nil) // the vault is loaded
	if err := os.Truncate(cache, 0); err != nil {
		t.Fatal(err)
	}
	text := s.ok("recall", map[string]any{"query": "deploy checklist", "k": 3}, nil)
	for _, name := range []string{"alpha", "beta", "gamma"} {
		if !strings.Contains(text, "Deploy checklist "+name) {
			t.Errorf("recall after the truncation lacks %s:\n%.500s", name, text)
		}
	}
	var got view.Memory
	s.ok("get_memory", map[string]any{"id": "01KTRUNC" + strings.Repeat("0", 17) + "B"}, &got)
	if !strings.HasSuffix(strings.TrimSpace(got.Body), "covers every step.") || len(got.Body) < 10000 {
		t.Errorf("get_memory after the truncation: a body of %d bytes", len(got.Body))
	}
}
