package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// WalkStaged calls fn for every regular file staged under dir, in index
// order, with the repository-relative path and the staged content (the
// blob the index names, not the work-tree file). indexPath selects the
// index file; "" means the work tree's own index. A pre-commit hook passes
// $GIT_INDEX_FILE, which git points at a temporary index for
// `git commit -a` and `git commit <paths>`. For an unmerged path every
// stage is visited. An error from fn stops the walk and is returned.
func (s *Store) WalkStaged(ctx context.Context, indexPath, dir string, fn func(path string, data []byte) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return err
	}
	prefix, err := s.rel(dir)
	if err != nil {
		return err
	}
	if indexPath == "" {
		indexPath = filepath.Join(s.gitDir, "index")
	}
	data, err := os.ReadFile(indexPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing staged yet
	}
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	// Decoded here rather than through loadIndex, so that a temporary
	// index never replaces the cached one that Commit updates.
	ix, err := decodeIndex(data)
	if err != nil {
		return fmt.Errorf("read index %s: %w", indexPath, err)
	}
	for _, e := range ix.entries {
		if prefix != "" && e.name != prefix && !strings.HasPrefix(e.name, prefix+"/") {
			continue
		}
		if m := e.mode(); m != modeFile && m != modeExec {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		blob, err := s.readBlob(plumbing.Hash(e.hash()))
		if err != nil {
			return fmt.Errorf("read staged %s: %w", e.name, err)
		}
		// fn may call other Store methods.
		s.mu.Unlock()
		err = fn(e.name, blob)
		s.mu.Lock()
		if err != nil {
			return err
		}
	}
	return nil
}
