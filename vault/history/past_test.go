package history

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
)

// recallIDs runs a query on v and returns the result ids.
func recallIDs(v *vault.Vault, q string) []string {
	var ids []string
	for _, r := range v.Recall(vault.Query{Text: q, IncludeInactive: true}) {
		ids = append(ids, r.Memory.ID)
	}
	return ids
}

func TestAsOf(t *testing.T) {
	r, _, old, succ := orderStory() // commits at t0 .. t0+4h
	// A hand-written file without dates takes the commit's time.
	r.commit(t0.Add(5*time.Hour), "notes\n", map[string]string{"project/notes.md": "# 订单状态 notes\n\nrefunded too.\n"})
	past := New(r, "/v")
	past.Now = func() time.Time { return t0.Add(24 * time.Hour) }

	tests := []struct {
		name       string
		at         time.Time
		commit     int // index in r.commits; -1: none
		want, not  []string
		notesTaken bool
	}{
		{"before anything was recorded", t0.Add(-time.Hour), -1, nil, []string{old.id, succ.id}, false},
		{"before the new rule", t0.Add(2*time.Hour + 30*time.Minute), 2, []string{old.id}, []string{succ.id}, false},
		{"at a commit's very time", t0.Add(3 * time.Hour), 3, []string{old.id, succ.id}, nil, false},
		{"after everything", t0.Add(48 * time.Hour), 5, []string{old.id, succ.id, "project/notes"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := past.AsOf(t.Context(), tt.at)
			if err != nil {
				t.Fatal(err)
			}
			if s.Unborn || !s.At.Equal(tt.at) || s.Vault == nil {
				t.Fatalf("snapshot %+v", s)
			}
			if tt.commit < 0 {
				if s.Commit != "" || s.Vault.Stats().Total != 0 || s.Vault.Dir() != "/v@empty" {
					t.Errorf("snapshot %+v with %d memories in %s, want no commit and an empty vault", s, s.Vault.Stats().Total, s.Vault.Dir())
				}
				return
			}
			c := r.commits[tt.commit]
			if s.Commit != c.Hash || !s.Time.Equal(c.CommitTime) || s.Vault.Dir() != "/v@"+ShortHash(c.Hash) {
				t.Errorf("read %s at %s (%s), want %s at %s", s.Commit, s.Time, s.Vault.Dir(), c.Hash, c.CommitTime)
			}
			ids := recallIDs(s.Vault, "订单状态")
			for _, id := range tt.want {
				if !slices.Contains(ids, id) {
					t.Errorf("results %v lack %s", ids, id)
				}
			}
			for _, id := range tt.not {
				if slices.Contains(ids, id) {
					t.Errorf("results %v include %s", ids, id)
				}
			}
			if tt.notesTaken {
				notes, err := s.Vault.Get("project/notes")
				if err != nil || !notes.CreatedAt.Equal(c.CommitTime) {
					t.Errorf("hand-written file %+v (%v), want it dated by its commit %s", notes, err, c.CommitTime)
				}
			}
			if _, err := s.Vault.Create(t.Context(), vault.NewMemory{Title: "x"}, vault.Author{}); !errors.Is(err, vault.ErrReadOnly) {
				t.Errorf("a write to a snapshot: %v, want ErrReadOnly", err)
			}
		})
	}

	t.Run("no commit yet", func(t *testing.T) {
		s, err := New(&fakeRepo{}, "/v").AsOf(t.Context(), t0)
		if err != nil || !s.Unborn || s.Vault != nil {
			t.Errorf("snapshot %+v, %v; want Unborn and no vault", s, err)
		}
	})
}

func TestAt(t *testing.T) {
	r, _, old, succ := orderStory()
	past := New(r, "/v")
	s, err := past.At(t.Context(), "HEAD~2")
	if err != nil {
		t.Fatal(err)
	}
	if c := r.commits[2]; s.Commit != c.Hash || !s.Time.Equal(c.CommitTime) || !s.At.IsZero() {
		t.Errorf("snapshot of HEAD~2: %+v, want %s", s, c.Hash)
	}
	if ids := recallIDs(s.Vault, "订单状态"); !slices.Contains(ids, old.id) || slices.Contains(ids, succ.id) {
		t.Errorf("vault at HEAD~2 recalls %v, want the old rule only", ids)
	}
	_, err = past.At(t.Context(), "nosuchrev")
	var re *RevisionError
	if !errors.As(err, &re) || re.Rev != "nosuchrev" {
		t.Errorf("At(nosuchrev): %v, want a RevisionError", err)
	}
}

func TestMemoryAt(t *testing.T) {
	r := &fakeRepo{}
	m := mem{id: "01CHECKOUT", title: "Checkout uses the strategy pattern", importance: 7, body: "One strategy per promotion type.\n"}
	first := r.commit(t0, msg("add", m, "", "cli"), map[string]string{"project/checkout.md": m.file()})
	m.layer, m.importance, m.version = "preference", 4, 2
	r.commit(t0.Add(time.Hour), msg("update", m, "", "cli"), map[string]string{"project/checkout.md": "", "preferences/checkout.md": m.file()})
	renamed := mem{id: "01RENAMED", title: "Renamed since", body: "x\n"}
	r.commit(t0.Add(2*time.Hour), msg("add", renamed, "", "cli"), map[string]string{"project/old-name.md": renamed.file()})
	r.commit(t0.Add(3*time.Hour), msg("update", renamed, "", "cli"), map[string]string{"project/old-name.md": "", "project/new-name.md": renamed.file()})
	r.commit(t0.Add(4*time.Hour), "notes\n", map[string]string{"project/hand.md": "# Hand\n"})
	_, v := r.checkout(t, t0.Add(5*time.Hour))
	past := New(r, "/v")
	cur := func(id string) *vault.Memory {
		m, _ := v.Get(id)
		return m
	}

	tests := []struct {
		name, id, rev string
		cur           *vault.Memory
		wantPath      string
		wantVersion   int
	}{
		{"at its current path", m.id, "HEAD", cur(m.id), "preferences/checkout.md", 2},
		{"in another layer folder then", m.id, first[:8], cur(m.id), "project/checkout.md", 1},
		{"deleted since: by reading the vault then", m.id, first, nil, "project/checkout.md", 1},
		{"under another file name then", renamed.id, "HEAD~2", cur(renamed.id), "project/old-name.md", 1},
		{"a hand-written file's id is its path", "project/hand", "HEAD", nil, "project/hand.md", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, hash, err := past.MemoryAt(t.Context(), tt.id, tt.rev, tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := r.Resolve(t.Context(), tt.rev)
			if got.ID != tt.id || got.Path != tt.wantPath || got.Version != tt.wantVersion || hash != c.Hash {
				t.Errorf("got %s at %s version %d in %s, want %s at %s version %d in %s", got.ID, got.Path, got.Version, hash,
					tt.id, tt.wantPath, tt.wantVersion, c.Hash)
			}
		})
	}
	if _, _, err := past.MemoryAt(t.Context(), renamed.id, first, cur(renamed.id)); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("a memory before it existed: %v, want vault.ErrNotFound", err)
	}
	_, _, err := past.MemoryAt(t.Context(), m.id, "nosuchrev", cur(m.id))
	var re *RevisionError
	if !errors.As(err, &re) {
		t.Errorf("an unknown revision: %v, want a RevisionError", err)
	}
}
