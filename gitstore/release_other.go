//go:build !unix

package gitstore

import "sync"

// holdReplaced does nothing here: Windows refuses to rename over a file
// that is open without FILE_SHARE_DELETE, which os.Open does not ask for.
func holdReplaced(target string, wg *sync.WaitGroup) (release func()) { return func() {} }
