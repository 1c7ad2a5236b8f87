package vault

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
)

// AddedAtReader is what a CommittedReader may also offer: when a vault
// file was first committed (the author time of the commit that added it,
// following renames); zero when it never was. cmd/memvault implements it
// with the repository's history.
type AddedAtReader interface {
	AddedAt(ctx context.Context, rel string) (time.Time, error)
}

// giveIdentity gives a hand-written memory (a file without `id`, known
// by its path: DerivedID) its own id on the first memvault write, so a
// later rename of the file keeps it: a new ULID dated at its creation,
// `created_at` from the history when the file has none (the file's time
// in a fresh clone is the checkout's), and the path id kept in
// `aliases`, which lookups by id fall back to (byAlias), so links and
// commands that name it by its path go on finding it. It returns the new
// id, "" for a memory that has one.
func (v *Vault) giveIdentity(ctx context.Context, cur *Memory, doc *parser.Document, now time.Time) (string, error) {
	if cur.FieldLine("id") != 0 || cur.ID != DerivedID(cur.Path) {
		return "", nil
	}
	created := cur.CreatedAt
	if doc.FieldLine("created_at") == 0 {
		created = now
		if r, ok := v.ports.committed.(AddedAtReader); ok {
			at, err := r.AddedAt(ctx, cur.Path)
			if err != nil {
				return "", fmt.Errorf("identity of %s: when it was added: %w", cur.Path, err)
			}
			if !at.IsZero() {
				created = at.UTC().Truncate(time.Second)
			}
		}
		if err := doc.Set("created_at", created); err != nil {
			return "", err
		}
	}
	id, err := NewULID(created, nil)
	if err != nil {
		return "", err
	}
	if err := doc.Set("id", id); err != nil {
		return "", err
	}
	if !slices.Contains(cur.Aliases, cur.ID) {
		if err := doc.Set("aliases", append(slices.Clone(cur.Aliases), cur.ID)); err != nil {
			return "", err
		}
	}
	return id, nil
}

// byAlias finds the memory that keeps id, a path id, in its aliases: a
// hand-written memory that giveIdentity gave an id. Caller holds v.mu.
func (v *Vault) byAlias(id string) (index.DocID, bool) {
	if !strings.Contains(id, "/") {
		return 0, false
	}
	for d, m := range v.entries {
		if m != nil && slices.Contains(m.Aliases, id) {
			return index.DocID(d), true
		}
	}
	return 0, false
}
