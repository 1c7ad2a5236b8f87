package watcher

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/fsnotify/fsnotify"
)

// barrier holds a settled burst back until every event queued before it
// has been received. The watcher writes a file of its own into a private
// folder watched by the same inotify instance, whose queue delivers events
// in the order they happened: once that file's event comes back, every
// event of the burst (a git checkout's last files, queued before git let
// go of its lock) has too. Without it, on a loaded machine the timer could
// fire while the goroutine reading the queue lagged, and one git pull was
// applied in two batches.
type barrier struct {
	dir    string    // the private folder; "" when there is none
	sent   uint64    // the sequence number of the last file written
	seen   uint64    // the last one whose event came back
	sentAt time.Time // when the last one was written
}

// barrierWait is how long a flush waits for its barrier before it goes
// ahead without it (an event lost to a full queue, say).
const barrierWait = time.Second

// open makes the private folder once; it reports false when there is
// none, and the watcher then flushes without a barrier.
func (b *barrier) open() bool {
	if b.dir == "" {
		dir, err := os.MkdirTemp("", "memvault-watch-")
		if err != nil {
			return false
		}
		b.dir = dir
	}
	return true
}

// watch adds the folder to fsw, a new fsnotify watcher.
func (b *barrier) watch(fsw *fsnotify.Watcher) {
	if b.open() && fsw.Add(b.dir) != nil {
		b.close()
	}
}

func (b *barrier) close() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
		b.dir = ""
	}
}

// passed reports whether a barrier written after last has come back.
func (b *barrier) passed(last time.Time) bool {
	return b.sent > 0 && b.seen == b.sent && b.sentAt.After(last)
}

// waiting reports whether the last barrier written has not come back yet.
func (b *barrier) waiting() bool { return b.seen < b.sent }

// giveUp stops waiting for the last barrier (not back in time): the next
// burst writes a new one, and a late event of this one is not counted.
func (b *barrier) giveUp() { b.seen = b.sent }

// send writes the next barrier file and removes the one before.
func (b *barrier) send(now time.Time) error {
	next := b.sent + 1
	if err := os.WriteFile(filepath.Join(b.dir, strconv.FormatUint(next, 10)), nil, 0o600); err != nil {
		return err
	}
	if b.sent > 0 {
		os.Remove(filepath.Join(b.dir, strconv.FormatUint(b.sent, 10)))
	}
	b.sent, b.sentAt = next, now
	return nil
}

// handle reports whether ev is of the private folder, recording a
// barrier that came back.
func (b *barrier) handle(ev fsnotify.Event) bool {
	if b.dir == "" || filepath.Dir(ev.Name) != b.dir {
		return false
	}
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
		if n, err := strconv.ParseUint(filepath.Base(ev.Name), 10, 64); err == nil && n > b.seen && n <= b.sent {
			b.seen = n
		}
	}
	return true
}
