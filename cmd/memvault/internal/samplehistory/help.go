package samplehistory

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/history"
)

// Short, Long and Example are `memvault help sample-history`.
const (
	Short = "Create a git repository at DIR whose history is the sample vault's"
	Long  = `sample-history replays sample-vault/history.json into a new git repository
at DIR: one commit per step, dated as in the sample, with memvault's commit
messages, so history, why, diff and recall --as-of have a past to show. The
fictional project's code is committed in between, so the memories' refs have
a history: some memories are stale on it (memvault review lists them).`
	Example = `  memvault sample-history /tmp/shopflow --sample sample-vault
  cd /tmp/shopflow && memvault why "订单有哪些状态" && memvault review`
)

// ReplayTo is the sample-history command: Replay, then a line on w naming
// the vault and the new HEAD.
func ReplayTo(ctx context.Context, w io.Writer, sampleDir, repoDir string) error {
	if err := Replay(ctx, sampleDir, repoDir); err != nil {
		return err
	}
	store, err := gitstore.Open(ctx, repoDir)
	if err != nil {
		return err
	}
	defer store.Close()
	head, err := store.Resolve(ctx, "HEAD")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "replayed the sample history into %s (HEAD %s)\n", filepath.Join(repoDir, VaultDir), history.ShortHash(head))
	return err
}
