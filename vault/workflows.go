package vault

import (
	"context"
	"fmt"

	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/store"
)

// What the git workflows in their own packages (vault/resolve,
// vault/doctor, vault/mergesetup) need of a vault's folder and files: the
// same path-safe reads and atomic writes the write path uses, so that no
// workflow follows a symbolic link or leaves half a file.

// Files is a vault folder opened for reading and replacing files by
// vault-relative, slash-separated path, never through a symbolic link.
type Files struct {
	root *writeRoot
}

// OpenFiles opens the vault folder dir. With create, a missing folder is
// created; without it, a missing folder is fs.ErrNotExist.
func OpenFiles(dir string, create bool) (*Files, error) {
	r, err := openRoot(dir, create)
	if err != nil {
		return nil, err
	}
	return &Files{root: r}, nil
}

// Close releases the folder handles.
func (f *Files) Close() error { return f.root.Close() }

// ReadFile reads the file rel; a missing file or folder is
// fs.ErrNotExist.
func (f *Files) ReadFile(rel string) ([]byte, error) { return f.root.readFile(rel) }

// WriteFile replaces the file rel with data atomically (readers and a
// crash see the old or the new content), creating missing folders.
func (f *Files) WriteFile(rel string, data []byte) error {
	return f.root.writeFile(rel, data, 0o644)
}

// Remove deletes the file rel durably; a missing file is not an error, a
// symbolic link in its place is refused.
func (f *Files) Remove(rel string) error { return f.root.remove(rel) }

// MemoryFiles lists the vault-relative paths of the memory files under
// dir as the loader finds them (no dot-folders, no links, Markdown only),
// sorted.
func MemoryFiles(ctx context.Context, dir string) ([]string, error) {
	return store.Scan(ctx, dir, nil)
}

// RefuseConflictMarkers refuses, with an error matching
// ErrConflictMarkers, a commit of vault-relative files one of which holds
// git conflict markers as it is on disk now (the loader left out those
// that did at load). A missing file is a deletion.
func (v *Vault) RefuseConflictMarkers(rels []string) error {
	r, err := openRoot(v.dir, false)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, rel := range rels {
		data, err := r.readFile(rel)
		if err != nil && !isNotExistErr(err) {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		if line := merge.MarkerLine(data); line > 0 {
			return fmt.Errorf("commit refused: %s:%d: %w", rel, line, ErrConflictMarkers)
		}
	}
	return nil
}
