//go:build linux && !memvault_fsnotify

package watcher

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Changes counts the changes under some folders, so a cache of what is
// in them (the uncommitted state of the code a memory refers to) can be
// reused until something changed there. Its generation moves on every
// file-system event under a watched folder, and on lost events; Sync is
// a barrier that returns the generation once every event of a change
// made before the call has been counted, so a cache checked with it
// never misses an edit that finished before the question (a test can
// edit a file and ask at once). It knows nothing of git: the caller
// says which folders to watch, recursively or not.
//
// On Linux it reads inotify itself, and only when asked: the kernel
// queues a change's event before the system call that made it returns,
// so Sync, which reads every queued event (a non-blocking read until
// none is left), has counted every change made before it, with no
// round trip through a file of its own and no goroutine. Between Syncs
// the events wait in the kernel's queue; when it overflows, the
// generation moves and every folder is walked again at its next Watch
// (a folder created meanwhile may have been missed).
type Changes struct {
	mu        sync.Mutex
	fd        int
	gen       uint64
	watched   map[string]int  // folder -> watch descriptor
	paths     map[int]string  // watch descriptor -> folder
	recursive map[string]bool // folders watched with everything below
	closed    bool
	deaf      bool // the check at the start saw no event: Sync fails
	buf       []byte
}

// event is one inotify event read.
type event struct {
	wd   int
	mask uint32
	name string // "" for an event of the watched folder itself
}

// inotifyMask is the events a folder's watch reports: anything that
// changes what the folder holds or what its files hold.
const inotifyMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MODIFY | syscall.IN_ATTRIB |
	syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR

// NewChanges starts a counter. syncDir (created when missing; a folder
// of the caller's, such as .git/memvault/watch) holds the file of the
// check at the start: a file system that does not report a file created
// there does not report changes, and every Sync fails
// (the caller reads without its cache).
func NewChanges(syncDir string) (*Changes, error) {
	if err := os.MkdirAll(syncDir, 0o755); err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("changes: %w", os.NewSyscallError("inotify_init1", err))
	}
	c := &Changes{fd: fd, watched: map[string]int{}, paths: map[int]string{}, recursive: map[string]bool{}, buf: make([]byte, 64<<10)}
	if err := c.check(syncDir); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return c, nil
}

// check watches syncDir, creates a file there and reads the queue: the
// kernel queues a change's event before the call that made it returns
// (the premise of Sync), so an event not there at once never comes, and
// the counter is deaf.
func (c *Changes) check(syncDir string) error {
	wd, err := syscall.InotifyAddWatch(c.fd, syncDir, syscall.IN_CREATE|syscall.IN_ONLYDIR)
	if err != nil {
		return fmt.Errorf("changes: watch %s: %w", syncDir, err)
	}
	f, err := os.CreateTemp(syncDir, "sync-")
	if err != nil {
		return fmt.Errorf("changes: %w", err)
	}
	f.Close()
	os.Remove(f.Name())
	seen := false
	for {
		n, err := syscall.Read(c.fd, c.buf[:])
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			break
		}
		if err != nil {
			return fmt.Errorf("changes: %w", os.NewSyscallError("read", err))
		}
		c.each(n, func(ev event) {
			if ev.wd == wd && ev.mask&syscall.IN_CREATE != 0 {
				seen = true
			}
		})
	}
	c.deaf = !seen
	// Its removal's IN_IGNORED, read at a Sync, names no watched folder.
	_, _ = syscall.InotifyRmWatch(c.fd, uint32(wd))
	return nil
}

// each calls fn with every event of the first n bytes of c.buf (struct
// inotify_event: wd, mask, cookie, len, then len bytes of name padded
// with NULs).
func (c *Changes) each(n int, fn func(event)) {
	for off := 0; off+syscall.SizeofInotifyEvent <= n; {
		h := c.buf[off : off+syscall.SizeofInotifyEvent]
		ev := event{wd: int(int32(binary.NativeEndian.Uint32(h[0:4]))), mask: binary.NativeEndian.Uint32(h[4:8])}
		size := int(binary.NativeEndian.Uint32(h[12:16]))
		off += syscall.SizeofInotifyEvent
		if size > 0 && off+size <= n {
			ev.name = strings.TrimRight(string(c.buf[off:off+size]), "\x00")
		}
		off += size
		fn(ev)
	}
}

// Close stops the counter; Sync fails from then on.
func (c *Changes) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return syscall.Close(c.fd)
}

