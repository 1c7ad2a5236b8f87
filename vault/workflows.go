package vault

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/store"
)

// What the git workflows in their own packages (vault/resolve,
// vault/doctor, vault/mergesetup) need of a vault's folder and files
// beyond the path-safe reads and atomic writes of vault/diskwrite, which
// they use as the write path does, so that no workflow follows a
// symbolic link or leaves half a file.

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
	r, err := v.disk.OpenFolder(v.dir, false)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, rel := range rels {
		data, err := r.ReadFile(rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", rel, err)
		}
		if line := merge.MarkerLine(data); line > 0 {
			return fmt.Errorf("commit refused: %s:%d: %w", rel, line, ErrConflictMarkers)
		}
	}
	return nil
}
