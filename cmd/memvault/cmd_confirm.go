package main

import (
	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

func (m *Main) confirmCommand() *cobra.Command {
	var f writeFlags
	cmd := &cobra.Command{
		Use:   "confirm ID [--reason TEXT]",
		Short: "Record that a memory was re-checked against its code: verified_at, one commit (docs/staleness.md)",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, done, err := m.openWriteSet(cmd.Context(), f.user, false)
			if err != nil {
				return err
			}
			defer done()
			in, res, err := set.Confirm(cmd.Context(), args[0], vault.Author{Reason: f.reason, Client: "cli"})
			if err != nil {
				return err
			}
			m.noteWrittenTo(set, in.Name)
			out := view.ConfirmOf(res, in.Name, staleness.OfMemory(cmd.Context(), gitrepo.OpenChecker, set.Members(), in.Name, res.Memory))
			if f.asJSON {
				return writeJSON(m.Stdout, out)
			}
			return clitext.Confirmed(m.Stdout, res.Memory, out)
		},
	}
	cmd.Flags().StringVar(&f.reason, "reason", "", "what was checked (the commit message body)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, `print {"id", "verified_at", "commit", "vault", "staleness"} as JSON, as the MCP tool confirm_memory answers`)
	f.user.register(cmd.Flags())
	return cmd
}
