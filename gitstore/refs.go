package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Refs are read and updated here with git's own file protocol rather than
// go-git's reference storage: go-git's CheckAndSetReference locks the ref
// file in place and ignores refs/heads/x.lock, so it does not exclude a
// concurrent `git commit`, and a rejected swap can leave an empty loose ref.

// head describes what HEAD points at.
type head struct {
	ref      string        // full ref name HEAD points to ("refs/heads/main"); "" when detached
	hash     plumbing.Hash // current commit; zero when unborn
	detached bool
	unborn   bool
}

func (h head) branch() string { return strings.TrimPrefix(h.ref, "refs/heads/") }

var errRefMoved = errors.New("ref moved")

const maxSymrefDepth = 5

// readHead resolves HEAD, following symbolic refs.
func (s *Store) readHead() (head, error) {
	name := "HEAD"
	for depth := 0; depth < maxSymrefDepth; depth++ {
		val, ok, err := s.readRef(name)
		if err != nil {
			return head{}, err
		}
		if !ok {
			if name == "HEAD" {
				return head{}, fmt.Errorf("%w: HEAD is missing", ErrNotRepository)
			}
			return head{ref: name, unborn: true}, nil
		}
		if target, sym := strings.CutPrefix(val, "ref:"); sym {
			name = strings.TrimSpace(target)
			continue
		}
		h, err := parseHash(val)
		if err != nil {
			return head{}, fmt.Errorf("ref %s: %w", name, err)
		}
		if name == "HEAD" {
			return head{hash: h, detached: true}, nil
		}
		return head{ref: name, hash: h}, nil
	}
	return head{}, fmt.Errorf("HEAD: symbolic refs nested deeper than %d", maxSymrefDepth)
}

func parseHash(s string) (plumbing.Hash, error) {
	s = strings.TrimSpace(s)
	if len(s) != 40 || !plumbing.IsHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("bad object id %q", s)
	}
	return plumbing.NewHash(s), nil
}

// refPath returns the loose file of a ref. Pseudo-refs (HEAD, MERGE_HEAD)
// and the per-worktree namespaces live in the worktree's git dir, the rest in
// the common dir.
func (s *Store) refPath(name string) string {
	dir := s.commonDir
	if !strings.HasPrefix(name, "refs/") || strings.HasPrefix(name, "refs/bisect/") ||
		strings.HasPrefix(name, "refs/worktree/") || strings.HasPrefix(name, "refs/rewritten/") {
		dir = s.gitDir
	}
	return filepath.Join(dir, filepath.FromSlash(name))
}

// readRef returns a ref's raw value ("<hash>" or "ref: <name>") from its
// loose file or packed-refs.
func (s *Store) readRef(name string) (string, bool, error) {
	b, err := os.ReadFile(s.refPath(name))
	if err == nil {
		return strings.TrimSpace(string(b)), true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		// A directory (refs/heads/a when refs/heads/a/b exists) is no ref.
		if fi, serr := os.Stat(s.refPath(name)); serr != nil || !fi.IsDir() {
			return "", false, fmt.Errorf("read ref %s: %w", name, err)
		}
	}
	if !strings.HasPrefix(name, "refs/") {
		return "", false, nil
	}
	return s.readPackedRef(name)
}

func (s *Store) readPackedRef(name string) (string, bool, error) {
	b, err := os.ReadFile(filepath.Join(s.commonDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read packed-refs: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		h, ref, ok := strings.Cut(line, " ")
		if ok && ref == name {
			return h, true, nil
		}
	}
	return "", false, sc.Err()
}

// updateRef moves a ref from old (zero: must not exist) to new under git's
// lock protocol, and appends reflog entries for it and, when HEAD points at
// it, for HEAD. It returns errRefMoved if the ref no longer holds old.
func (s *Store) updateRef(ctx context.Context, h head, newHash plumbing.Hash, who Signature, when time.Time, msg string) error {
	name := h.ref
	if h.detached {
		name = "HEAD"
	}
	path := s.refPath(name)
	lock, err := s.acquireLockFile(ctx, path, refLockTimeout, nil)
	if err != nil {
		if errors.Is(err, errTimeout) {
			return fmt.Errorf("update %s: %s.lock is held by another process: %w", name, path, ErrRefChanged)
		}
		return fmt.Errorf("update %s: %w", name, err)
	}
	defer lock.rollback()
	cur, ok, err := s.readRef(name)
	if err != nil {
		return err
	}
	switch {
	case h.unborn && ok, !h.unborn && !ok:
		return errRefMoved
	case ok && strings.TrimSpace(cur) != h.hash.String():
		return errRefMoved
	}
	if err := lock.write([]byte(newHash.String() + "\n")); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	// The objects the new value names reach the disk before the name does;
	// the lock file is flushed alongside their directories.
	durable := s.syncs(fsyncReference)
	var syncLock []func() error
	if durable {
		syncLock = append(syncLock, func() error { return lock.sync(s.fsys) })
	}
	if err := s.flushSyncs(syncLock...); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	if err := lock.publish(s.fsys, durable); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	var syncErr error
	if durable {
		stop := s.commonDir
		if strings.HasPrefix(path, s.gitDir+string(filepath.Separator)) {
			stop = s.gitDir
		}
		if err := s.syncDirsUp(filepath.Dir(path), stop, lock.created); err != nil {
			syncErr = fmt.Errorf("update %s: %w: %w", name, errMovedNotSynced, err)
		}
	}
	// The reflog is a convenience for recovery; the commit stands without it,
	// so it is neither checked nor synced.
	line := reflogLine(h.hash, newHash, who, when, msg)
	if !h.detached {
		s.appendReflog(name, line)
	}
	s.appendReflog("HEAD", line)
	return syncErr
}

// errMovedNotSynced means a ref was moved but its directory could not be
// synced: the update is visible and may not survive a power loss.
var errMovedNotSynced = errors.New("ref moved, but not synced")

func reflogLine(old, new plumbing.Hash, who Signature, when time.Time, msg string) []byte {
	msg = strings.Join(strings.Fields(msg), " ")
	return fmt.Appendf(nil, "%s %s %s <%s> %d %s\t%s\n", old, new, who.Name, who.Email, when.Unix(), when.Format("-0700"), msg)
}

// appendReflog adds a line to logs/<name>, creating the log only where git
// would (core.logAllRefUpdates for branches and HEAD).
func (s *Store) appendReflog(name string, line []byte) {
	dir := s.commonDir
	if name == "HEAD" {
		dir = s.gitDir
	}
	p := filepath.Join(dir, "logs", filepath.FromSlash(name))
	flags := os.O_WRONLY | os.O_APPEND
	if s.logRefs && (name == "HEAD" || strings.HasPrefix(name, "refs/heads/")) {
		flags |= os.O_CREATE
		os.MkdirAll(filepath.Dir(p), 0o777)
	}
	f, err := os.OpenFile(p, flags, 0o666)
	if err != nil {
		return
	}
	f.Write(line)
	f.Close()
}
