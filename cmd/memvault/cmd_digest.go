package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/sincetext"
)

func (m *Main) digestCommand() *cobra.Command {
	var sinceArg string
	var asJSON, markdown bool
	cmd := &cobra.Command{
		Use:   "digest [--since LAST|DATE|COMMIT] [--json|--markdown]",
		Short: "What changed in the vault since your last digest, a date or a commit: who and why (docs/staleness.md)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			v, err := m.openVault(ctx)
			if err != nil {
				return err
			}
			g, err := m.needRepo(ctx, "digest")
			if err != nil {
				return err
			}
			defer g.Close()
			rep, err := g.CatchUp(ctx, gitrepo.CatchUp{Client: "cli", Since: sinceArg, Now: m.Now(), Advance: true, Checker: g.Checker(), All: v.All})
			if errors.Is(err, gitrepo.ErrBadSince) {
				return usagef("digest: %v", err)
			} else if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(m.Stdout, rep)
			}
			_, err = fmt.Fprint(m.Stdout, sincetext.ForCLI(rep, sinceArg, markdown))
			return err
		},
	}
	cmd.Flags().StringVar(&sinceArg, "since", gitrepo.SinceLast, "LAST (the last digest of the CLI in this clone; moves it to now), a date (2026-11-30) or a commit")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown section for an issue or a pull request")
	return cmd
}
