package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// Committer adapts gitstore.Store to vault.Committer: the vault hands it
// absolute paths and a message, it commits them with the configured author.
type Committer struct {
	Store  *gitstore.Store
	Author *gitstore.Signature // nil: the repository's git identity
	Logger *slog.Logger
	// AllowDetached lets a write commit on a detached HEAD (--allow-detached).
	// Without it such a write is refused: its commit would be on no branch,
	// and the next `git checkout` would leave the memory behind as a
	// dangling commit.
	AllowDetached bool
}

var _ vault.Committer = Committer{}

// Lock implements vault.Committer with the repository's cross-process lock.
func (g Committer) Lock(ctx context.Context) (func(), error) { return g.Store.Lock(ctx) }

// Commit implements vault.Committer; a commit that would change nothing
// returns "" and no error.
func (g Committer) Commit(ctx context.Context, paths []string, message string) (string, error) {
	author := g.Author
	if p, ok := vault.PersonOf(ctx); ok { // a team server's caller
		author = &gitstore.Signature{Name: p.Name, Email: p.Email}
	}
	res, err := g.Store.Commit(ctx, gitstore.Change{Paths: paths, Message: message, Author: author, RefuseDetached: !g.AllowDetached})
	if errors.Is(err, gitstore.ErrNoChange) {
		return "", nil
	}
	if errors.Is(err, gitstore.ErrDetachedHead) {
		// Both doors show this message: the CLI, and MCP clients as the
		// tool's error.
		at := ""
		if st, err := g.Store.State(ctx); err == nil && len(st.Head) >= 12 {
			at = " at " + st.Head[:12]
		}
		return "", fmt.Errorf("%w%s: a memory committed now would be on no branch, and the next `git checkout` would leave it behind; "+
			"check out a branch first (git switch <branch>), or pass --allow-detached (memvault serve --allow-detached for MCP clients)",
			gitstore.ErrDetachedHead, at)
	}
	if err != nil {
		return "", err
	}
	if res.Detached && g.Logger != nil {
		g.Logger.Warn("committed on a detached HEAD: the commit is on no branch until you create one", "commit", res.Hash)
	}
	return res.Hash, nil
}

// ParseAuthor reads MEMVAULT_AUTHOR ("Name <email>"); empty means none.
func ParseAuthor(s string) (*gitstore.Signature, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name == "" {
		return nil, fmt.Errorf("MEMVAULT_AUTHOR=%q: want \"Name <email>\"", s)
	}
	return &gitstore.Signature{Name: a.Name, Email: a.Address}, nil
}
