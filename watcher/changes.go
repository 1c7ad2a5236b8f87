package watcher

import (
	"errors"
	"time"
)

// ErrChangesClosed is returned by Changes.Sync after Close, or when the
// events stopped.
var ErrChangesClosed = errors.New("change counter closed")

// errDeaf is Sync's error once the file system showed it does not report
// changes: the caller reads without its cache.
var errDeaf = errors.New("changes: the file system does not report changes")

// syncFiles is how many Syncs can wait at once where a Sync waits for an
// event of its own (outside Linux); more fail (the caller reads without
// its cache).
const syncFiles = 8

// syncTimeout bounds the wait for an event of Changes' own (a Sync's
// outside Linux, the check at the start on Linux): past it, the file
// system is taken not to report changes.
const syncTimeout = 2 * time.Second
