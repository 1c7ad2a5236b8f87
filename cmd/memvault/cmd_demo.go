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
		Use:   "demo",
		Short: "Run a scripted MCP session against a copy of the sample vault",
		Long: `demo shows memvault working end to end. It replays sample-vault/ and its
history into a temporary git repository, starts "memvault serve" there as a
child process (as Claude Code or Cursor would), and drives it over stdio with
an MCP client: tools/list, a recall in Chinese and one in English, a remember
that supersedes two rival rules (one git commit), memory_history explaining
why, and the memory://context digest. Each step checks its answer; the
command exits 0 only when every step behaved.`,
		Example: `  go run ./cmd/memvault demo
  memvault demo --keep      # keep the repository and print its path
  memvault demo --json      # one JSON object per step: request, response, check`,
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
