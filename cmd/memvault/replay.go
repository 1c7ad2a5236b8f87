package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
	"github.com/memvault/memvault/gitstore"
)

func (m *Main) sampleHistoryCommand() *cobra.Command {
	var sample string
	cmd := &cobra.Command{
		Use:    "sample-history DIR",
		Short:  "Create a git repository at DIR whose history is the sample vault's",
		Hidden: true,
		Long: `sample-history replays sample-vault/history.json into a new git repository
at DIR: one commit per step, dated as in the sample, with memvault's commit
messages, so history, why, diff and recall --as-of have a past to show.`,
		Example: `  memvault sample-history /tmp/shopflow --sample sample-vault
  cd /tmp/shopflow && memvault why "订单有哪些状态"`,
		Args: exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := samplehistory.Replay(ctx, sample, args[0]); err != nil {
				return err
			}
			store, err := gitstore.Open(ctx, args[0])
			if err != nil {
				return err
			}
			defer store.Close()
			head, err := store.Resolve(ctx, "HEAD")
			if err != nil {
				return err
			}
			fmt.Fprintf(m.Stdout, "replayed the sample history into %s (HEAD %s)\n", filepath.Join(args[0], samplehistory.VaultDir), shortHash(head))
			return nil
		},
	}
	cmd.Flags().StringVar(&sample, "sample", "sample-vault", "the sample vault folder holding history.json")
	return cmd
}
