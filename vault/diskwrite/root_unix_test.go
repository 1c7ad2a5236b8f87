//go:build unix

package diskwrite

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFolderSwappedWhileOpening swaps a folder for a link between the
// two steps of Root.Folder, checkPart's Lstat and openPart's open, as a
// race would. os.Root follows a relative link to another folder of the
// vault, so the opened handle must be refused as not the folder checkPart
// saw; it refuses a link that leads out, and the error must still say
// where it leads. Nothing may be cached or written through the swapped
// folder afterwards.
func TestFolderSwappedWhileOpening(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		target  func(dir, outside string) string
		wantErr error
		wantMsg string
	}{
		{"relative link inside", func(_, _ string) string { return "meta" }, ErrOutsideVault, "project was replaced while memvault was writing"},
		{"absolute link outside", func(_, outside string) string { return outside }, ErrOutsideVault, "project is a symbolic link to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			must(t, os.MkdirAll(filepath.Join(dir, "project"), 0o755))
			must(t, os.MkdirAll(filepath.Join(dir, "meta"), 0o755))
			r, err := Open(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			fi, err := r.checkPart(r.root, "project", "project", false)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "project")
			must(t, os.Rename(p, filepath.Join(dir, "project-moved")))
			must(t, os.Symlink(tt.target(dir, outside), p))
			if d, err := r.openPart(r.root, "project", "project", fi); !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("openPart = %v, %v, want %v mentioning %q", d, err, tt.wantErr, tt.wantMsg)
			}
			if err := r.WriteFile("project/a.md", []byte("x")); err == nil {
				t.Fatal("WriteFile through the swapped folder succeeded")
			}
			for _, d := range []string{filepath.Join(dir, "meta"), filepath.Join(dir, "project-moved"), outside} {
				if ents, _ := os.ReadDir(d); len(ents) != 0 {
					t.Errorf("%s holds %v after the refused write", d, ents)
				}
			}
		})
	}
}
