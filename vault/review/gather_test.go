package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/access"
	"github.com/memvault/memvault/vault/staleness"
)

// fakeStaleness answers every memory with refs with one state, or fails.
type fakeStaleness struct {
	state staleness.Staleness
	err   error
	asked []string
}

func (f *fakeStaleness) Check(_ context.Context, _ func() []*vault.Memory, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := map[string]staleness.Staleness{}
	for _, m := range ms {
		f.asked = append(f.asked, m.ID)
		if len(m.Refs) > 0 {
			out[m.ID] = f.state
		}
	}
	return out, nil
}

type fakeAccess struct {
	s   access.Summary
	err error
}

func (f fakeAccess) Read(context.Context) (access.Summary, error) { return f.s, f.err }

// TestGather: the review's inputs come from the vault and from the
// sources that are there; a source that fails fails the review, one that
// is absent leaves its section unjudged.
func TestGather(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for rel, body := range map[string]string{
		"project/a.md": "---\nid: 01A\ntitle: Money is cents\ncreated_at: 2026-01-01T00:00:00Z\nrefs: [ledger.go]\n---\nNever float64.\n",
		"project/b.md": "---\nid: 01B\ntitle: Queues are durable\ncreated_at: 2026-01-01T00:00:00Z\n---\nKafka.\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	v, err := vault.Open(t.Context(), dir, vault.Options{Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	stale := staleness.Staleness{State: staleness.Stale, Reason: "ledger.go was deleted"}
	broken := errors.New("history unreadable")
	old := access.Summary{Since: at.Add(-60 * 24 * time.Hour), Last: map[string]time.Time{"01A": at.Add(-time.Hour)}, Count: map[string]int{"01A": 1}}
	tests := []struct {
		name       string
		src        Sources
		wantErr    error
		wantStale  []string
		wantUnused []string
		judged     bool
	}{
		{name: "outside git", wantStale: []string{}, wantUnused: []string{}},
		{name: "in git", src: Sources{Staleness: &fakeStaleness{state: stale}, Access: fakeAccess{s: old}},
			wantStale: []string{"01A:stale"}, wantUnused: []string{"01B:unused"}, judged: true},
		{name: "staleness fails", src: Sources{Staleness: &fakeStaleness{err: broken}}, wantErr: broken},
		{name: "access fails", src: Sources{Access: fakeAccess{err: broken}}, wantErr: broken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := Gather(t.Context(), v, tt.src, at, 14)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Gather = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.UnusedJudged != tt.judged {
				t.Errorf("UnusedJudged %v, want %v", r.UnusedJudged, tt.judged)
			}
			check(t, r.Stale, tt.wantStale)
			check(t, r.Unused, tt.wantUnused)
			if f, ok := tt.src.Staleness.(*fakeStaleness); ok && !slices.Equal(f.asked, []string{"01A", "01B"}) {
				t.Errorf("staleness asked for %v, want every memory", f.asked)
			}
		})
	}
}
