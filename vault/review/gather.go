package review

import (
	"context"
	"fmt"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/access"
	"github.com/memvault/memvault/vault/staleness"
)

// Sources are where a review's inputs come from besides the vault itself;
// a nil one is not there (a vault outside git has neither), and its
// section is judged without it.
type Sources struct {
	// Staleness checks the memories with refs.
	Staleness StalenessChecker
	// Access is the clone's access record.
	Access AccessReader
}

// StalenessChecker is the staleness of a vault's memories
// (cmd/memvault/internal/gitrepo's Checker): of ms, with the tracker
// brought up to date with every memory all returns when it is not.
type StalenessChecker interface {
	Check(ctx context.Context, all func() []*vault.Memory, ms []*vault.Memory) (map[string]staleness.Staleness, error)
}

// AccessReader reads the clone's access record (access.Log).
type AccessReader interface {
	Read(ctx context.Context) (access.Summary, error)
}

// Gather reads the review's inputs for v, from v and src, and builds the
// review (Build), judged at now over days.
func Gather(ctx context.Context, v *vault.Vault, src Sources, now time.Time, days int) (Report, error) {
	in := Input{Memories: v.All(), Conflicted: v.Conflicted(), Recall: v.Recall, Now: now, Days: days}
	if src.Staleness != nil {
		states, err := src.Staleness.Check(ctx, v.All, in.Memories)
		if err != nil {
			return Report{}, fmt.Errorf("review: staleness: %w", err)
		}
		in.Staleness = states
	}
	if src.Access != nil {
		acc, err := src.Access.Read(ctx)
		if err != nil {
			return Report{}, fmt.Errorf("review: %w", err)
		}
		in.Access = &acc
	}
	return Build(in), nil
}
