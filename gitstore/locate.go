package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"
)

// Location says where the repository of a work tree is.
type Location struct {
	// Root is the work tree's top directory.
	Root string
	// GitDir is the work tree's git directory: HEAD, index, MERGE_HEAD.
	// For a linked worktree it is its private directory under the main
	// repository's.
	GitDir string
	// CommonDir is the git directory linked worktrees share: objects,
	// refs, config, hooks. It is GitDir outside linked worktrees.
	CommonDir string
}

// Find walks up from dir to the work tree that contains it and says where
// its repository is, without opening it, the way Open finds it: the first
// `.git` that is a git directory, or a `gitdir:` file (linked worktree,
// submodule). Root is spelt as dir is (made absolute; symlinks on the way
// up are not resolved); a `gitdir:` file's target is resolved. It returns
// an error wrapping ErrNotRepository when there is none.
func Find(dir string) (Location, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Location{}, fmt.Errorf("find the repository of %s: %w", dir, err)
	}
	root, gitDir, err := findRepository(abs)
	if err != nil {
		return Location{}, fmt.Errorf("find the repository of %s: %w", dir, err)
	}
	return Location{Root: root, GitDir: gitDir, CommonDir: commonDirOf(gitDir)}, nil
}

// commonDirOf follows a linked worktree's git directory to the shared one
// (its "commondir" file); other git directories are their own.
func commonDirOf(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// CommonDir returns the git directory shared by linked worktrees (objects,
// refs, config, hooks); outside linked worktrees it is GitDir.
func (s *Store) CommonDir() string { return s.commonDir }

// Rel turns a path (absolute, or relative to the work tree's root) into
// the repository-relative slash path that History, ReadFile, WalkTree and
// DiffTrees name files by; the root itself is "". A path spelt through a
// symlink is resolved as far as it exists. It returns an error wrapping
// ErrOutsideWorkTree for paths outside the work tree or inside .git.
func (s *Store) Rel(path string) (string, error) { return s.rel(path) }

// ReadCommit returns the commit a revision names (see Resolve), without
// the path fields of CommitInfo. It returns an error wrapping ErrNotFound
// when there is none, including HEAD on an unborn branch.
func (s *Store) ReadCommit(ctx context.Context, rev string) (CommitInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return CommitInfo{}, err
	}
	h, err := s.resolve(rev)
	if err != nil {
		return CommitInfo{}, err
	}
	c, err := s.getCommit(h)
	if err != nil {
		return CommitInfo{}, err
	}
	return commitInfo(c), nil
}

// commitInfo describes a commit, without the path fields.
func commitInfo(c *object.Commit) CommitInfo {
	return CommitInfo{
		Hash:       c.Hash.String(),
		Author:     Signature{c.Author.Name, c.Author.Email},
		When:       c.Author.When,
		Committer:  Signature{c.Committer.Name, c.Committer.Email},
		CommitTime: c.Committer.When,
		Message:    c.Message,
		Parents:    parentIDs(c),
	}
}

// parentIDs lists a commit's parents' ids, first parent first.
func parentIDs(c *object.Commit) []string {
	if len(c.ParentHashes) == 0 {
		return nil
	}
	out := make([]string, len(c.ParentHashes))
	for i, h := range c.ParentHashes {
		out[i] = h.String()
	}
	return out
}
