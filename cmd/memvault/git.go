package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/history"
)

// The CLI's wiring of the git adapter (cmd/memvault/internal/gitrepo):
// opening a vault's repository, and the usage errors of a vault outside
// one.

// openGit opens the repository that holds the vault folder, or would hold
// it: a vault that does not exist yet is created by its first write.
func openGit(ctx context.Context, vaultDir string) (*gitstore.Store, error) {
	return gitrepo.OpenStore(ctx, vaultDir)
}

// notRepository is the usage error for a vault outside any git repository.
func notRepository(dir string) error {
	return usagef("%s is not inside a git repository: every write is a git commit; run `git init` or `memvault init --git` first", dir)
}

// gitRepo is the repository that holds a vault, for the commands that
// read its past.
type gitRepo struct{ *gitrepo.Repo }

// past returns a reader of the vault's past at the clock now.
func (g *gitRepo) past(now func() time.Time) *history.Reader { return g.Past(now) }

// openRepoAt opens the repository around the vault at dir. It returns an
// error wrapping gitstore.ErrNotRepository when there is none.
func openRepoAt(ctx context.Context, dir string) (*gitRepo, error) {
	g, err := gitrepo.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return &gitRepo{g}, nil
}

// needRepoAt is openRepoAt for commands that make no sense without git.
func needRepoAt(ctx context.Context, dir, what string) (*gitRepo, error) {
	g, err := openRepoAt(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil, usagef("%s needs the vault to be in a git repository; this one is not", what)
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository: %w", err)
	}
	return g, nil
}
