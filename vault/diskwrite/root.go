// Package diskwrite puts a write's bytes on disk safely, and knows
// nothing of memories: every file operation goes through checked folder
// handles (os.Root) so a symbolic link never sends a write elsewhere,
// each file is replaced atomically (temp file, fsync, rename, fsync of
// the folder), and a write of several files is journaled so that a
// process killed halfway is finished by the next one (Root.Redo) and a
// failed one is rolled back (Tx). What a write may touch, what it means
// and what it must refuse (a secret, a conflict marker) are the vault's
// rules; it calls this package for the mechanics.
package diskwrite

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

	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/store"
)

// Errors of the write layer. The vault's own sentinels are these errors
// (vault.ErrInvalid, vault.ErrOutsideVault), so a refused path matches
// them whichever layer refused it.
var (
	// ErrInvalid is input the caller can fix; here, a path that names
	// something other than a plain file or folder.
	ErrInvalid = fault.New(fault.Invalid, "invalid memory")
	// ErrOutsideVault is a path that leads, or would lead, out of the
	// vault folder.
	ErrOutsideVault = fault.New(fault.Invalid, "path outside the vault")
)

// Root is a vault folder opened for one write sequence. Every file
// operation of a write goes through it, relative to open folder handles
// (os.Root), so the path is never resolved again from the top: a symbolic
// link planted after CheckPath looked, even a moment before the write,
// cannot send the write elsewhere.
//
// os.Root alone would refuse links that lead out of the vault but follow
// links within it, which memvault refuses too (see CheckPath). So each
// folder is opened one part at a time: the part is Lstat'ed (no link, a
// folder), opened, and the opened folder must be the very one Lstat saw.
// Files are then created, renamed and removed by name inside that handle,
// which never follows a link: a link planted in place of the file itself is
// refused by name, and a rename would replace the link, not its target.
type Root struct {
	dir  string   // the vault's absolute folder, for messages
	root *os.Root // the vault folder
	// dirs caches the checked folder handles by vault-relative slash path,
	// so a batch of many files opens and checks each folder once.
	dirs map[string]*os.Root
}

// Open opens dir for writing. With create, a missing vault folder is
// created first (the first write creates the vault); without it, a
// missing folder is reported as fs.ErrNotExist.
func Open(dir string, create bool) (*Root, error) {
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
	return &Root{dir: dir, root: root, dirs: map[string]*os.Root{}}, nil
}

// Close releases the folder handles.
func (r *Root) Close() error {
	var errs []error
	for _, d := range r.dirs {
		errs = append(errs, d.Close())
	}
	clear(r.dirs)
	return errors.Join(append(errs, r.root.Close())...)
}

// Folder returns the handle of the vault-relative folder rel ("." is the
// vault), checking each part as described on Root. With create,
// missing parts are created (and made durable); without it, a missing
// part is fs.ErrNotExist.
func (r *Root) Folder(rel string, create bool) (*os.Root, error) {
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
		fi, err := r.checkPart(cur, seg, part, create)
		if err != nil {
			return nil, err
		}
		d, err := r.openPart(cur, seg, part, fi)
		if err != nil {
			return nil, err
		}
		r.dirs[part] = d
		cur = d
	}
	return cur, nil
}

// checkPart is Folder's first step for the part seg of cur (part is its
// vault-relative path): it must be a folder, not a link; with create, a
// missing one is created. It returns what Lstat saw, which the opened
// handle must be (openPart).
func (r *Root) checkPart(cur *os.Root, seg, part string, create bool) (fs.FileInfo, error) {
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
	return fi, nil
}

// openPart is Folder's second step: it opens the part seg of cur that
// checkPart saw as fi. A swap in between, for a link os.Root follows (to
// a folder inside the vault) or one it refuses (out of it), is refused.
func (r *Root) openPart(cur *os.Root, seg, part string, fi fs.FileInfo) (*os.Root, error) {
	d, err := cur.OpenRoot(seg)
	if err != nil {
		if fi, lerr := cur.Lstat(seg); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// Swapped for a link since checkPart, one os.Root refuses
			// to follow: say where it leads.
			return nil, symlinkError(r.dir, r.abs(part), part)
		}
		return nil, fmt.Errorf("open folder %s: %w", part, err)
	}
	// Since checkPart the folder may have been swapped for a link (to
	// a folder inside the vault: os.Root follows those); the handle must
	// be the folder checkPart saw.
	got, err := d.Stat(".")
	if err != nil || !os.SameFile(fi, got) {
		d.Close()
		return nil, fmt.Errorf("%w: folder %s was replaced while memvault was writing to it", ErrOutsideVault, part)
	}
	return d, nil
}

// abs is the absolute form of the vault-relative rel, for messages.
func (r *Root) abs(rel string) string {
	return filepath.Join(r.dir, filepath.FromSlash(rel))
}

// checkName refuses a symbolic link or a non-regular file at name in d
// (rel is its vault-relative path). A missing file is fine.
func (r *Root) checkName(d *os.Root, name, rel string) error {
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

// ReadFile reads the vault-relative file rel, never through a symbolic
// link. A missing file or folder is fs.ErrNotExist.
func (r *Root) ReadFile(rel string) ([]byte, error) {
	d, err := r.Folder(path.Dir(rel), false)
	if err != nil {
		return nil, err
	}
	name := path.Base(rel)
	if err := r.checkName(d, name, rel); err != nil {
		return nil, err
	}
	return d.ReadFile(name)
}

// WriteFile replaces the vault-relative file rel with data so that readers
// (and a crash) see either the old or the new content: a temp file in the
// same folder, fsync, rename, fsync of the folder. Missing folders are
// created. The file is readable by all (0644), as git checks files out.
// The temp file is removed on error.
func (r *Root) WriteFile(rel string, data []byte) (err error) {
	d, err := r.Folder(path.Dir(rel), true)
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
	if err := f.Chmod(0o644); err != nil {
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

// Remove deletes the vault-relative file rel and makes the deletion
// durable; a missing file (or folder) is not an error. A symbolic link in
// its place is refused, not removed.
func (r *Root) Remove(rel string) error {
	d, err := r.Folder(path.Dir(rel), false)
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

// RemoveTempFiles deletes the temp files WriteFile leaves behind when its
// process is killed between creating and renaming them, in the vault
// folder (the journal's) and in the vault-relative folders dirs (the
// layer folders). They are dot-files, so nothing loads them, but git
// status would list them. Call it only while no other writer can be in
// the middle of a write (holding the cross-process lock).
func (r *Root) RemoveTempFiles(dirs []string) {
	for _, rel := range append([]string{"."}, dirs...) {
		d, err := r.Folder(rel, false)
		if err != nil {
			continue // missing, or a link: not ours to clean
		}
		f, err := d.Open(".")
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, name := range names {
			if !strings.HasPrefix(name, ".") || !strings.Contains(name, store.TempInfix) {
				continue
			}
			if fi, err := d.Lstat(name); err == nil && fi.Mode().IsRegular() {
				_ = d.Remove(name)
			}
		}
	}
}
