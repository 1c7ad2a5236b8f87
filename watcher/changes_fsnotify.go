//go:build !linux || memvault_fsnotify

package watcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
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
// Outside Linux it is built on fsnotify: Sync writes a few bytes
// to a file of its own in a folder it watches (syncDir) and waits for
// that write's event: the kernel queues events in order, so when it
// arrives every earlier event was read. A write costs a microsecond
// where creating a file costs hundreds. Each Changes has syncFiles such
// files, named with a token of its own so that two processes sharing
// syncDir do not answer each other; a file whose Sync gave up is not
// used again until its late event has come by.
type Changes struct {
	fsw     *fsnotify.Watcher
	syncDir string
	token   string
	files   []*os.File
	done    chan struct{}

	mu        sync.Mutex
	gen       uint64
	watched   map[string]bool // folders with a watch
	recursive map[string]bool // folders watched with everything below
	waiting   map[string]chan uint64
	// stale holds the sync files whose Sync gave up before its event
	// came: the event is still to come, and must not answer another.
	stale  map[string]bool
	next   int
	closed bool
	// deaf is set when a Sync waited syncTimeout for its event: the file
	// system does not report changes, and every later Sync fails at once
	// (the caller reads without its cache) rather than wait again.
	deaf bool
}

// syncSeq makes the token of each Changes of the process distinct.
var syncSeq atomic.Uint64

// syncTimeout bounds the wait for a Sync's event of its own: past it,
// the file system is taken not to report changes.
const syncTimeout = 2 * time.Second

// NewChanges starts a counter whose barrier files go to syncDir (created
// when missing; a folder of the caller's, such as .git/memvault/watch).
func NewChanges(syncDir string) (*Changes, error) {
	if err := os.MkdirAll(syncDir, 0o755); err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	abs, err := filepath.Abs(syncDir)
	if err != nil {
		fsw.Close()
		return nil, fmt.Errorf("changes: %w", err)
	}
	if err := fsw.Add(abs); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("changes: watch %s: %w", abs, err)
	}
	c := &Changes{fsw: fsw, syncDir: abs, done: make(chan struct{}), watched: map[string]bool{}, recursive: map[string]bool{},
		waiting: map[string]chan uint64{}, stale: map[string]bool{},
		token: fmt.Sprintf("%d-%d-%d", os.Getpid(), time.Now().UnixNano(), syncSeq.Add(1))}
	for i := range syncFiles {
		f, err := os.OpenFile(filepath.Join(abs, c.syncName(i)), os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o644)
		if err != nil {
			c.removeFiles()
			fsw.Close()
			return nil, fmt.Errorf("changes: %w", err)
		}
		c.files = append(c.files, f)
	}
	go c.run()
	return c, nil
}

func (c *Changes) syncName(i int) string { return "sync-" + c.token + "-" + strconv.Itoa(i) }

// removeFiles closes and removes the sync files.
func (c *Changes) removeFiles() {
	for _, f := range c.files {
		f.Close()
		os.Remove(f.Name())
	}
}

// Close stops the counter; Sync fails from then on.
func (c *Changes) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	err := c.fsw.Close()
	<-c.done
	c.removeFiles()
	return err
}

// Watched reports whether dir has a watch (recursive: with everything
// below it).
func (c *Changes) Watched(dir string, recursive bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if recursive {
		return c.recursive[dir]
	}
	return c.watched[dir]
}

// Watch watches the folder dir (absolute), and with recursive every
// folder below it, except .git folders; folders created below it later
// are added as they appear. Watching a folder twice costs a map lookup.
// A folder that does not exist is an error wrapping fs.ErrNotExist; the
// caller then has nothing to cache. A watch that fails half way (the
// system's limit) leaves the folder not watched.
func (c *Changes) Watch(dir string, recursive bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrChangesClosed
	}
	if c.recursive[dir] || !recursive && c.watched[dir] {
		return nil
	}
	if !recursive {
		if err := c.fsw.Add(dir); err != nil {
			return fmt.Errorf("watch %s: %w", dir, err)
		}
		c.watched[dir] = true
		return nil
	}
	if err := c.addTree(dir); err != nil {
		return err
	}
	c.recursive[dir] = true
	return nil
}

