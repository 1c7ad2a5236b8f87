package watcher

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fsnotify/fsnotify"
)

func TestAddFolders(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b/c/d", "b/e", ".hidden/x"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/1.md", "a/2.md", "b/3.md", "b/c/d/4.md", "top.md"} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(f)), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{".", "a", "b", "b/c", "b/c/d", "b/e"}
	for _, leaf := range []bool{false, true} {
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			t.Fatal(err)
		}
		w := &Watcher{dir: root, fsw: fsw, dirs: map[string]bool{}}
		if err := w.addFolders(root, leaf); err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(w.dirs))
		if !slices.Equal(got, want) {
			t.Errorf("leaf %v: watched %v, want %v", leaf, got, want)
		}
		if watched := len(fsw.WatchList()); watched != len(want) {
			t.Errorf("leaf %v: fsnotify watches %d folders, want %d", leaf, watched, len(want))
		}
		fsw.Close()
	}
	// Where the file system counts subfolders in a folder's links (ext4,
	// XFS, tmpfs: CI's), a folder of files alone is known without reading.
	if countsSubfolders(root) {
		for d, none := range map[string]bool{"a": true, "b/e": true, "b/c/d": true, "b": false, "b/c": false, ".": false} {
			if got := noSubfolders(filepath.Join(root, filepath.FromSlash(d))); got != none {
				t.Errorf("noSubfolders(%s) = %v, want %v", d, got, none)
			}
		}
	} else {
		t.Logf("%s does not count subfolders in link counts: every folder is listed", root)
	}
}
