package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// gitCommitter adapts gitstore.Store to vault.Committer: the vault hands it
// absolute paths and a message, it commits them with the configured author.
type gitCommitter struct {
	store  *gitstore.Store
	author *gitstore.Signature // nil: the repository's git identity
	logger *slog.Logger
	// allowDetached lets a write commit on a detached HEAD (--allow-detached).
	// Without it such a write is refused: its commit would be on no branch,
	// and the next `git checkout` would leave the memory behind as a
	// dangling commit.
	allowDetached bool
}

var _ vault.Committer = gitCommitter{}

func (g gitCommitter) Lock(ctx context.Context) (func(), error) { return g.store.Lock(ctx) }

func (g gitCommitter) Commit(ctx context.Context, paths []string, message string) (string, error) {
	author := g.author
	if p, ok := vault.PersonOf(ctx); ok { // a team server's caller
		author = &gitstore.Signature{Name: p.Name, Email: p.Email}
	}
	res, err := g.store.Commit(ctx, gitstore.Change{Paths: paths, Message: message, Author: author, RefuseDetached: !g.allowDetached})
	if errors.Is(err, gitstore.ErrNoChange) {
		return "", nil
	}
	if errors.Is(err, gitstore.ErrDetachedHead) {
		// Both doors show this message: the CLI, and MCP clients as the
		// tool's error.
		at := ""
		if st, err := g.store.State(ctx); err == nil && len(st.Head) >= 12 {
			at = " at " + st.Head[:12]
		}
		return "", fmt.Errorf("%w%s: a memory committed now would be on no branch, and the next `git checkout` would leave it behind; "+
			"check out a branch first (git switch <branch>), or pass --allow-detached (memvault serve --allow-detached for MCP clients)",
			gitstore.ErrDetachedHead, at)
	}
	if err != nil {
		return "", err
	}
	if res.Detached && g.logger != nil {
		g.logger.Warn("committed on a detached HEAD: the commit is on no branch until you create one", "commit", res.Hash)
	}
	return res.Hash, nil
}

// parseAuthor reads MEMVAULT_AUTHOR ("Name <email>").
func parseAuthor(s string) (*gitstore.Signature, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name == "" {
		return nil, fmt.Errorf("MEMVAULT_AUTHOR=%q: want \"Name <email>\"", s)
	}
	return &gitstore.Signature{Name: a.Name, Email: a.Address}, nil
}

// openGit opens the repository that holds the vault folder, or would hold
// it: a vault that does not exist yet is created by its first write.
func openGit(ctx context.Context, vaultDir string) (*gitstore.Store, error) {
	return gitrepo.OpenStore(ctx, vaultDir)
}

// notRepository is the usage error for a vault outside any git repository.
func notRepository(dir string) error {
	return usagef("%s is not inside a git repository: every write is a git commit; run `git init` or `memvault init --git` first", dir)
}
