package vault

import (
	"context"
	"errors"
	"slices"
)

// Restore writes old, a past version of one of v's memories (read from
// history), back as a new version: its version keeps increasing and
// updated_at moves, so history shows the restore as what it is. A memory
// deleted since is created again with its old id. An expiry that was the
// layer's default, not written in the file, is set from now, as a new
// write would: restored verbatim it would bring the memory back already
// expired. It returns an error wrapping ErrUnchanged when the memory
// already matches old.
func (v *Vault) Restore(ctx context.Context, old *Memory, by Author) (WriteResult, error) {
	expires := &old.ExpiresAt
	if ttl := old.Layer.TTL(); ttl > 0 && old.ExpiresAt.Equal(old.UpdatedAt.Add(ttl)) {
		expires = nil
	}
	cur, err := v.Get(old.ID)
	if errors.Is(err, ErrNotFound) {
		n := NewMemory{
			ID: old.ID, Title: old.Title, Content: old.Body, Layer: old.Layer, Tags: old.Tags,
			Aliases: old.Aliases, Importance: old.Importance, EffectiveAt: old.EffectiveAt,
			Supersedes: old.Supersedes, Links: old.Links, Kind: old.Source.Kind,
		}
		if expires != nil {
			n.ExpiresAt = *expires
		}
		return v.Create(ctx, n, by)
	}
	if err != nil {
		return WriteResult{}, err
	}
	p := Patch{Title: &old.Title, Content: &old.Body, Layer: &old.Layer, Tags: &old.Tags,
		Importance: &old.Importance, EffectiveAt: &old.EffectiveAt, ExpiresAt: expires,
		Status: &old.Status, Links: &old.Links}
	// Any Supersedes in a patch makes the write a "supersede"; give it
	// only when it changes.
	if !slices.Equal(old.Supersedes, cur.Supersedes) {
		p.Supersedes = &old.Supersedes
	}
	return v.Update(ctx, old.ID, 0, p, by)
}
