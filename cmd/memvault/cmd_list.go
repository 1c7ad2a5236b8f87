package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// defaultListLimit is list's --limit, as the MCP list_memories tool's
// default.
const defaultListLimit = 50

func (m *Main) listCommand() *cobra.Command {
	var layers, states, tags []string
	var limit int
	var asJSON bool
	var user userVaultFlags
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories by layer, state and tag, newest first",
		Long: `list is an inventory, not a search (recall answers questions): the memories of
the project vault and the user vault (--user-vault, default ~/.memvault when
it exists and is in a git repository), most recently updated first, one line
each: layer, state, version, title, id and path. Every state is listed
unless --status says otherwise: active (in force), archived, superseded,
expired, future (not yet effective). --json prints what the MCP server's
list_memories answers.`,
		Example: `  memvault list --layer short-term --status active
  memvault list --tag checkout --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			q := vault.ListQuery{Tags: tags}
			for _, s := range layers {
				l, err := vault.ParseLayer(s)
				if err != nil {
					return usagef("--layer: %v", err)
				}
				q.Layers = append(q.Layers, l)
			}
			for _, s := range states {
				st, err := vault.ParseState(s)
				if err != nil {
					return usagef("--status: %v", err)
				}
				q.Statuses = append(q.Statuses, st)
			}
			if limit < 0 {
				return usagef("--limit: %d is negative", limit)
			}
			if limit > 0 {
				q.Limit = limit + 1 // one more tells whether there are more
			}
			set, err := m.openReadSet(cmd.Context(), user)
			if err != nil {
				return err
			}
			rs := set.List(q)
			more := limit > 0 && len(rs) > limit
			if more {
				rs = rs[:limit]
			}
			if asJSON {
				return writeJSON(m.Stdout, view.RecallOf(rs))
			}
			clitext.List(m.Stdout, rs)
			if more {
				fmt.Fprintf(m.Stderr, "memvault: more memories match: raise --limit (0 lists all) or filter by --layer, --status or --tag\n")
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&layers, "layer", nil, "only these layers: transient|short-term|project|preference|meta or 1-5 (repeat or comma-separate)")
	fl.StringSliceVar(&states, "status", nil, "only memories in these states now: active|archived|superseded|expired|future")
	fl.StringSliceVar(&tags, "tag", nil, "only memories carrying at least one of these tags")
	fl.IntVar(&limit, "limit", defaultListLimit, "how many memories at most; 0 lists all")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	user.register(fl)
	return cmd
}
