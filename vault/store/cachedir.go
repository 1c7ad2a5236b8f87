package store

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/memvault/memvault/vault/fault"
)

// The cache folder (DirName) is the one place memvault writes in the
// vault outside a commit, and it comes with the clone: a teammate can
// commit a symbolic link there, to ".." (the cache and its .gitignore,
// which ignores everything, would land at the repository's top) or to "."
// (the cache would land among the memory files, one `git add -A` from a
// commit). So the folder and every file in it are opened through handles
// (os.Root), never by a path resolved from the top: a linked or
// non-folder .cache is refused, the cache is then not used (the vault is
// loaded from its files), and doctor and lint name it. Files in it are
// opened only when Lstat finds a regular file, without blocking (a FIFO
// would hang an open for reading), and the opened file must be the one
// Lstat saw.

// The cache folder's names.
const (
	// DirName is the folder, inside the vault, that holds the index
	// cache. The loader skips dot-folders, and the folder holds a
	// .gitignore that ignores everything in it, so git never sees the
	// cache wherever the vault lives.
	DirName = ".cache"
	// IndexFileName is the index cache's file in it.
	IndexFileName = "index-v2"
	// gitignoreName is git's ignore file.
	gitignoreName = ".gitignore"
)

// ErrCacheDir reports a cache folder memvault will not use.
var ErrCacheDir = fault.New(fault.Invalid, "unusable cache folder")

// GitignoreBody is the cache folder's .gitignore: everything in the
// folder, the .gitignore included, stays out of git.
const GitignoreBody = "# memvault's index cache: rebuilt when missing\n*\n"

// cacheDirProblem says what is wrong with the cache folder fi, or nil.
func cacheDirProblem(fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link; memvault does not follow it (it would write outside the cache folder)", ErrCacheDir, DirName)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a folder (%s)", ErrCacheDir, DirName, fi.Mode().Type())
	}
	return nil
}

// OpenDir opens the cache folder of the vault folder dir without
// following a link, creating it with its .gitignore when create is set.
// A missing folder without create is fs.ErrNotExist.
func OpenDir(dir string, create bool) (*os.Root, error) {
	vr, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer vr.Close()
	fi, err := vr.Lstat(DirName)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := vr.Mkdir(DirName, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = vr.Lstat(DirName)
	}
	if err != nil {
		return nil, err
	}
	if err := cacheDirProblem(fi); err != nil {
		return nil, err
	}
	d, err := vr.OpenRoot(DirName)
	if err != nil {
		return nil, err
	}
	// Swapped for a link (os.Root follows those that stay in the vault)
	// since the Lstat: the handle must be the folder Lstat saw.
	if got, err := d.Stat("."); err != nil || !os.SameFile(fi, got) {
		d.Close()
		return nil, fmt.Errorf("%w: %s was replaced while memvault opened it", ErrCacheDir, DirName)
	}
	if create {
		if err := writeCacheGitignore(d); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// writeCacheGitignore writes the folder's .gitignore when it has none,
// before anything else is written there: a process killed while it
// writes leaves nothing git would show. It is created, never opened:
// a link or anything else in its place is left alone.
func writeCacheGitignore(d *os.Root) error {
	if _, err := d.Lstat(gitignoreName); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := d.OpenFile(gitignoreName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(GitignoreBody)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// OpenFile opens name in the cache folder d for reading, only when
// it is a regular file: not through a link, and without blocking on a
// FIFO or a device. It returns the file's stat data too.
func OpenFile(d *os.Root, name string) (*os.File, fs.FileInfo, error) {
	fi, err := d.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s/%s is not a regular file (%s)", ErrCacheDir, DirName, name, fi.Mode().Type())
	}
	// O_NONBLOCK: a FIFO put there since the Lstat does not hang the open.
	f, err := d.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	got, err := f.Stat()
	if err != nil || !got.Mode().IsRegular() || !os.SameFile(fi, got) {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s/%s was replaced while memvault opened it", ErrCacheDir, DirName, name)
	}
	return f, got, nil
}

// CreateTemp creates a new file named prefix and a random suffix in
// the cache folder d, as os.CreateTemp does; O_EXCL never follows a link.
func CreateTemp(d *os.Root, prefix string) (*os.File, string, error) {
	for range 100 {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36)
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many names taken", DirName)
}

// RemoveTemps removes the temporary files in the cache folder of the
// vault folder dir: the temporary files of cache writes that a
// killed process left. A cache writer at work meanwhile loses its write,
// which costs the next process a load from the files, nothing else.
//
// A vault opened without the cache (a headers-only add) removes them too:
// another process's killed write left them all the same.
func RemoveTemps(dir string) {
	d, err := OpenDir(dir, false)
	if err != nil {
		return
	}
	defer d.Close()
	f, err := d.Open(".")
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if strings.HasPrefix(n, IndexFileName+".tmp-") {
			_ = d.Remove(n)
		}
	}
}

// CheckDir reports a cache folder in the vault folder dir that
// memvault refuses to use (see ErrCacheDir): a symbolic link, or
// something other than a folder. A missing folder (or vault) is fine.
func CheckDir(dir string) error {
	vr, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no vault yet: no cache either
	}
	if err != nil {
		return fmt.Errorf("open vault folder: %w", err)
	}
	defer vr.Close()
	fi, err := vr.Lstat(DirName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", DirName, err)
	}
	return cacheDirProblem(fi)
}

// FixDir replaces a cache folder that is a symbolic link with a real
// folder: the link is removed (never what it points to) and the folder
// made with its .gitignore. Anything else in the way is left for a person
// (it may be someone's file); the error says so.
func FixDir(dir string) error {
	vr, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open vault folder: %w", err)
	}
	defer vr.Close()
	fi, err := vr.Lstat(DirName)
	if err != nil || cacheDirProblem(fi) == nil {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%w: move it away: memvault does not remove it", cacheDirProblem(fi))
	}
	// Removing a name inside the root removes the link itself.
	if err := vr.Remove(DirName); err != nil {
		return fmt.Errorf("remove the link %s: %w", DirName, err)
	}
	d, err := OpenDir(dir, true)
	if err != nil {
		return fmt.Errorf("create the folder %s: %w", DirName, err)
	}
	return d.Close()
}
