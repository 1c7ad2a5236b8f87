package vault

import (
	"errors"
	"testing"
	"time"
)

func TestRestore(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	setup := func(t *testing.T, layer Layer) (*Vault, *fakeClock, *Memory) {
		t.Helper()
		clock := newClock("2026-11-30T10:00:00Z")
		v, err := Open(ctx, t.TempDir(), Options{Now: clock.Now, Committer: &recordingCommitter{}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := v.Create(ctx, NewMemory{Title: "Checkout uses strategies", Content: "One per promotion.\n", Layer: layer,
			Tags: []string{"checkout"}, Importance: 6}, Author{Reason: "first"})
		if err != nil {
			t.Fatal(err)
		}
		return v, clock, res.Memory
	}

	t.Run("an older version comes back as a new one", func(t *testing.T) {
		t.Parallel()
		v, clock, old := setup(t, Project)
		clock.Advance(time.Hour)
		body, imp := "Drools rules.\n", 9
		if _, err := v.Update(ctx, old.ID, 0, Patch{Content: &body, Importance: &imp}, Author{Reason: "second"}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
		res, err := v.Restore(ctx, old, Author{Reason: "Drools was too slow"})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Memory
		if got.Body != old.Body || got.Importance != 6 || got.Version != 3 || !got.UpdatedAt.Equal(clock.Now()) {
			t.Errorf("restored %+v, want the first version's body and importance at version 3, updated now", got)
		}
		if _, err := v.Restore(ctx, old, Author{Reason: "again"}); !errors.Is(err, ErrUnchanged) {
			t.Errorf("second Restore: %v, want ErrUnchanged", err)
		}
	})

	t.Run("a deleted memory is created again with its id", func(t *testing.T) {
		t.Parallel()
		v, _, old := setup(t, Project)
		if _, err := v.Forget(ctx, old.ID, true, Author{Reason: "mistake"}); err != nil {
			t.Fatal(err)
		}
		res, err := v.Restore(ctx, old, Author{Reason: "deleted by mistake"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Memory.ID != old.ID || res.Memory.Title != old.Title || res.Memory.Body != old.Body {
			t.Errorf("restored %+v, want %s back", res.Memory, old.ID)
		}
	})

	t.Run("a default expiry starts again from now", func(t *testing.T) {
		t.Parallel()
		v, clock, old := setup(t, ShortTerm)
		clock.Advance(30 * 24 * time.Hour) // long expired
		if _, err := v.Forget(ctx, old.ID, true, Author{Reason: "gone"}); err != nil {
			t.Fatal(err)
		}
		res, err := v.Restore(ctx, old, Author{Reason: "back"})
		if err != nil {
			t.Fatal(err)
		}
		if want := clock.Now().Add(ShortTerm.TTL()); !res.Memory.ExpiresAt.Equal(want) {
			t.Errorf("expires_at %s, want %s (the layer's TTL from now)", res.Memory.ExpiresAt, want)
		}
	})
}
