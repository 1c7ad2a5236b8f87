package mcpserver

import (
	"errors"
	"fmt"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// toolError turns a domain error into a message for the model: the
// sentinel's words are kept, the details say what to do in this door's
// terms.
func toolError(err error) error {
	var stale *vault.StaleError
	switch {
	case errors.Is(err, vault.ErrNotFound):
		return fmt.Errorf("%w; call recall to find the right id", err)
	case errors.As(err, &stale) && stale.ByETag:
		return fmt.Errorf("expected_etag: %w", err)
	case errors.Is(err, vault.ErrConflict):
		return fmt.Errorf("expected_version: %w", err)
	case errors.Is(err, vault.ErrNoVault):
		return fmt.Errorf("%w; start memvault serve with --user-vault DIR (a git repository) or create ~/.memvault", err)
	case errors.Is(err, history.ErrNoHistory):
		return errors.New("memory_history: this vault has no git history")
	}
	var dup *vault.DuplicateError
	if errors.As(err, &dup) {
		return fmt.Errorf("an active memory in the %s vault has the same or a near-identical title: %q (id %s, version %d, %s). "+
			"Nothing was written: to change it, call update_memory with {\"id\": %q, \"expected_version\": %d}; "+
			"to replace it, call remember with \"supersedes\": [%q]; or choose a distinct title",
			dup.Vault, dup.Title, dup.ID, dup.Version, dup.Path, dup.ID, dup.Version, dup.ID)
	}
	return err
}
