package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memvault/memvault/vault/store"
)

// writeRoot is a vault folder opened for one write sequence. Every file
// operation of a write goes through it, relative to open folder handles
// (os.Root), so the path is never resolved again from the top: a symbolic
// link planted after safePath looked, even a moment before the write,
// cannot send the write elsewhere.
//
// os.Root alone would refuse links that lead out of the vault but follow
// links within it, which memvault refuses too (see safePath). So each
// folder is opened one part at a time: the part is Lstat'ed (no link, a
// folder), opened, and the opened folder must be the very one Lstat saw.
// Files are then created, renamed and removed by name inside that handle,
// which never follows a link: a link planted in place of the file itself is
// refused by name, and a rename would replace the link, not its target.
type writeRoot struct {
	dir  string   // the vault's absolute folder, for messages
	root *os.Root // the vault folder
	// dirs caches the checked folder handles by vault-relative slash path,
	// so a batch of many files opens and checks each folder once.
	dirs map[string]*os.Root
	// beforeOpen, when set (tests only), runs between the Lstat and the
	// open of each folder part: where a race would swap the folder.
	beforeOpen func(part string)
}

// openRoot opens dir for writing. With create, a missing vault folder is
// created first (the first write creates the vault); without it, a
// missing folder is reported as fs.ErrNotExist.
func openRoot(dir string, create bool) (*writeRoot, error) {
	if create {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("create vault folder: %w", err)
			}
			// Best effort: the new folder's entry in its parent.
			_ = syncPath(filepath.Dir(dir))
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open vault folder: %w", err)
	}
	return &writeRoot{dir: dir, root: root, dirs: map[string]*os.Root{}}, nil
}

// Close releases the folder handles.
func (r *writeRoot) Close() error {
	var errs []error
	for _, d := range r.dirs {
		errs = append(errs, d.Close())
	}
	clear(r.dirs)
	return errors.Join(append(errs, r.root.Close())...)
}

// folder returns the handle of the vault-relative folder rel ("." is the
// vault), checking each part as described on writeRoot. With create,
// missing parts are created (and made durable); without it, a missing
// part is fs.ErrNotExist.
func (r *writeRoot) folder(rel string, create bool) (*os.Root, error) {
	if rel == "." {
		return r.root, nil
	}
	if d, ok := r.dirs[rel]; ok {
		return d, nil
	}
	cur := r.root
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		part := strings.Join(segs[:i+1], "/")
		if d, ok := r.dirs[part]; ok {
			cur = d
			continue
		}
		fi, err := cur.Lstat(seg)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err := cur.Mkdir(seg, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return nil, fmt.Errorf("create folder %s: %w", part, err)
			}
			if err := syncFolder(cur); err != nil {
				return nil, fmt.Errorf("create folder %s: %w", part, err)
			}
			fi, err = cur.Lstat(seg)
		}
		if err != nil {
			return nil, fmt.Errorf("check folder %s: %w", part, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return nil, symlinkError(r.dir, r.abs(part), part)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%w: %s is a file, not a folder", ErrInvalid, part)
		}
		if r.beforeOpen != nil {
			r.beforeOpen(part)
		}
		d, err := cur.OpenRoot(seg)
		if err != nil {
			if fi, lerr := cur.Lstat(seg); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				// Swapped for a link since the Lstat, one os.Root
				// refuses to follow: say where it leads.
				return nil, symlinkError(r.dir, r.abs(part), part)
			}
			return nil, fmt.Errorf("open folder %s: %w", part, err)
		}
		// Between Lstat and OpenRoot the folder may have been swapped
		// for a link (to a folder inside the vault: os.Root follows
		// those); the handle must be the folder Lstat saw.
		got, err := d.Stat(".")
		if err != nil || !os.SameFile(fi, got) {
			d.Close()
			return nil, fmt.Errorf("%w: folder %s was replaced while memvault was writing to it", ErrOutsideVault, part)
		}
		r.dirs[part] = d
		cur = d
	}
	return cur, nil
}

// abs is the absolute form of the vault-relative rel, for messages.
func (r *writeRoot) abs(rel string) string {
	return filepath.Join(r.dir, filepath.FromSlash(rel))
}

// checkName refuses a symbolic link or a non-regular file at name in d
// (rel is its vault-relative path). A missing file is fine.
func (r *writeRoot) checkName(d *os.Root, name, rel string) error {
	fi, err := d.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("check %s: %w", rel, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return symlinkError(r.dir, r.abs(rel), rel)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file (%s)", ErrInvalid, rel, fi.Mode().Type())
	}
	return nil
}

// readFile reads the vault-relative file rel, never through a symbolic
// link. A missing file or folder is fs.ErrNotExist.
func (r *writeRoot) readFile(rel string) ([]byte, error) {
	d, err := r.folder(path.Dir(rel), false)
	if err != nil {
		return nil, err
	}
	name := path.Base(rel)
	if err := r.checkName(d, name, rel); err != nil {
		return nil, err
	}
	return d.ReadFile(name)
}

// writeFile replaces the vault-relative file rel with data so that readers
// (and a crash) see either the old or the new content: a temp file in the
// same folder, fsync, rename, fsync of the folder. Missing folders are
// created. The temp file is removed on error.
func (r *writeRoot) writeFile(rel string, data []byte, perm fs.FileMode) (err error) {
	d, err := r.folder(path.Dir(rel), true)
	if err != nil {
		return err
	}
	name := path.Base(rel)
	if err := r.checkName(d, name, rel); err != nil {
		return err
	}
	// A dot-prefixed temp name is ignored by the loader and the watcher.
	f, tmp, err := createTemp(d, "."+name+store.TempInfix)
	if err != nil {
		return fmt.Errorf("create temp file for %s: %w", rel, err)
	}
	defer func() {
		if err != nil {
			_ = d.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	// Once more just before the rename: a link planted since checkName is
	// refused with the friendly message. Should one land in the last
	// instant, the rename replaces the link itself, never its target.
	if err := r.checkName(d, name, rel); err != nil {
		return err
	}
	if err := d.Rename(tmp, name); err != nil {
		return fmt.Errorf("rename %s into place: %w", rel, err)
	}
	return syncFolder(d)
}

// remove deletes the vault-relative file rel and makes the deletion
// durable; a missing file (or folder) is not an error. A symbolic link in
// its place is refused, not removed.
func (r *writeRoot) remove(rel string) error {
	d, err := r.folder(path.Dir(rel), false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	name := path.Base(rel)
	if err := r.checkName(d, name, rel); err != nil {
		return err
	}
	if err := d.Remove(name); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	return syncFolder(d)
}

// createTemp creates a new file named prefix plus a random number in d,
// as os.CreateTemp does for a path (os.Root has no CreateTemp). O_EXCL
// never follows a link at the name.
func createTemp(d *os.Root, prefix string) (*os.File, string, error) {
	for range 10000 {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temp name for %s*", prefix)
}

// syncFolder makes a rename, a removal or a new entry in d durable.
func syncFolder(d *os.Root) error {
	if !store.CanSyncFolder {
		return nil
	}
	f, err := d.Open(".")
	if err != nil {
		return fmt.Errorf("open folder for sync: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync folder %s: %w", d.Name(), err)
	}
	return nil
}

// syncPath is syncFolder for a folder named by path.
func syncPath(dir string) error {
	if !store.CanSyncFolder {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

func isNotExistErr(err error) bool { return errors.Is(err, fs.ErrNotExist) }
