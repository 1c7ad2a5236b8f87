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
	return s.walkStaged(ctx, indexPath, dir, false, fn)
}

// WalkStagedChanges is WalkStaged restricted to what the commit would
// change: files staged with the same content and mode as HEAD records are
// skipped, so only added and modified files are visited (all of them on
// an unborn branch). A pre-commit hook that scans it judges the commit's
// own changes, not what HEAD already holds.
func (s *Store) WalkStagedChanges(ctx context.Context, indexPath, dir string, fn func(path string, data []byte) error) error {
	return s.walkStaged(ctx, indexPath, dir, true, fn)
}

func (s *Store) walkStaged(ctx context.Context, indexPath, dir string, changedOnly bool, fn func(path string, data []byte) error) error {
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
	base := plumbing.ZeroHash // HEAD's tree; zero: compare with nothing
	if changedOnly {
		h, err := s.readHead()
		if err != nil {
			return err
		}
		if !h.unborn {
			c, err := s.getCommit(h.hash)
			if err != nil {
				return fmt.Errorf("HEAD: %w", err)
			}
			base = c.TreeHash
		}
	}
	for _, e := range ix.entries {
		if prefix != "" && e.name != prefix && !strings.HasPrefix(e.name, prefix+"/") {
			continue
		}
		if m := e.mode(); m != modeFile && m != modeExec {
			continue
		}
		if !base.IsZero() {
			was, ok, err := s.lookupPath(base, e.name)
			if err != nil {
				return fmt.Errorf("HEAD: %s: %w", e.name, err)
			}
			if ok && !was.isDir() && was.hash == plumbing.Hash(e.hash()) {
				continue // the content HEAD has: not this commit's change
			}
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
