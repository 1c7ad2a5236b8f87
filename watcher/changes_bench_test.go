package watcher

import (
	"path/filepath"
	"testing"
)

// BenchmarkChangesSync measures the barrier a cached answer pays.
func BenchmarkChangesSync(b *testing.B) {
	c, err := NewChanges(filepath.Join(b.TempDir(), "watch"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for b.Loop() {
		if _, err := c.Sync(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}
