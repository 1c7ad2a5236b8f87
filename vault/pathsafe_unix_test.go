//go:build unix

package vault

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestScanSymlinks checks what the loader follows: a vault folder that is
// itself a link, never a linked memory file (inside the vault or out),
// never linked folders or FIFOs.
func TestScanSymlinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir, outside := filepath.Join(base, "vault"), filepath.Join(base, "outside")
	mustMkdir(t, filepath.Join(dir, "project"))
	mustMkdir(t, outside)
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "project", "real.md"), "# Real\n")
	write(filepath.Join(outside, "secret.md"), "# Outside\n")
	mustMkdir(t, filepath.Join(outside, "folder"))
	write(filepath.Join(outside, "folder", "deep.md"), "# Deep\n")
	mustSymlink(t, filepath.Join(dir, "project", "real.md"), filepath.Join(dir, "project", "alias.md"))
	mustSymlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "project", "leak.md"))
	mustSymlink(t, "../../outside/secret.md", filepath.Join(dir, "project", "relleak.md"))
	mustSymlink(t, filepath.Join(outside, "folder"), filepath.Join(dir, "meta"))
	mustSymlink(t, filepath.Join(dir, "project"), filepath.Join(dir, "project", "loop.md"))
	if err := syscall.Mkfifo(filepath.Join(dir, "project", "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "vault-link")
	mustSymlink(t, dir, link)
	// Linked memory files are never loaded, even one naming a file
	// inside the vault (issue 27, finding 11): lint reports them.
	want := "project/real.md"
	for _, d := range []string{dir, link} {
		rels, err := scan(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(rels, " "); got != want {
			t.Errorf("scan(%s) = %s, want %s", filepath.Base(d), got, want)
		}
	}
}
