package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stale locks. Git's lock files (index.lock, refs/heads/x.lock) hold the
// new file's bytes, so they cannot say who made them, and a process killed
// while holding one blocks every later commit, the user's own included,
// until someone removes it by hand. Commit therefore takes each git lock
// in two steps: it first creates an owner record next to it,
//
//	<target>.memvault.<pid>_<start>_<random>_<host>.lock
//
// and then makes the lock a hard link to that record (link fails if the
// lock exists, as O_EXCL does). The record's name says which process holds
// the lock; its inode proves which lock it holds. A later write, or
// ClearStaleLocks, removes a lock only when a record of a process that is
// gone (same host, and its pid is free, a zombie, or a process started at
// another time) is the very same file as the lock. A lock without such a
// record, the user's git or a live memvault, is never touched. Names ending in .lock
// are skipped by git when it lists refs, so a record in refs/heads is
// never taken for a branch.
//
// Where hard links are not supported the lock is created directly, as
// before, and is not recognised when stale.

// recordTag separates a lock target's name from its owner record's token.
const recordTag = ".memvault."

// lockOwner identifies a process: its pid, its start time (from
// /proc/<pid>/stat where available, "0" elsewhere) against pid reuse, and
// the host, since a pid means nothing on another machine.
type lockOwner struct {
	pid   int
	start string
	host  string
}

// currentOwner describes this process.
func currentOwner() lockOwner {
	pid := os.Getpid()
	start, _, ok := processStart(pid)
	if !ok {
		start = "0"
	}
	host, _ := os.Hostname()
	return lockOwner{pid: pid, start: start, host: sanitizeHost(host)}
}

// sanitizeHost keeps a host name usable in a file name.
func sanitizeHost(h string) string {
	b := []byte(h)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	h = strings.Trim(string(b), ".")
	if len(h) > 63 {
		h = h[:63]
	}
	if h == "" {
		h = "unknown"
	}
	return h
}

// recordPath names a fresh owner record for target's lock.
func (o lockOwner) recordPath(target string) string {
	return fmt.Sprintf("%s%s%d_%s_%08x_%s.lock", target, recordTag, o.pid, o.start, rand.Uint32(), o.host)
}

// parseRecord reads the owner from a record's file name for a lock of
// target's base name.
func parseRecord(base, name string) (lockOwner, bool) {
	tok, ok := strings.CutPrefix(name, base+recordTag)
	if !ok {
		return lockOwner{}, false
	}
	if tok, ok = strings.CutSuffix(tok, ".lock"); !ok {
		return lockOwner{}, false
	}
	f := strings.SplitN(tok, "_", 4)
	if len(f) != 4 {
		return lockOwner{}, false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return lockOwner{}, false
	}
	return lockOwner{pid: pid, start: f[1], host: f[3]}, true
}

func (o lockOwner) String() string {
	return fmt.Sprintf("memvault process %d on %s", o.pid, o.host)
}

// gone reports whether the process o names has ended: it ran on this host
// (self) and its pid is free, a zombie, or taken by a process started at
// another time. When in doubt it reports false.
func (o lockOwner) gone(self lockOwner) bool {
	if o.host != self.host || o.pid == self.pid && o.start == self.start {
		return false
	}
	start, zombie, ok := processStart(o.pid)
	if ok {
		return zombie || o.start != "0" && start != o.start
	}
	return processGone(o.pid)
}

// StaleLock is a git lock file left by a memvault process that is gone.
type StaleLock struct {
	// Path is the lock file.
	Path string
	// Owner describes the process that left it ("memvault process 1234
	// on host").
	Owner string
}

// staleRecords lists the owner records next to target's lock whose
// processes are gone.
func staleRecords(target string, self lockOwner) (recs []string, owners []lockOwner, err error) {
	dir, base := filepath.Split(target)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		o, ok := parseRecord(base, e.Name())
		if ok && o.gone(self) {
			recs = append(recs, filepath.Join(dir, e.Name()))
			owners = append(owners, o)
		}
	}
	return recs, owners, nil
}

// inspectLock reports whether target's lock exists and, if a gone
// process's record is that very file, which process left it.
func inspectLock(target string, self lockOwner) (exists bool, stale *lockOwner) {
	fi, err := os.Lstat(target + ".lock")
	if err != nil {
		return false, nil
	}
	recs, owners, _ := staleRecords(target, self)
	for i, rec := range recs {
		if rfi, err := os.Lstat(rec); err == nil && os.SameFile(fi, rfi) {
			return true, &owners[i]
		}
	}
	return true, nil
}

// clearStale removes target's lock if a gone process's record is that
// very file, and removes the records of gone processes. Each record is
// handled under an exclusive flock on it, so that two processes clearing
// at once cannot both see the stale lock and one then remove the fresh
// lock the other took after clearing it. It returns the lock it removed,
// if any.
func clearStale(target string, self lockOwner) (*StaleLock, error) {
	recs, owners, err := staleRecords(target, self)
	if err != nil {
		return nil, fmt.Errorf("look for stale locks: %w", err)
	}
	var cleared *StaleLock
	lockPath := target + ".lock"
	for i, rec := range recs {
		removed, err := clearRecord(rec, lockPath)
		if err != nil {
			return cleared, fmt.Errorf("clear stale lock %s: %w", lockPath, err)
		}
		if removed {
			cleared = &StaleLock{Path: lockPath, Owner: owners[i].String()}
		}
	}
	return cleared, nil
}

// clearRecord removes the lock at lockPath if it is the file rec names,
// then rec itself, under a lock on rec's file. It reports whether it
// removed the lock.
func clearRecord(rec, lockPath string) (bool, error) {
	f, err := os.Open(rec)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // another process cleared it
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	unlock, err := lockRecord(f)
	if err != nil {
		return false, err
	}
	defer unlock()
	mine, err := f.Stat()
	if err != nil {
		return false, err
	}
	removed := false
	if cur, err := os.Lstat(lockPath); err == nil && os.SameFile(mine, cur) {
		if err := os.Remove(lockPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		removed = true
	}
	if cur, err := os.Lstat(rec); err == nil && os.SameFile(mine, cur) {
		if err := os.Remove(rec); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
	}
	return removed, nil
}

// ClearStaleLocks removes .git/index.lock and the lock of the branch HEAD
// points at (or HEAD.lock when detached) when a memvault process that is
// gone left them, with the owner records of gone processes, or when no
// live git or memvault process works in the repository (orphanLock). Locks of the
// user's git and of running processes are left alone. It returns the locks
// it removed.
func (s *Store) ClearStaleLocks(ctx context.Context) ([]StaleLock, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	var out []StaleLock
	for _, target := range s.lockTargets() {
		l, err := clearStale(target, s.owner)
		if l == nil && err == nil {
			l, err = s.clearOrphan(target)
		}
		if l != nil {
			out = append(out, *l)
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// lockTargets are the files whose git locks Commit takes: the index and
// the ref HEAD moves.
func (s *Store) lockTargets() []string {
	targets := []string{filepath.Join(s.gitDir, "index")}
	if h, err := s.readHead(); err == nil {
		name := h.ref
		if h.detached {
			name = "HEAD"
		}
		targets = append(targets, s.refPath(name))
	}
	return targets
}
