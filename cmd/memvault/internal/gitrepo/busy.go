package gitrepo

import (
	"os"
	"path/filepath"
	"time"

	"github.com/memvault/memvault/gitstore"
)

// Busy returns a check for a git command changing the working tree of
// the repository that holds dir: checkout, pull and rebase hold
// <git-dir>/index.lock while they write files. A lock older than
// staleGitLock was left by a git that died: it would otherwise hold every
// batch back for the watcher's MaxWait. Nil outside git.
func Busy(dir string) func() bool {
	gitDir := GitDirOf(dir)
	if gitDir == "" {
		return nil
	}
	lock := filepath.Join(gitDir, "index.lock")
	return func() bool {
		fi, err := os.Lstat(lock)
		return err == nil && time.Since(fi.ModTime()) < staleGitLock
	}
}

// staleGitLock is the age past which an index.lock is taken as left
// behind rather than held.
const staleGitLock = 30 * time.Second

// GitDirOf finds the git directory of the repository holding dir (a
// linked worktree's own), as gitstore.Open would; "" outside git.
func GitDirOf(dir string) string {
	loc, err := gitstore.Find(dir)
	if err != nil {
		return ""
	}
	return loc.GitDir
}
