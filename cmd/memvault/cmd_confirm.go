package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

func (m *Main) confirmCommand() *cobra.Command {
	var reason string
	var user userVaultFlags
	cmd := &cobra.Command{
		Use:   "confirm ID [--reason TEXT]",
		Short: "Record that a memory was re-checked against its code: verified_at, one commit (docs/staleness.md)",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, done, err := m.openWriteSet(cmd.Context(), user)
			if err != nil {
				return err
			}
			defer done()
			in, res, err := set.Confirm(cmd.Context(), args[0], vault.Author{Reason: reason, Client: "cli"})
			if err != nil {
				return err
			}
			m.noteWrittenTo(set, in.Name)
			_, err = fmt.Fprint(m.Stdout, clitext.Confirmed(res.Memory, view.ConfirmOf(res, in.Name, gitrepo.MemoryStaleness(cmd.Context(), set.Members(), in.Name, res.Memory))))
			return err
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "what was checked (the commit message body)")
	user.register(cmd.Flags())
	return cmd
}
