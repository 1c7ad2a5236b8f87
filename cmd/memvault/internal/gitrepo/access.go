package gitrepo

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/access"
)

// AccessLog is the vault's access record in this clone: a file in the git
// folder (.git/memvault/access-*.jsonl, one per vault folder of the
// repository), never committed.
func (g *Repo) AccessLog() *access.Log {
	sum := sha256.Sum256([]byte(g.prefix))
	return &access.Log{Path: filepath.Join(g.store.CommonDir(), "memvault", fmt.Sprintf("access-%x.jsonl", sum[:6]))}
}

// RecordAccess records, in each member's access log, the results of a
// recall that came from it. A vault outside git records nothing; a
// failure is returned for the caller to log, never to fail the recall.
func RecordAccess(ctx context.Context, members []vault.Member, rs []vault.SetResult, at time.Time) error {
	var first error
	for _, mb := range members {
		var ids []string
		for _, r := range rs {
			if r.Vault == mb.Name {
				ids = append(ids, r.Memory.ID)
			}
		}
		if len(ids) == 0 || mb.Vault == nil {
			continue
		}
		g, err := Open(ctx, mb.Vault.Dir())
		if err != nil {
			continue // not in git: no access record
		}
		err = g.AccessLog().Record(ctx, at, ids)
		g.Close()
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}
