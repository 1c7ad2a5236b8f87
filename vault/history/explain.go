package history

import (
	"context"
	"errors"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// explainDepth bounds the file's commits explain reads past confirms.
const explainDepth = 16

// explain fills c's reason, client and author from the commit whose
// change matters: for an added memory the commit that added the file
// (its creator), else the newest commit that changed more than its
// verified_at; a `memvault confirm` after the change says it still holds,
// not why it changed. When every commit read is a confirm, the newest.
func (r *Reader) explain(ctx context.Context, head string, c *MemoryChange) error {
	limit := explainDepth
	if c.Kind == KindAdded {
		limit = 0 // down to the commit that added it (NoRenames)
	}
	cs, err := r.repo.Log(ctx, c.Path, LogOptions{Rev: head, Limit: limit, NoRenames: true})
	if err != nil || len(cs) == 0 {
		return err
	}
	pick := cs[0]
	switch {
	case c.Kind == KindAdded:
		pick = cs[len(cs)-1]
	case c.Kind != KindDeleted:
		// Each commit's version against the next older one's: the
		// newest that is not only a confirm.
		var newer *vault.Memory
		found := false
		for i, e := range cs {
			m, err := r.memoryAt(ctx, e)
			if err != nil {
				return err
			}
			if i > 0 && !vault.OnlyConfirmed(m, newer) {
				pick, found = cs[i-1], true
				break
			}
			if newer = m; m == nil {
				found = true
				break
			}
		}
		if !found && len(cs) < limit {
			// Confirms down to the commit that added the file: that one.
			pick = cs[len(cs)-1]
		}
	}
	msg := commitmsg.ParseFor(pick.Message, c.ID)
	c.Reason, c.Client, c.Author = msg.Body, msg.Get(commitmsg.KeyClient), pick.Author.Name
	return nil
}

// memoryAt reads the memory of a log entry's file at its commit; nil
// when it is gone or does not parse.
func (r *Reader) memoryAt(ctx context.Context, e LogEntry) (*vault.Memory, error) {
	if e.Deleted {
		return nil, nil
	}
	data, err := r.repo.ReadFile(ctx, e.Hash, e.Path)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, _ := vault.ParseMemory(e.Path, data, time.Time{})
	return m, nil
}
