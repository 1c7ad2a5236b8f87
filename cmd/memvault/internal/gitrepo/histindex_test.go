package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/history"
)

// TestIndexedStoriesAreTheFullWalks tells every memory's story of the
// replayed sample vault with the history index and without it: the same
// stories (revisions, reasons, merges, damaged marks), for memories still
// there and deleted ones. A second Repo starts from the saved index.
func TestIndexedStoriesAreTheFullWalks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	root := t.TempDir()
	ctx := t.Context()
	if err := samplehistory.Replay(ctx, filepath.Join("..", "..", "..", "..", "sample-vault"), root); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, samplehistory.VaultDir)
	s := openStore(t, root)
	full, err := New(s, dir)
	if err != nil {
		t.Fatal(err)
	}
	full.noHist = true
	// Every id any commit names.
	cs, err := s.History(ctx, dir, gitstore.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		for _, tr := range commitmsg.Parse(c.Message).Trailers {
			if tr.Key == commitmsg.KeyID && !slices.Contains(ids, tr.Value) {
				ids = append(ids, tr.Value)
			}
		}
	}
	if len(ids) < 10 {
		t.Fatalf("the sample history names %d memories", len(ids))
	}
	for round := range 2 {
		indexed, err := New(openStore(t, root), dir)
		if err != nil {
			t.Fatal(err)
		}
		deleted := 0
		for _, id := range ids {
			cur, err := history.FindMemoryFile(ctx, dir, id)
			if err != nil {
				t.Fatal(err)
			}
			if cur == nil {
				deleted++
			}
			want, werr := full.Past(nil).History(ctx, id, cur)
			got, gerr := indexed.Past(nil).History(ctx, id, cur)
			if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, %s: with the index %+v (%v)\nwithout %+v (%v)", round, id, got, gerr, want, werr)
			}
		}
		out, err := exec.Command("git", "-C", root, "rev-list", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		if indexed.hist == nil || indexed.hist.Snapshot().Len() != len(strings.Fields(string(out))) {
			t.Fatalf("round %d: the index was not used", round)
		}
		if _, err := os.Stat(indexed.historyIndexPath()); err != nil {
			t.Fatalf("round %d: the index was not saved: %v", round, err)
		}
		if deleted == 0 {
			t.Errorf("no memory of the sample history is deleted: the deleted path is not compared")
		}
	}
}
