//go:build linux && !memvault_fsnotify

package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestChangesOverflow fills the kernel's event queue between two Syncs
// (on Linux the events wait there until a Sync reads them) and checks
// that the overflow moves the generation, and that a folder created
// while events were lost is watched once the recursive folder is watched
// again, as the work cache does after any change.
func TestChangesOverflow(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Fatal(err)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if limit > 100_000 {
		t.Skipf("max_queued_events is %d: too many files to overflow it here", limit)
	}
	c, code := watchedCode(t)
	sync := func() uint64 {
		t.Helper()
		g, err := c.Sync(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	before := sync()
	for i := range limit + 100 {
		f, err := os.Create(filepath.Join(code, fmt.Sprintf("f%06d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	// Made while the queue is full: their events are lost.
	if err := os.Mkdir(filepath.Join(code, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(code, "new", "n.go"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a")
	after := sync()
	if after == before {
		t.Fatal("an overflow of the event queue did not move the generation")
	}
	if c.Watched(code, true) {
		t.Error("after an overflow the recursive folder still counts as fully watched")
	}
	if err := c.Watch(code, true); err != nil {
		t.Fatal(err)
	}
	if !c.Watched(filepath.Join(code, "new"), false) {
		t.Fatal("the folder created while events were lost is not watched after the folder is watched again")
	}
	write("b")
	if sync() == after {
		t.Error("an edit in the folder created while events were lost was not counted")
	}
}
