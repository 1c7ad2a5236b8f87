package staleness

import (
	"context"
	"maps"

	"github.com/memvault/memvault/vault"
)

// Checker is the staleness of one vault's memories as its repository
// answers it (cmd/memvault/internal/gitrepo's Checker): of ms, with the
// tracker brought up to date with every memory all returns when it is
// not. Close stops a walk ctx ended early.
type Checker interface {
	Check(ctx context.Context, all func() []*vault.Memory, ms []*vault.Memory) (map[string]Staleness, error)
	Close() error
}

// OpenChecker opens the Checker of the repository around v; an error
// means there is none to ask (a vault outside git).
type OpenChecker func(ctx context.Context, v *vault.Vault) (Checker, error)

// OfSet is a one-shot check of a recall's results: for the memories with
// refs in rs, it opens each member's Checker and returns their staleness.
// A vault outside git, or whose history cannot be read, has none:
// staleness is advice and never fails a read.
func OfSet(ctx context.Context, open OpenChecker, members []vault.Member, rs []vault.SetResult) map[string]Staleness {
	out := map[string]Staleness{}
	for _, mb := range members {
		var ms []*vault.Memory
		for _, r := range rs {
			if r.Vault == mb.Name && len(r.Memory.Refs) > 0 {
				ms = append(ms, r.Memory)
			}
		}
		if len(ms) == 0 || mb.Vault == nil {
			continue
		}
		c, err := open(ctx, mb.Vault)
		if err != nil {
			continue
		}
		states, err := c.Check(ctx, mb.Vault.All, ms)
		c.Close()
		if err == nil {
			maps.Copy(out, states)
		}
	}
	return out
}

// RankSet is OfSet followed by Rerank of rs: what a recall at the CLI
// does before it renders.
func RankSet(ctx context.Context, open OpenChecker, members []vault.Member, rs []vault.SetResult) map[string]Staleness {
	states := OfSet(ctx, open, members, rs)
	Rerank(rs, states)
	return states
}

// OfMemory is OfSet for one memory of the vault called name.
func OfMemory(ctx context.Context, open OpenChecker, members []vault.Member, name string, m *vault.Memory) map[string]Staleness {
	return OfSet(ctx, open, members, []vault.SetResult{{Result: vault.Result{Memory: m}, Vault: name}})
}
