package webui

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
)

// TestTimelinePagesJoinUp pages through the sample history three commits
// at a time, with and without filters: the pages joined are the whole
// list read at once, none missing, none twice.
func TestTimelinePagesJoinUp(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := samplehistory.Replay(t.Context(), filepath.Join("..", "..", "..", "..", "sample-vault"), root); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, samplehistory.VaultDir)
	src, err := NewLocal(t.Context(), dir, func() time.Time { return sampleNow })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(src.Close)
	s, err := New(Config{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := src.Ready(t.Context())
	repo, _ := src.Repo(t.Context())
	hashes := func(rows []commitRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Hash)
		}
		return out
	}
	for _, q := range []timelineQuery{{}, {Layer: "project"}, {Client: "claude-code"}, {Author: "a"}} {
		all, err := s.commits(t.Context(), repo, v, q, 10000, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(all.Rows) < 4 {
			t.Fatalf("%+v: only %d commits in the sample; the test needs more", q, len(all.Rows))
		}
		var joined []commitRow
		for page := 0; ; page++ {
			pg, err := s.commits(t.Context(), repo, v, q, 3, nil)
			if err != nil {
				t.Fatal(err)
			}
			joined = append(joined, pg.Rows...)
			if pg.Next == "" || page > 1000 {
				break
			}
			q.From = pg.Next
		}
		if got, want := hashes(joined), hashes(all.Rows); !slices.Equal(got, want) {
			t.Errorf("%+v: pages of 3 joined:\n%v\nwant\n%v", q, got, want)
		}
	}
}
