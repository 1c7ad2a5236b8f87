package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

const (
	backoffMin = 100 * time.Microsecond
	// backoffMax is short because lock holders are quick (a commit takes a
	// few milliseconds); a long sleep would make waiters lose their turn.
	backoffMax = 5 * time.Millisecond
	// refLockTimeout matches the order of git's core.filesRefLockTimeout
	// (100 ms), with room for a slow disk.
	refLockTimeout = time.Second
)

// Lock takes the repository's memvault lock: exclusive among goroutines of
// this process and, through a file lock on <git-common-dir>/memvault.lock,
// among processes. It waits with backoff until ctx is done. Callers hold it
// around a whole read-check-write-commit sequence; unlock is idempotent.
// Commit does not take this lock itself.
func (s *Store) Lock(ctx context.Context) (unlock func(), err error) {
	if ctx.Value(lockHeld{s.commonDir}) != nil {
		return func() {}, nil // LockContext's holder, taking it again
	}
	select {
	case s.lockCh <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("lock %s: %w", s.root, ctx.Err())
	}
	release := func() { <-s.lockCh }
	fl := flock.New(filepath.Join(s.commonDir, "memvault.lock"))
	err = retry(ctx, 0, func() (bool, error) { return fl.TryLock() })
	if err != nil {
		fl.Close()
		release()
		return nil, fmt.Errorf("lock %s: %w", s.root, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			fl.Unlock()
			fl.Close()
			release()
		})
	}, nil
}

// lockHeld keys the mark LockContext puts on its context.
type lockHeld struct{ commonDir string }

// LockContext takes Lock and returns ctx marked as the holder's: Lock
// with that context, or one derived from it, on any Store of the same
// repository returns at once, so that code run under the lock can take it
// again (memvault sync holds it around doctor --fix, which takes it to
// commit). The marked context must not be used after unlock.
func (s *Store) LockContext(ctx context.Context) (held context.Context, unlock func(), err error) {
	if unlock, err = s.Lock(ctx); err != nil {
		return ctx, nil, err
	}
	return context.WithValue(ctx, lockHeld{s.commonDir}, true), unlock, nil
}

// retry calls try until it succeeds, fails, ctx is done or (if timeout > 0)
// timeout has passed, sleeping with exponential backoff in between. It
// returns errTimeout on timeout.
func retry(ctx context.Context, timeout time.Duration, try func() (bool, error)) error {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	delay := backoffMin
	for {
		ok, err := try()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return errTimeout
			}
			delay = min(delay, left)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		delay = min(delay*2, backoffMax)
	}
}

var errTimeout = errors.New("timed out")

// lockFile is a git-style lock: <path>.lock created exclusively, written,
// then renamed over <path> to publish or removed to abandon. rec is its
// owner record (see stalelock.go), a second name of the same file,
// removed once the lock is gone.
type lockFile struct {
	target  string
	path    string
	rec     string // "" when the lock has no owner record
	f       *os.File
	done    bool // published: the lock file no longer exists
	created bool // the lock's directory had to be created
	synced  bool // fsynced since the last write
	filled  bool // holds a staged content (stageLock)
}

// createExcl creates p exclusively, and its directory if missing; created
// tells whether it made the directory.
func createExcl(p string) (f *os.File, created bool, err error) {
	f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			return nil, false, err
		}
		created = true
		f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	}
	return f, created, err
}

