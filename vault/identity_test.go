package vault

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// addedAt is a CommittedReader that knows when files were added.
type addedAt map[string]time.Time

func (a addedAt) ReadCommitted(context.Context, string) ([]byte, error) { return nil, ErrNotFound }

func (a addedAt) AddedAt(_ context.Context, rel string) (time.Time, error) { return a[rel], nil }

func TestFirstWriteGivesAnIdentity(t *testing.T) {
	t.Parallel()
	added := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name, file string
		write      func(v *Vault, id string) (WriteResult, error)
		created    time.Time
		aliases    []string
	}{
		{"update, created from the history", "---\ntitle: Deploys\n---\nTwo approvals.\n", func(v *Vault, id string) (WriteResult, error) {
			imp := 8
			return v.Update(t.Context(), id, 0, Patch{Importance: &imp}, Author{Reason: "it matters"})
		}, added, []string{"project/deploys"}},
		{"confirm, created kept", "---\ntitle: Deploys\ncreated_at: 2026-01-02T03:04:05Z\naliases: [ship]\n---\nTwo approvals.\n", func(v *Vault, id string) (WriteResult, error) {
			return v.Confirm(t.Context(), id, Author{})
		}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), []string{"ship", "project/deploys"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"project/deploys.md": tc.file})
			v, err := Open(t.Context(), dir, Options{Now: func() time.Time { return now }, Committer: &recordingCommitter{},
				Committed: addedAt{"project/deploys.md": added}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := tc.write(v, "project/deploys")
			if err != nil {
				t.Fatal(err)
			}
			m, err := v.Get("project/deploys") // the path id still finds it
			if err != nil {
				t.Fatal(err)
			}
			if m.ID == "project/deploys" || res.Memory == nil || m.ID != res.Memory.ID || !strings.HasPrefix(m.ID, "01") {
				t.Errorf("id %q (the write said %v), want a new ULID", m.ID, res.Memory)
			}
			if !m.CreatedAt.Equal(tc.created) || !slices.Equal(m.Aliases, tc.aliases) {
				t.Errorf("created_at %s, aliases %q; want %s, %q", m.CreatedAt, m.Aliases, tc.created, tc.aliases)
			}
			// A second write keeps the id.
			imp := 3
			if _, err := v.Update(t.Context(), m.ID, 0, Patch{Importance: &imp}, Author{Reason: "less"}); err != nil {
				t.Fatal(err)
			}
			if again, err := v.Get(m.ID); err != nil || again.ID != m.ID {
				t.Errorf("after a second write: %v, %v", again, err)
			}
		})
	}
}
