package gitstore

import (
	"os"
	"path/filepath"
	"time"
)

// A served vault asks Head before every call whether someone else's commit
// moved HEAD. Reading HEAD and its ref is two opens, reads and closes; a
// stat of each file tells the same when nothing changed, in a fraction of
// the system calls (BenchmarkHead: aged against fresh).
//
// A file counts as unchanged while it is the same file (git replaces refs
// by renaming a lock file over them, a new inode each time), with the same
// size and modification time. A rewrite in place within one tick of the
// file system's clock would keep all three, so a file modified less than
// racyWindow before it was stamped is never trusted: Head reads it again
// until it has aged (git's "racy clean" entries are the same idea).
const racyWindow = 2 * time.Second

// headStamp is the last HEAD read and the files it was read from.
type headStamp struct {
	h     head
	files []fileStamp
}

// fileStamp is what a stat said of one file; fi is nil when it was absent.
type fileStamp struct {
	path string
	fi   os.FileInfo
}

// stampFile stats path; ok is false when the stat failed for another
// reason than absence, or the file is too new to be trusted.
func stampFile(path string, now time.Time) (fileStamp, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{path: path}, os.IsNotExist(err)
	}
	return fileStamp{path: path, fi: fi}, fi.Mode().IsRegular() && fi.ModTime().Before(now.Add(-racyWindow))
}

// unchanged tells whether every stamped file is as it was.
func (st *headStamp) unchanged() bool {
	if st == nil {
		return false
	}
	for _, f := range st.files {
		fi, err := os.Stat(f.path)
		switch {
		case err != nil:
			if f.fi != nil || !os.IsNotExist(err) {
				return false
			}
		case f.fi == nil || !os.SameFile(fi, f.fi) || fi.Size() != f.fi.Size() || !fi.ModTime().Equal(f.fi.ModTime()):
			return false
		}
	}
	return true
}

// headFiles are the files h was resolved from: HEAD, and for a branch its
// loose ref, or packed-refs when there is none. ok is false for what the
// stamps cannot follow (a symbolic ref to another symbolic ref).
func (s *Store) headFiles(h head) (paths []string, ok bool) {
	paths = []string{filepath.Join(s.gitDir, "HEAD")}
	if h.detached {
		return paths, true
	}
	if h.ref == "" {
		return nil, false
	}
	loose := s.refPath(h.ref)
	paths = append(paths, loose)
	if _, err := os.Lstat(loose); os.IsNotExist(err) {
		paths = append(paths, filepath.Join(s.commonDir, "packed-refs"))
	}
	return paths, true
}

// stampHead reads HEAD for Head with s.mu held: from the stamps when its
// files are unchanged, else from the files, stamping them first so that
// what is read is never older than the stamps that vouch for it.
func (s *Store) stampHead() (head, error) {
	if s.headSeen.unchanged() {
		return s.headSeen.h, nil
	}
	s.headSeen = nil
	h, err := s.readHead()
	if err != nil || h.unborn {
		return h, err
	}
	paths, ok := s.headFiles(h)
	if !ok {
		return h, nil
	}
	now := time.Now() // the file system's clock, for its timestamps
	st := &headStamp{files: make([]fileStamp, 0, len(paths))}
	for _, p := range paths {
		f, ok := stampFile(p, now)
		if !ok {
			return h, nil
		}
		st.files = append(st.files, f)
	}
	again, err := s.readHead()
	if err != nil || again != h {
		return again, err // moved meanwhile: answer, stamp next time
	}
	st.h = h
	s.headSeen = st
	return h, nil
}
