package history

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// Reader reads one vault's past from the repository that holds it. It is
// safe for concurrent use when its Repo is.
type Reader struct {
	// Now is the clock of the vaults At and AsOf return (decay, expiry);
	// nil means time.Now.
	Now func() time.Time

	repo Repo
	dir  string
}

// New returns a Reader of the vault in folder dir, whose repository repo
// sees it. dir names the snapshots it returns.
func New(repo Repo, dir string) *Reader { return &Reader{repo: repo, dir: dir} }

// ReadMemory reads and parses a vault-relative file at a revision ("" is
// HEAD); it returns nil, nil, nil when the file is not there. The memory
// is nil when the file is not a memory file; data is its content.
func (r *Reader) ReadMemory(ctx context.Context, rev, rel string) (*vault.Memory, []byte, error) {
	data, err := r.repo.ReadFile(ctx, rev, rel)
	if errors.Is(err, ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	mem, _ := vault.ParseMemory(rel, data, time.Time{})
	return mem, data, nil
}

// resolve resolves a revision the caller named; an unknown one is a
// *RevisionError.
func (r *Reader) resolve(ctx context.Context, rev string) (Commit, error) {
	c, err := r.repo.Resolve(ctx, rev)
	if errors.Is(err, ErrNotFound) {
		return Commit{}, &RevisionError{Rev: rev, Err: err}
	}
	if err != nil {
		return Commit{}, fmt.Errorf("resolve %s: %w", rev, err)
	}
	return c, nil
}

// followID is the Log option that finds the commits naming memory id.
func followID(id string) string { return commitmsg.KeyID + ": " + id }

func (r *Reader) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}