// Watched reports whether dir has a watch (recursive: with everything
// below it), as of the last Sync.
func (c *Changes) Watched(dir string, recursive bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if recursive {
		return c.recursive[dir]
	}
	_, ok := c.watched[dir]
	return ok
}

// Watch watches the folder dir (absolute), and with recursive every
// folder below it, except .git folders; folders created below it later
// are added as a Sync sees them appear. Watching a folder twice costs a
// map lookup. A folder that does not exist is an error wrapping
// fs.ErrNotExist; the caller then has nothing to cache. A watch that
// fails half way (the system's limit) leaves the folder not watched.
func (c *Changes) Watch(dir string, recursive bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrChangesClosed
	}
	if c.recursive[dir] {
		return nil
	}
	if _, ok := c.watched[dir]; ok && !recursive {
		return nil
	}
	if !recursive {
		return c.add(dir)
	}
	if err := c.addTree(dir); err != nil {
		return err
	}
	c.recursive[dir] = true
	return nil
}

// add watches the folder dir, with mu held.
func (c *Changes) add(dir string) error {
	wd, err := syscall.InotifyAddWatch(c.fd, dir, inotifyMask)
	if err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	c.watched[dir] = wd
	c.paths[wd] = dir
	return nil
}

// addTree watches dir and every folder below it but .git ones, with mu
// held.
func (c *Changes) addTree(dir string) error {
	return walkFolders(dir, func(p string) bool { _, ok := c.watched[p]; return ok }, c.add)
}

// Sync returns the generation once every change made before the call has
// been counted: it reads every event queued. Two Syncs that return the
// same generation saw no change in between under any watched folder.
func (c *Changes) Sync(ctx context.Context) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, ErrChangesClosed
	}
	if c.deaf {
		return 0, errDeaf
	}
	for {
		n, err := syscall.Read(c.fd, c.buf[:])
		if err == syscall.EAGAIN {
			return c.gen, nil
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("changes: %w", os.NewSyscallError("read", err))
		}
		c.each(n, c.event)
	}
}

// event counts one event, with mu held, and follows the folders it
// creates, moves or removes.
func (c *Changes) event(ev event) {
	if ev.mask&syscall.IN_Q_OVERFLOW != 0 {
		// Lost events: anything may have changed, and a folder created
		// meanwhile below a recursive watch is not watched. Every
		// folder is walked again at its next Watch (watching a watched
		// folder again keeps its watch).
		c.gen++
		clear(c.recursive)
		return
	}
	dir, ok := c.paths[ev.wd]
	if ev.mask&syscall.IN_IGNORED != 0 {
		// The watch is gone (its folder was removed): a folder of that
		// name made later is watched anew.
		if ok {
			delete(c.paths, ev.wd)
			if c.watched[dir] == ev.wd {
				delete(c.watched, dir)
				delete(c.recursive, dir)
			}
		}
		return
	}
	if !ok {
		return // a watch removed before its events were read
	}
	c.gen++
	p := dir
	if ev.name != "" {
		p = filepath.Join(dir, ev.name)
	}
	isDir := ev.mask&syscall.IN_ISDIR != 0
	switch {
	case ev.mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0,
		isDir && ev.mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM) != 0:
		// A folder moved away or removed: its watches, and those below
		// it, no longer say what is at that path.
		for q, wd := range c.watched {
			if q == p || strings.HasPrefix(q, p+string(filepath.Separator)) {
				delete(c.watched, q)
				delete(c.recursive, q)
				delete(c.paths, wd)
				_, _ = syscall.InotifyRmWatch(c.fd, uint32(wd))
			}
		}
	case isDir && ev.mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0:
		if ev.name != ".git" && belowAny(c.recursive, p) {
			// Files written there before the watch was added are
			// counted by this event already.
			_ = c.addTree(p)
		}
	}
}

// Barrier is a Sync split in two, for callers that begin it before other
// work and wait after it (where the barrier is a round trip, outside
// Linux). On Linux Begin is the whole Sync and Wait returns its answer.
type Barrier struct {
	gen uint64
	err error
}

// Begin starts a barrier: on Linux, a Sync.
func (c *Changes) Begin() *Barrier {
	g, err := c.Sync(context.Background())
	return &Barrier{gen: g, err: err}
}

// Wait returns the generation once every change made before Begin has
// been counted. Later calls return the same answer.
func (b *Barrier) Wait(ctx context.Context) (uint64, error) { return b.gen, b.err }
