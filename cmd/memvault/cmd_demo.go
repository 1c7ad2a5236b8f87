package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/demo"
	"github.com/memvault/memvault/cmd/memvault/internal/samplehistory"
)

func (m *Main) demoCommand() *cobra.Command {
	var o demo.Options
	cmd := &cobra.Command{
		Use: "demo", Short: demo.Short, Long: demo.Long, Example: demo.Example,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("working directory: %w", err)
			}
			o.SearchDirs = []string{wd}
			if root, ok := gitRoot(wd); ok {
				o.SearchDirs = append(o.SearchDirs, root)
			}
			o.Replay, o.Stdout, o.ClientVersion = samplehistory.Replay, m.Stdout, m.Version
			err = demo.Run(cmd.Context(), o)
			if errors.Is(err, demo.ErrNoSample) {
				return usageError{err}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&o.Sample, "sample", "", "the sample vault folder (default: sample-vault in the working directory or at its git root)")
	cmd.Flags().BoolVar(&o.Keep, "keep", false, "keep the temporary repository and print its path")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print one JSON object per step (request, response, check) instead of the readable transcript")
	return cmd
}
