package vault

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

// The cache folder (CacheDirName) is the one place memvault writes in the
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

// ErrCacheDir reports a cache folder memvault will not use.
var ErrCacheDir = fault.New(fault.Invalid, "unusable cache folder")

// gitignoreBody is the cache folder's .gitignore: everything in the
// folder, the .gitignore included, stays out of git.
const gitignoreBody = "# memvault's index cache: rebuilt when missing\n*\n"

// cacheDirProblem says what is wrong with the cache folder fi, or nil.
func cacheDirProblem(fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link; memvault does not follow it (it would write outside the cache folder)", ErrCacheDir, CacheDirName)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a folder (%s)", ErrCacheDir, CacheDirName, fi.Mode().Type())
	}
	return nil
}

// openCacheDir opens the cache folder of the vault folder dir without
// following a link, creating it with its .gitignore when create is set.
// A missing folder without create is fs.ErrNotExist.
func openCacheDir(dir string, create bool) (*os.Root, error) {
	vr, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer vr.Close()
	fi, err := vr.Lstat(CacheDirName)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := vr.Mkdir(CacheDirName, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		fi, err = vr.Lstat(CacheDirName)
	}
	if err != nil {
		return nil, err
	}
	if err := cacheDirProblem(fi); err != nil {
		return nil, err
	}
	d, err := vr.OpenRoot(CacheDirName)
	if err != nil {
		return nil, err
	}
	// Swapped for a link (os.Root follows those that stay in the vault)
	// since the Lstat: the handle must be the folder Lstat saw.
	if got, err := d.Stat("."); err != nil || !os.SameFile(fi, got) {
		d.Close()
		return nil, fmt.Errorf("%w: %s was replaced while memvault opened it", ErrCacheDir, CacheDirName)
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
	if _, err := d.Lstat(GitignoreName); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := d.OpenFile(GitignoreName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(gitignoreBody)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// openCacheFile opens name in the cache folder d for reading, only when
// it is a regular file: not through a link, and without blocking on a
// FIFO or a device. It returns the file's stat data too.
func openCacheFile(d *os.Root, name string) (*os.File, fs.FileInfo, error) {
	fi, err := d.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s/%s is not a regular file (%s)", ErrCacheDir, CacheDirName, name, fi.Mode().Type())
	}
	// O_NONBLOCK: a FIFO put there since the Lstat does not hang the open.
	f, err := d.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	got, err := f.Stat()
	if err != nil || !got.Mode().IsRegular() || !os.SameFile(fi, got) {
		f.Close()
		return nil, nil, fmt.Errorf("%w: %s/%s was replaced while memvault opened it", ErrCacheDir, CacheDirName, name)
	}
	return f, got, nil
}

// createCacheTemp creates a new file named prefix and a random suffix in
// the cache folder d, as os.CreateTemp does; O_EXCL never follows a link.
func createCacheTemp(d *os.Root, prefix string) (*os.File, string, error) {
	for range 100 {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36)
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("create a temporary file in %s: too many names taken", CacheDirName)
}

// removeCacheTemps removes the temporary files of cache writes that a
// killed process left. A cache writer at work meanwhile loses its write,
// which costs the next process a load from the files, nothing else.
//
// A vault opened without the cache (a headers-only add) removes them too:
// another process's killed write left them all the same.
func (v *Vault) removeCacheTemps() {
	d, err := openCacheDir(v.dir, false)
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
		if strings.HasPrefix(n, cacheFileName+".tmp-") {
			_ = d.Remove(n)
		}
	}
}

// CheckCacheDir reports a cache folder in the vault folder dir that
// memvault refuses to use (see ErrCacheDir): a symbolic link, or
// something other than a folder. A missing folder (or vault) is fine.
func CheckCacheDir(dir string) error {
	vr, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // no vault yet: no cache either
	}
	if err != nil {
		return fmt.Errorf("open vault folder: %w", err)
	}
	defer vr.Close()
	fi, err := vr.Lstat(CacheDirName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", CacheDirName, err)
	}
	return cacheDirProblem(fi)
}

// FixCacheDir replaces a cache folder that is a symbolic link with a real
// folder: the link is removed (never what it points to) and the folder
// made with its .gitignore. Anything else in the way is left for a person
// (it may be someone's file); the error says so.
func FixCacheDir(dir string) error {
	vr, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open vault folder: %w", err)
	}
	defer vr.Close()
	fi, err := vr.Lstat(CacheDirName)
	if err != nil || cacheDirProblem(fi) == nil {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("%w: move it away: memvault does not remove it", cacheDirProblem(fi))
	}
	// Removing a name inside the root removes the link itself.
	if err := vr.Remove(CacheDirName); err != nil {
		return fmt.Errorf("remove the link %s: %w", CacheDirName, err)
	}
	d, err := openCacheDir(dir, true)
	if err != nil {
		return fmt.Errorf("create the folder %s: %w", CacheDirName, err)
	}
	return d.Close()
}
