package watcher

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// ErrChangesClosed is returned by Changes.Sync after Close, or when the
// events stopped.
var ErrChangesClosed error = &closedError{}

// closedError is ErrChangesClosed's type: a sentinel with a kind, named
// in the words of the domain's vault/fault (fault.Of reads ErrorKind),
// which this package does not import.
type closedError struct{}

func (*closedError) Error() string { return "change counter closed" }

// ErrorKind says the failure is memvault's own, not the caller's.
func (*closedError) ErrorKind() string { return "internal" }

// errDeaf is Sync's error once the file system showed it does not report
// changes: the caller reads without its cache.
var errDeaf = errors.New("changes: the file system does not report changes")

// syncFiles is how many Syncs can wait at once where a Sync waits for an
// event of its own (outside Linux); more fail (the caller reads without
// its cache).
const syncFiles = 8

// walkFolders calls add for dir and every folder below it but .git ones
// and those watched already says are watched; a folder removed while the
// walk goes (other than dir) is passed over.
func walkFolders(dir string, watched func(string) bool, add func(string) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != dir {
				return nil // removed while we walked
			}
			return fmt.Errorf("watch %s: %w", p, err)
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" && p != dir {
			return fs.SkipDir
		}
		if p != dir && watched(p) {
			return nil
		}
		if err := add(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != dir {
				return fs.SkipDir
			}
			return err
		}
		return nil
	})
}

// belowAny reports whether p is below one of the folders in set.
func belowAny(set map[string]bool, p string) bool {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if set[d] {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}
