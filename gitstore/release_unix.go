//go:build unix

package gitstore

import (
	"os"
	"sync"
)

// holdReplaced opens the file a rename is about to replace, so that the
// rename only unlinks it and the kernel frees its blocks and pages when
// the returned func closes it, on another goroutine, after the caller has
// moved on. At 100,000 entries the replaced index is 9.7 MB, and freeing
// it inside the rename took about 3 ms of every commit. A missing target
// gives a release that does nothing.
func holdReplaced(target string, wg *sync.WaitGroup) (release func()) {
	f, err := os.Open(target)
	if err != nil {
		return func() {}
	}
	return func() { wg.Go(func() { f.Close() }) }
}
