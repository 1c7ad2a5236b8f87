package vault

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Confirm records that a person or assistant re-checked the memory against
// the code and found it still holds: it sets verified_at to now, in one
// commit whose reason is by.Reason (a default when empty). The content,
// updated_at and version stay as they are: nothing the memory says
// changed, and a writer holding the current version can still update it.
// Staleness counts code changes from this commit on (vault/staleness).
func (v *Vault) Confirm(ctx context.Context, id string, by Author) (WriteResult, error) {
	if strings.TrimSpace(by.Reason) == "" {
		by.Reason = "re-checked against the code: still accurate"
	}
	if err := checkReason(by.Reason); err != nil {
		return WriteResult{}, err
	}
	var res WriteResult
	err := v.withWriteLock(ctx, func() error {
		cur, doc, err := v.readCurrent(ctx, id)
		if err != nil {
			return err
		}
		now := v.now().UTC().Truncate(time.Second)
		if err := doc.Set("verified_at", now); err != nil {
			return fmt.Errorf("%w: verified_at: %w", ErrInvalid, err)
		}
		id = cur.ID
		if given, err := v.giveIdentity(ctx, cur, doc, now); err != nil {
			return err
		} else if given != "" {
			id = given
		}
		w := &writeSet{v: v}
		w.put(cur.Path, doc.Format())
		res, err = w.finish(ctx, commitMessage("confirm", cur.Layer, cur.Title, id, by.Reason, v.clientOf(by), nil),
			cur.Layer.Committed(), id, nil)
		return err
	})
	return res, err
}

// Confirm confirms memory id (Vault.Confirm) in the vault of the set
// that holds it, and names that vault.
func (s *Set) Confirm(ctx context.Context, id string, by Author) (Member, WriteResult, error) {
	in, _, err := s.Find(id)
	if err != nil {
		return Member{}, WriteResult{}, err
	}
	res, err := in.Vault.Confirm(ctx, id, by)
	return in, res, err
}
