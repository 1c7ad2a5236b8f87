package history

import (
	"context"
	"errors"
	"fmt"

	"github.com/memvault/memvault/vault"
)

// Teller tells a memory's story from one vault's history; *Reader is one.
type Teller interface {
	History(ctx context.Context, id string, cur *vault.Memory) (*Story, error)
}

// Holder is one vault FindStory looks in: its name (vault.ProjectVault or
// vault.UserVault), the vault as loaded, and the teller of its history,
// nil when the vault has none (not in git).
type Holder struct {
	Name   string
	Vault  *vault.Vault
	Teller Teller
}

// FindStory tells memory id's story when it may live in any of several
// vaults (a project and a user vault): the vault that holds the memory
// tells it; a memory no vault holds any more (deleted) is looked for in
// each vault's history, in the order given. It returns the story and the
// name of the vault it comes from. The error wraps vault.ErrNotFound when
// no vault knows the id, and is ErrNoHistory when the vaults to look in
// have no history. A memory held by a vault whose history never recorded
// it (the transient layer) has a story without revisions.
func FindStory(ctx context.Context, id string, holders []Holder) (*Story, string, error) {
	look := holders
	for _, h := range holders {
		if _, err := h.Vault.Get(id); err == nil {
			look = []Holder{h}
			break
		}
	}
	searched := false
	for _, h := range look {
		if h.Teller == nil {
			continue
		}
		searched = true
		cur, _ := h.Vault.Get(id)
		s, err := h.Teller.History(ctx, id, cur)
		if err != nil && !errors.Is(err, vault.ErrNotFound) && !errors.Is(err, ErrNotFound) {
			return nil, "", fmt.Errorf("history of %s in the %s vault: %w", id, h.Name, err)
		}
		switch {
		case s != nil && (cur != nil || len(s.Revisions) > 0):
			return s, h.Name, nil
		case cur != nil:
			return &Story{ID: id, Title: cur.Title, Path: cur.Path, Current: cur}, h.Name, nil
		}
	}
	if !searched {
		return nil, "", ErrNoHistory
	}
	return nil, "", fmt.Errorf("%w: %s", vault.ErrNotFound, vault.ShortID(id))
}
