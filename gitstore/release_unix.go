//go:build unix

package gitstore

import (
	"os"
	"sync"
)

// holdReplaced opens the file a rename is about to replace, so that the
// rename only unlinks it and the kernel frees its blocks and pages when
// the returned func closes it, on another goroutine, after the caller has
// moved on. Freeing a large replaced index inside the rename was a
// noticeable part of every commit (docs/git.md, "Server writes, third
// round (2026-12-02): the commit's wall time"). A missing target gives a
// release that does nothing.
func holdReplaced(target string, wg *sync.WaitGroup) (release func()) {
	f, err := os.Open(target)
	if err != nil {
		return func() {}
	}
	return func() { wg.Go(func() { f.Close() }) }
}
