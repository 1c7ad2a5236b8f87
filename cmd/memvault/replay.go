package main

import (
	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
)

func (m *Main) sampleHistoryCommand() *cobra.Command {
	var sample string
	cmd := &cobra.Command{Use: "sample-history DIR", Short: samplehistory.Short, Hidden: true, Long: samplehistory.Long,
		Example: samplehistory.Example, Args: exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return samplehistory.ReplayTo(cmd.Context(), m.Stdout, sample, args[0])
		},
	}
	cmd.Flags().StringVar(&sample, "sample", "sample-vault", "the sample vault folder holding history.json")
	return cmd
}
