package watcher

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TestAddTreeFoldersOnly checks the start-up walk that watches folders
// without looking at files against the general walk (the one that also
// records files, here none: they are all older than since): the same
// folders are watched, dot-folders and linked folders are not.
func TestAddTreeFoldersOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{
		"a.md", "project/x.md", "project/sub/deep/y.md", "project/sub/z.md",
		".git/objects/o", "project/.hidden/h.md", "meta/.obsidian/w.json",
		"empty/", "short-term/s.md", "a-b/c/", "中文/d.md",
	} {
		folder, isFolder := strings.CutSuffix(p, "/")
		full := filepath.Join(dir, filepath.FromSlash(folder))
		if !isFolder {
			full = filepath.Dir(full)
		}
		if err := os.MkdirAll(full, 0o755); err != nil {
			t.Fatal(err)
		}
		if !isFolder {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink(filepath.Join(dir, "project"), filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	watched := func(since time.Time) map[string]bool {
		w := newWatcher(dir, nil, Options{})
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			t.Fatal(err)
		}
		defer fsw.Close()
		w.fsw = fsw
		if err := w.addTree(".", time.Time{}, since); err != nil {
			t.Fatal(err)
		}
		if !since.IsZero() && len(w.pend.paths) != 0 {
			t.Fatalf("the general walk recorded files: %v", w.pend.paths)
		}
		return w.dirs
	}
	fast, general := watched(time.Time{}), watched(time.Now().Add(time.Hour))
	if !maps.Equal(fast, general) {
		t.Errorf("folders watched: %v\nthe general walk watches %v", fast, general)
	}
	for _, want := range []string{".", "project", "project/sub/deep", "empty", "a-b/c", "中文"} {
		if !fast[want] {
			t.Errorf("%s is not watched (watched: %v)", want, fast)
		}
	}
	for _, not := range []string{".git", "project/.hidden", "meta/.obsidian", "linked"} {
		if fast[not] {
			t.Errorf("%s is watched", not)
		}
	}
}
