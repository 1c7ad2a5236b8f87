package store

import "time"

// RacyWindow is how recent a file's change may be for what was read of it
// to be cached: comfortably more than any file system's timestamp
// granularity. A second change within that granularity could leave the
// stat data as it was.
const RacyWindow = 2 * time.Second

// StatKey is what says a file is unchanged since it was read: its size,
// modification and change times in nanoseconds, and inode.
type StatKey struct {
	Size, Mtime, Ctime int64
	Ino                uint64
}