// tryLockFile creates target+".lock", as a hard link to a fresh owner
// record of owner when owner is not nil; it reports false if another
// process holds it.
func tryLockFile(target string, owner *lockOwner, staged *stagedLock) (*lockFile, bool, error) {
	p := target + ".lock"
	if staged != nil && staged.f != nil {
		err := os.Link(staged.rec, p)
		if err == nil {
			l := &lockFile{target: target, path: p, rec: staged.rec, f: staged.f, created: staged.created, filled: true, synced: staged.synced}
			staged.f = nil
			return l, true, nil
		}
		if errors.Is(err, fs.ErrExist) {
			return nil, false, nil
		}
		// No hard links here: an empty lock without a record, below.
		staged.discard()
		owner = nil
	}
	if owner != nil {
		rec := owner.recordPath(target)
		f, created, err := createExcl(rec)
		if err != nil {
			return nil, false, err
		}
		err = os.Link(rec, p)
		f.Close()
		if err == nil {
			// Written through the lock's own name, which errors and syncs
			// then report.
			l := &lockFile{target: target, path: p, rec: rec, created: created}
			if l.f, err = os.OpenFile(p, os.O_RDWR, 0); err != nil {
				os.Remove(p)
				l.removeRecord()
				return nil, false, err
			}
			return l, true, nil
		}
		os.Remove(rec)
		if errors.Is(err, fs.ErrExist) {
			return nil, false, nil
		}
		// No hard links here (some network and FAT file systems): a lock
		// without a record, never recognised when stale.
	}
	f, created, err := createExcl(p)
	if errors.Is(err, fs.ErrExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &lockFile{target: target, path: p, f: f, created: created}, true, nil
}

// staleCheckEvery is how many failed attempts to take a lock pass between
// looks for a stale one (about 80 ms at the longest backoff).
const staleCheckEvery = 16

// acquireLockFile waits up to timeout for target's lock. When the lock is
// taken it checks, on the first failure and every staleCheckEvery after,
// whether a memvault process that is gone left it, and removes it then.
// Owner records of gone processes next to the lock are swept once per
// Store and target, so that a kill between making a record and taking or
// after releasing the lock leaves nothing behind for long.
//
// With staged (see stageLock) the lock is taken by linking its name to
// the staged record, whose bytes become the lock's (filled); on a file
// system without hard links the staged record is dropped and the lock
// created empty.
func (s *Store) acquireLockFile(ctx context.Context, target string, timeout time.Duration, staged *stagedLock) (*lockFile, error) {
	var owner *lockOwner
	if s.owner.pid > 0 {
		owner = &s.owner
	}
	if owner != nil && !s.swept[target] {
		if s.swept == nil {
			s.swept = map[string]bool{}
		}
		s.swept[target] = true
		// Errors surface when the lock is taken.
		clearStale(target, *owner)
	}
	var l *lockFile
	fails := 0
	err := retry(ctx, timeout, func() (bool, error) {
		var ok bool
		var err error
		l, ok, err = tryLockFile(target, owner, staged)
		if ok || err != nil || owner == nil {
			return ok, err
		}
		fails++
		if (fails-1)%staleCheckEvery != 0 {
			return false, nil
		}
		cleared, err := clearStale(target, *owner)
		if err != nil || cleared == nil {
			return false, err
		}
		s.cleared = append(s.cleared, *cleared)
		// Try again at once: on a loaded machine the check may have
		// taken longer than the timeout left.
		l, ok, err = tryLockFile(target, owner, staged)
		return ok, err
	})
	return l, err
}

// stagedLock is a lock file's content written before the lock is taken,
// under the name of a fresh owner record: taking the lock then links the
// lock's name to the record, as it does for an empty one, so writing and
// flushing the bytes (the whole index, which grows with the repository)
// happen outside the window in which the lock blocks everyone else
// (docs/git.md, "Server writes, third round (2026-12-02): the commit's wall time").
type stagedLock struct {
	rec     string
	f       *os.File
	created bool // the record's directory had to be created
	synced  bool // its content was fsynced
}

// stageLock creates a fresh owner record for target's lock, for the
// caller to fill and then take with acquireLockFile. Without an owner to
// record it returns nil, and the lock is created and filled as usual.
func (s *Store) stageLock(target string) (*stagedLock, error) {
	if s.owner.pid <= 0 {
		return nil, nil
	}
	rec := s.owner.recordPath(target)
	f, created, err := createExcl(rec)
	if err != nil {
		return nil, err
	}
	return &stagedLock{rec: rec, f: f, created: created}, nil
}

// discard removes a staged lock that was not taken; it does nothing once
// the lock was (its record is then the lock's).
func (st *stagedLock) discard() {
	if st == nil || st.f == nil {
		return
	}
	st.f.Close()
	os.Remove(st.rec)
	st.f = nil
}

// reset empties a lock file for it to be written again.
func (l *lockFile) reset() error {
	l.synced, l.filled = false, false
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.Seek(0, io.SeekStart)
	return err
}

// write fills the lock file without publishing it.
func (l *lockFile) write(data []byte) error {
	l.synced = false
	_, err := l.f.Write(data)
	return err
}

// sync fsyncs the written lock file; publish then does not sync it again.
// It may run on another goroutine while the owner waits.
func (l *lockFile) sync(fsys syncFS) error {
	if err := fsys.syncFile(l.f); err != nil {
		return err
	}
	l.synced = true
	return nil
}

// publish closes the lock file and renames it over its target through
// fsys; with durable it fsyncs the file first unless sync did, so the name
// never points at bytes still in the page cache. Syncing the directory
// afterwards is the caller's step, as the caller knows how far up new
// directories go.
func (l *lockFile) publish(fsys syncFS, durable bool) error {
	var err error
	if durable && !l.synced {
		err = l.sync(fsys)
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err == nil {
		err = fsys.rename(l.path, l.target)
	}
	l.done = err == nil
	if l.done {
		l.removeRecord()
	}
	return err
}

// rollback removes the lock file if it is still the one this lockFile
// created, so a lock someone else took after ours vanished is never
// deleted; then its owner record.
func (l *lockFile) rollback() {
	if l == nil || l.done {
		return
	}
	l.done = true
	defer l.removeRecord()
	if l.f != nil {
		mine, err1 := l.f.Stat()
		cur, err2 := os.Lstat(l.path)
		l.f.Close()
		l.f = nil
		if err1 != nil || err2 != nil || !os.SameFile(mine, cur) {
			return
		}
	}
	os.Remove(l.path)
}

// removeRecord removes the owner record, the lock's second name.
func (l *lockFile) removeRecord() {
	if l.rec != "" {
		os.Remove(l.rec)
		l.rec = ""
	}
}
