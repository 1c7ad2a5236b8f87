package main

import (
	"context"
	"path/filepath"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// headFiles reads a vault's files as committed at HEAD (vault.Committed),
// opening the repository only when asked: only a file holding conflict
// markers is.
type headFiles struct {
	dir   string          // the vault folder
	store *gitstore.Store // nil: opened and closed at each call
}

var _ vault.CommittedReader = headFiles{}

func (h headFiles) ReadCommitted(ctx context.Context, rel string) ([]byte, error) {
	s := h.store
	if s == nil {
		var err error
		if s, err = openGit(ctx, h.dir); err != nil {
			return nil, err
		}
		defer s.Close()
	}
	return s.ReadFile(ctx, "", filepath.Join(h.dir, filepath.FromSlash(rel)))
}
