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
// Lstat and the open of Root.Folder. os.Root follows a relative link
// to another folder of the vault, so the opened handle must be refused as
// not the folder Lstat saw; it refuses a link that leads out, and the
// error must still say where it leads.
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
			r.beforeOpen = func(part string) {
				p := filepath.Join(dir, part)
				if err := os.Rename(p, filepath.Join(dir, "project-moved")); err != nil {
					t.Fatal(err)
				}
				must(t, os.Symlink(tt.target(dir, outside), p))
			}
			err = r.WriteFile("project/a.md", []byte("x"))
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("WriteFile = %v, want %v mentioning %q", err, tt.wantErr, tt.wantMsg)
			}
			for _, d := range []string{filepath.Join(dir, "meta"), filepath.Join(dir, "project-moved"), outside} {
				if ents, _ := os.ReadDir(d); len(ents) != 0 {
					t.Errorf("%s holds %v after the refused write", d, ents)
				}
			}
		})
	}
}
