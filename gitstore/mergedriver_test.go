package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestMergeDriverAndAttribute(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git command")
	}
	root := t.TempDir()
	s, err := Init(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if got, err := s.MergeDriver(ctx, "memvault"); err != nil || got != "" {
		t.Fatalf("MergeDriver before = %q, %v; want none", got, err)
	}
	if got, err := s.Attribute(ctx, ".memory/project/a.md", "merge"); err != nil || got != "unspecified" {
		t.Fatalf("Attribute before = %q, %v", got, err)
	}
	cmd := "'/opt/memvault bin/memvault' merge-driver %O %A %B %P"
	if err := s.SetMergeDriver(ctx, "memvault", "memvault memory files", cmd); err != nil {
		t.Fatal(err)
	}
	if got, err := s.MergeDriver(ctx, "memvault"); err != nil || got != cmd {
		t.Errorf("MergeDriver = %q, %v; want %q", got, err, cmd)
	}
	if err := os.MkdirAll(filepath.Join(root, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".memory", ".gitattributes"), []byte("*.md merge=memvault\n/README.md merge=text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(root, ".memory/project/a.md"): "memvault",
		".memory/README.md":                         "text",
		"notes.md":                                  "unspecified",
	} {
		if got, err := s.Attribute(ctx, path, "merge"); err != nil || got != want {
			t.Errorf("Attribute(%s) = %q, %v; want %q", path, got, err, want)
		}
	}
}
