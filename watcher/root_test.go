package watcher

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// chanSink passes each batch on to the test.
type chanSink chan call

func (s chanSink) Refresh(_ context.Context, rels []string) error {
	s <- call{paths: slices.Clone(rels)}
	return nil
}

func (s chanSink) Reload(context.Context) error {
	s <- call{full: true}
	return nil
}

// TestOpenWaitsForAMissingFolder opens a watcher on a folder that does
// not exist: nothing is created, and once the folder appears (the first
// write makes it) its files are read one by one, not reloaded, and later
// changes are followed.
func TestOpenWaitsForAMissingFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), ".memory")
	sink := make(chanSink, 10)
	w, err := Open(t.Context(), dir, sink, Options{Debounce: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("Open made the folder (stat: %v); want it left to the first write", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "project", "a.md"), []byte("---\nid: a\n---\nA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The folder appears outside the watcher's knowledge: it looks for
	// it every rootPoll, and the batch that follows is the event waited on.
	if got := <-sink; got.full || !slices.Equal(got.paths, []string{"project/a.md"}) {
		t.Fatalf("first batch %+v, want project/a.md refreshed", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "project", "b.md"), []byte("---\nid: b\n---\nB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := <-sink; got.full || !slices.Equal(got.paths, []string{"project/b.md"}) {
		t.Fatalf("second batch %+v, want project/b.md refreshed", got)
	}
	if m := w.Mode(); m != ModeNotify {
		t.Errorf("mode %v once the folder is there, want notify", m)
	}
}
