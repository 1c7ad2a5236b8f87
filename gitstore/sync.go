package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Durability. A commit is reported done only once its bytes are on disk, in
// the order git's core.fsync=committed (plus index) implies: every object a
// commit reaches is fsynced before it is renamed into place, and its
// directory after; all of that before the ref's lock file is fsynced and
// renamed over the ref, whose directory is then fsynced; then the index the
// same way. A power cut can so lose the newest commit, never leave a ref
// naming an object that is not on disk. Git itself does not fsync
// directories; POSIX needs it for a rename to be durable, so this package
// does (directories are not synced on Windows, where NTFS journals names).
//
// Independent syncs run concurrently (a syncBatch), so a commit waits for
// about three flushes, not fifteen: object files (while later objects are
// still being built), then object directories with the ref's lock file,
// then the ref's directory, then the index's. The index itself is synced
// before its lock is taken, in the owner record the lock is then linked
// to (stageLock); its writeback starts while it is still being written
// (startWriteback), so its flush overlaps the hashing instead of
// following it. Without an owner record it is written under the lock and
// synced alongside the ref's lock file.

// fsyncComponent is one kind of file git's core.fsync names that this
// package writes.
type fsyncComponent uint8

const (
	fsyncLooseObject fsyncComponent = 1 << iota
	fsyncReference
	fsyncIndex

	// fsyncAdded is git's "added" (committed = objects and refs, plus the
	// index): what Commit syncs when core.fsync is not set. It is stricter
	// than git's default, which syncs none of these three, because
	// memvault reports a memory as saved once Commit returns.
	fsyncAdded = fsyncLooseObject | fsyncReference | fsyncIndex
)

// fsyncName maps a core.fsync component name to the components this
// package writes; names of files it never writes (pack, commit-graph) map to
// none.
func fsyncName(name string) fsyncComponent {
	switch name {
	case "loose-object", "objects":
		return fsyncLooseObject
	case "reference":
		return fsyncReference
	case "index":
		return fsyncIndex
	case "committed":
		return fsyncLooseObject | fsyncReference
	case "added", "all":
		return fsyncAdded
	}
	return 0
}

// fsyncConfig returns the components to sync: core.fsync parsed as git
// parses it (comma-separated names, "-name" removes, "none" clears what git
// syncs by default) when it is set, fsyncAdded when it is not; the
// deprecated core.fsyncObjectFiles=true adds loose objects, git taking the
// stricter of the two.
func fsyncConfig(cfg *gitConfig) fsyncComponent {
	c := fsyncAdded
	if cfg.has("core", "fsync") {
		c = parseFsync(cfg.get("core", "", "fsync"))
	}
	if cfg.getBool("core", "fsyncobjectfiles", false) {
		c |= fsyncLooseObject
	}
	return c
}

// parseFsync reads a core.fsync value as git does: names add components,
// "-name" removes them from the default only, "none" clears the default.
// Git's own default syncs packs only, none of the components here, so
// parsing starts from nothing; unknown names are ignored, as git ignores
// them after a warning.
func parseFsync(v string) fsyncComponent {
	var current, positive, negative fsyncComponent
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(strings.ToLower(name))
		neg := strings.HasPrefix(name, "-")
		name = strings.TrimPrefix(name, "-")
		if name == "none" {
			current = 0
			continue
		}
		if neg {
			negative |= fsyncName(name)
		} else {
			positive |= fsyncName(name)
		}
	}
	return current&^negative | positive
}

// syncFS performs the file-system steps that publish a write. Commit goes
// through it, not through package os directly, so a test can record the
// order of syncs and renames.
type syncFS interface {
	// syncFile flushes an open file's data and metadata to the device.
	syncFile(f *os.File) error
	// syncDir flushes a directory's entries, making renames into it durable.
	syncDir(dir string) error
	rename(oldpath, newpath string) error
}

// osFS is the real syncFS. File.Sync uses F_FULLFSYNC on macOS, as git's
// core.fsyncMethod=fsync does.
type osFS struct{}

func (osFS) syncFile(f *os.File) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", f.Name(), err)
	}
	return nil
}

func (osFS) syncDir(dir string) error { return syncDir(dir) }

func (osFS) rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// syncs reports whether Commit makes writes of component c durable.
func (s *Store) syncs(c fsyncComponent) bool { return !s.NoSync && s.fsync&c != 0 }

// markDirDirty queues dir, and its parent when dir was just created, for
// flushSyncs.
func (s *Store) markDirDirty(dir string, created bool) {
	if !slices.Contains(s.dirtyDirs, dir) {
		s.dirtyDirs = append(s.dirtyDirs, dir)
	}
	if parent := filepath.Dir(dir); created && !slices.Contains(s.dirtyDirs, parent) {
		s.dirtyDirs = append(s.dirtyDirs, parent)
	}
}

// flushSyncs waits for the object files in flight to be synced and renamed,
// then syncs the directories they were renamed into, together with the
// given extra syncs (lock files about to be published). Commit calls it
// before moving the ref, so everything the ref will name is on disk first.
func (s *Store) flushSyncs(extra ...func() error) error {
	if err := s.startDirSyncs(); err != nil {
		return err
	}
	for _, fn := range extra {
		s.batch.run(fn)
	}
	return s.batch.wait()
}

// startDirSyncs waits for the object files in flight to be synced and
// renamed, then starts the syncs of the directories they were renamed
// into without waiting for them: Commit calls it before taking the index
// lock, and the lock files' syncs join them.
func (s *Store) startDirSyncs() error {
	if err := s.batch.wait(); err != nil {
		s.dirtyDirs = s.dirtyDirs[:0]
		return err
	}
	slices.Sort(s.dirtyDirs) // a stable order for tests
	for _, d := range s.dirtyDirs {
		s.batch.run(func() error { return s.fsys.syncDir(d) })
	}
	s.dirtyDirs = s.dirtyDirs[:0]
	return nil
}

// maxSyncsInFlight bounds a syncBatch: enough to overlap the flushes of a
// commit's few objects, few enough that a commit of thousands of files
// does not hold thousands of descriptors open.
const maxSyncsInFlight = 16

// syncBatch runs syncs concurrently and keeps the first error. File systems
// with a journal commit concurrent fsyncs together, so n files cost about
// one flush.
type syncBatch struct {
	wg  sync.WaitGroup
	sem chan struct{} // nil until first use
	mu  sync.Mutex
	err error
}

// run starts fn, waiting first while maxSyncsInFlight are running.
func (b *syncBatch) run(fn func() error) {
	if b.sem == nil {
		b.sem = make(chan struct{}, maxSyncsInFlight)
	}
	b.sem <- struct{}{}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer func() { <-b.sem }()
		if err := fn(); err != nil {
			b.mu.Lock()
			if b.err == nil {
				b.err = err
			}
			b.mu.Unlock()
		}
	}()
}

// wait waits for every started sync and returns, and forgets, the first
// error.
func (b *syncBatch) wait() error {
	b.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	err := b.err
	b.err = nil
	return err
}

// syncDirsUp fsyncs dir and, when created says the lock that wrote into it
// had to create directories, its parents up to and including stop (a
// directory that always exists).
func (s *Store) syncDirsUp(dir, stop string, created bool) error {
	for {
		if err := s.fsys.syncDir(dir); err != nil {
			return err
		}
		parent := filepath.Dir(dir)
		if !created || dir == stop || parent == dir || !strings.HasPrefix(parent, stop) {
			return nil
		}
		dir = parent
	}
}