// addTree watches dir and every folder below it but .git ones, with mu
// held.
func (c *Changes) addTree(dir string) error {
	return walkFolders(dir, func(p string) bool { return c.watched[p] }, func(p string) error {
		if err := c.fsw.Add(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
		c.watched[p] = true
		return nil
	})
}

// Sync returns the generation once every change made before the call has
// been counted. Two Syncs that return the same generation saw no change
// in between under any watched folder.
func (c *Changes) Sync(ctx context.Context) (uint64, error) {
	return c.Begin().Wait(ctx)
}

// Barrier is a Sync split in two: Begin writes to the sync file, Wait
// waits for that write's event. A caller that has other work to do
// (a search) begins the barrier first and waits after it, so the
// event's round trip costs it nothing; the generation still counts
// every change made before Begin.
type Barrier struct {
	c    *Changes
	k    int
	name string
	ch   chan uint64

	mu   sync.Mutex
	err  error
	gen  uint64
	done bool // Wait returned: gen and err are its answer
}

// Begin starts a barrier. A barrier never waited for is answered by its
// event and forgotten; on a file system that does not report changes it
// keeps its sync file, and once all are kept Syncs fail (the caller
// reads without its cache), as they do there anyway.
func (c *Changes) Begin() *Barrier {
	b := &Barrier{c: c, ch: make(chan uint64, 1), k: -1}
	c.mu.Lock()
	switch {
	case c.closed:
		b.err = ErrChangesClosed
	case c.deaf:
		b.err = errDeaf
	default:
		for n := range syncFiles {
			i := (c.next + n) % syncFiles
			if name := c.syncName(i); !c.stale[name] && c.waiting[name] == nil {
				b.k, b.name = i, name
				break
			}
		}
		if b.k < 0 {
			b.err = errors.New("changes: too many syncs at once")
			break
		}
		c.next = b.k + 1
		c.waiting[b.name] = b.ch
	}
	c.mu.Unlock()
	if b.err != nil {
		return b
	}
	if _, err := c.files[b.k].WriteAt([]byte("sync\n"), 0); err != nil {
		b.gaveUp()
		b.err = fmt.Errorf("changes: sync: %w", err)
	}
	return b
}

// gaveUp marks the barrier's sync file as waiting for a late event, which
// must not answer another barrier.
func (b *Barrier) gaveUp() {
	c := b.c
	c.mu.Lock()
	if c.waiting[b.name] == b.ch {
		delete(c.waiting, b.name)
		c.stale[b.name] = true
	}
	c.mu.Unlock()
}

// Wait returns the generation once every change made before Begin has
// been counted. Later calls return the first one's answer.
func (b *Barrier) Wait(ctx context.Context) (uint64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done && b.err == nil {
		b.gen, b.err = b.wait(ctx)
	}
	b.done = true
	return b.gen, b.err
}

func (b *Barrier) wait(ctx context.Context) (uint64, error) {
	c := b.c
	select {
	case g := <-b.ch: // already there: no timer
		return g, nil
	default:
	}
	timer := time.NewTimer(syncTimeout)
	defer timer.Stop()
	select {
	case g := <-b.ch:
		return g, nil
	case <-c.done:
		return 0, ErrChangesClosed
	case <-ctx.Done():
		b.gaveUp()
		return 0, ctx.Err()
	case <-timer.C:
		b.gaveUp()
		c.mu.Lock()
		c.deaf = true
		c.mu.Unlock()
		return 0, errDeaf
	}
}

// run counts the events until the watcher closes.
func (c *Changes) run() {
	defer close(c.done)
	for {
		select {
		case ev, ok := <-c.fsw.Events:
			if !ok {
				return
			}
			c.event(ev)
		case _, ok := <-c.fsw.Errors:
			if !ok {
				return
			}
			// Lost events (a queue overflow): anything may have changed.
			c.mu.Lock()
			c.gen++
			c.mu.Unlock()
		}
	}
}

// event counts one event, answers the Sync it ends, and follows folders
// created below a recursive watch.
func (c *Changes) event(ev fsnotify.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dir, name := filepath.Split(ev.Name)
	if filepath.Clean(dir) == c.syncDir {
		if !ev.Has(fsnotify.Write) {
			return
		}
		if ch, ok := c.waiting[name]; ok {
			delete(c.waiting, name)
			ch <- c.gen
		} else {
			delete(c.stale, name) // the late event of a Sync that gave up
		}
		return
	}
	c.gen++
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		// The kernel drops the watch of a removed folder; a folder of
		// that name created later is watched anew.
		for p := range c.watched {
			if p == ev.Name || strings.HasPrefix(p, ev.Name+string(filepath.Separator)) {
				delete(c.watched, p)
				delete(c.recursive, p)
			}
		}
	case ev.Has(fsnotify.Create):
		if !belowAny(c.recursive, ev.Name) {
			return
		}
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && fi.Name() != ".git" {
			// Files written there before the watch was added are
			// counted by this event already.
			_ = c.addTree(ev.Name)
		}
	}
}
