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
