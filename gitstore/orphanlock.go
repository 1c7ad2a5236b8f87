package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Orphaned locks. A git command killed while it holds .git/index.lock (or
// a branch's lock) leaves the lock with no owner record: kill -9 of a
// sync's process group in its merge did that, and every later commit, the
// user's own git commit included, failed until someone removed it by hand.
// Such a lock is removed (by doctor --fix, and so by sync's commit step)
// when no live git process or memvault merge driver works in this
// repository: none whose working directory, command line or open files
// lie in its work tree or git directories (processAt). A process that
// cannot be inspected (another user's) counts as live, as does any
// process where processes cannot be listed (only Linux's /proc is read):
// in doubt the lock stays, and doctor tells a person. A memvault write
// does not remove one: it waits for it and fails, as for git's.

// orphanOwner describes the owner of an orphaned lock in doctor's report.
const orphanOwner = "a git process that is gone (no live git process works in this repository)"

// orphanLock reports whether target's lock exists without a live process
// that may hold it, and returns its file info to check, before removing
// it, that it is still the same file.
func (s *Store) orphanLock(target string) (fs.FileInfo, bool) {
	fi, err := os.Lstat(target + ".lock")
	if err != nil {
		return nil, false
	}
	if hasRecord(target, fi) || s.busy() {
		return nil, false
	}
	return fi, true
}

// hasRecord reports whether a memvault owner record is the lock fi of
// target: a live memvault process's lock (a gone one's is stale, not
// orphaned), which other memvault processes do not count as live.
func hasRecord(target string, fi fs.FileInfo) bool {
	dir, base := filepath.Split(target)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return true // in doubt, not orphaned
	}
	for _, e := range ents {
		if _, ok := parseRecord(base, e.Name()); !ok {
			continue
		}
		if rfi, err := os.Lstat(filepath.Join(dir, e.Name())); err == nil && os.SameFile(fi, rfi) {
			return true
		}
	}
	return false
}

// clearOrphan removes target's lock when it is orphaned (orphanLock) and
// still the file that was inspected. It returns the lock it removed.
func (s *Store) clearOrphan(target string) (*StaleLock, error) {
	fi, ok := s.orphanLock(target)
	if !ok {
		return nil, nil
	}
	lockPath := target + ".lock"
	cur, err := os.Lstat(lockPath)
	if err != nil || !os.SameFile(fi, cur) {
		return nil, nil // removed, or replaced by a live process meanwhile
	}
	if err := os.Remove(lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return &StaleLock{Path: lockPath, Owner: orphanOwner}, nil
}

// mergeFilePattern matches the temporary files git writes at the top of
// the work tree for a merge driver's %O %A %B; a git killed in a merge
// leaves them.
const mergeFilePattern = ".merge_file_*"

// MergeLeftovers lists the temporary files of a merge driver left at the
// top of the work tree when no live git or memvault process works in the
// repository (a git killed in a merge); with remove it removes them and
// lists those it removed. While a process works there, or where processes
// cannot be listed, it lists nothing: the files may be a running merge's.
func (s *Store) MergeLeftovers(remove bool) ([]string, error) {
	found, err := filepath.Glob(filepath.Join(s.root, mergeFilePattern))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	if s.busy() {
		return nil, nil
	}
	if !remove {
		return found, nil
	}
	var removed []string
	for _, f := range found {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove a merge's leftover: %w", err)
		}
		removed = append(removed, f)
	}
	return removed, nil
}

// busy reports whether a live git or memvault process may work in the
// repository: true when processes cannot be listed.
func (s *Store) busy() bool {
	live, ok := s.live()
	return !ok || live
}

// live reports whether a live git or memvault merge driver works in the
// repository; ok is false when processes cannot be listed.
func (s *Store) live() (live, ok bool) {
	liveAt := s.liveAt
	if liveAt == nil {
		liveAt = processAt
	}
	return liveAt([]string{s.root, s.gitDir, s.commonDir})
}

// quietPoll bounds the pause between two looks at the processes while
// WaitQuiet waits: listing /proc costs a few milliseconds.
const quietPoll = 50 * time.Millisecond

// WaitQuiet waits until no live git process or memvault merge driver
// works in the repository, or ctx is done, and reports whether it is
// quiet. A sync killed with kill -9 takes its git along (the kernel kills
// it), but the merge driver git had started finishes its file first: the
// locks it may hold are only orphaned once it is gone. It reports false
// at once where processes cannot be listed.
func (s *Store) WaitQuiet(ctx context.Context) bool {
	for pause := time.Millisecond; ; pause = min(2*pause, quietPoll) {
		live, ok := s.live()
		if !ok {
			return false
		}
		if !live {
			return true
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// ClearKilled removes what a git process killed in this repository left
// and git never clears itself, when no live git process works there:
// the lock files ClearStaleLocks removes (the index's, the branch's),
// HEAD's (git locks HEAD for its reflog whenever it moves the branch
// HEAD names: a merge killed there left HEAD.lock, which memvault's own
// commits never take but the user's next git commit failed on), those
// of refs (full names: refs/remotes/origin/main, which a killed fetch or
// push holds) and of packed-refs, and the merge driver's temporary
// files. It returns the files it removed.
func (s *Store) ClearKilled(ctx context.Context, refs []string) ([]string, error) {
	var removed []string
	cleared, err := s.ClearStaleLocks(ctx)
	for _, l := range cleared {
		removed = append(removed, l.Path)
	}
	if err != nil {
		return removed, err
	}
	targets := []string{filepath.Join(s.gitDir, "HEAD"), filepath.Join(s.commonDir, "packed-refs")}
	for _, r := range refs {
		if !strings.HasPrefix(r, "refs/") || strings.Contains(r, "..") {
			return removed, fmt.Errorf("clear the lock of ref %q: not a ref under refs/", r)
		}
		targets = append(targets, s.refPath(r))
	}
	for _, target := range targets {
		l, err := s.clearOrphan(target)
		if l != nil {
			removed = append(removed, l.Path)
		}
		if err != nil {
			return removed, fmt.Errorf("clear an orphaned lock: %w", err)
		}
	}
	files, err := s.MergeLeftovers(true)
	return append(removed, files...), err
}
