package gitrepo

import (
	"context"
	"errors"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// Code adapts gitstore to staleness.Git: the history of the repository's
// code, with repository-relative paths.
type Code struct {
	store *gitstore.Store
}

var _ staleness.Git = Code{}

// Code returns the repository's code history for vault/staleness.
func (g *Repo) Code() Code { return Code{g.store} }

// Items describes memories for a staleness.Tracker: their files as
// repository paths, and their refs. Memories without refs are left out.
func (g *Repo) Items(ms []*vault.Memory) []staleness.Item {
	var out []staleness.Item
	for _, m := range ms {
		if len(m.Refs) == 0 {
			continue
		}
		out = append(out, staleness.Item{ID: m.ID, File: g.repoRel(m.Path), Refs: m.Refs})
	}
	return out
}

// Head implements staleness.Git.
func (c Code) Head(ctx context.Context) (string, error) {
	h, err := c.store.Resolve(ctx, "")
	if errors.Is(err, gitstore.ErrNotFound) {
		return "", nil
	}
	return h, err
}

// Walk implements staleness.Git.
func (c Code) Walk(ctx context.Context, head, stop string, prefixes []string, fn func(staleness.Commit) error) error {
	err := c.store.WalkPathChanges(ctx, head, stop, prefixes, func(pc gitstore.PathCommit) error {
		sc := staleness.Commit{ID: pc.Hash, Subject: pc.Subject, Changes: make([]staleness.Change, len(pc.Changes))}
		for i, ch := range pc.Changes {
			sc.Changes[i] = changeOf(ch)
		}
		return fn(sc)
	})
	if errors.Is(err, gitstore.ErrNotAncestor) {
		return staleness.ErrNotAncestor
	}
	return err
}

func changeOf(ch gitstore.PathChange) staleness.Change {
	k := staleness.Modified
	switch ch.Kind {
	case gitstore.Added:
		k = staleness.Added
	case gitstore.Deleted:
		k = staleness.Deleted
	case gitstore.Renamed:
		k = staleness.Renamed
	}
	return staleness.Change{Kind: k, Path: ch.Path, OldPath: ch.OldPath, OldBlob: ch.OldBlob, NewBlob: ch.NewBlob}
}

// Uncommitted implements staleness.Git.
func (c Code) Uncommitted(ctx context.Context, prefixes []string) ([]staleness.Change, error) {
	chs, err := c.store.Uncommitted(ctx, prefixes)
	if err != nil {
		return nil, err
	}
	out := make([]staleness.Change, len(chs))
	for i, ch := range chs {
		out[i] = changeOf(ch)
	}
	return out, nil
}

// Exists implements staleness.Git.
func (c Code) Exists(ctx context.Context, rev string, paths []string) (map[string]bool, error) {
	return c.store.Exists(ctx, rev, paths)
}

// Blob implements staleness.Git.
func (c Code) Blob(ctx context.Context, id string) ([]byte, error) { return c.store.ReadBlob(ctx, id) }

// WorkFile implements staleness.Git.
func (c Code) WorkFile(ctx context.Context, path string) ([]byte, error) {
	return c.store.ReadWorkFile(ctx, path)
}
