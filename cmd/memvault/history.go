package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// This file renders a memory's history for people (history); vault/history
// gathers it.

func (m *Main) historyCommand() *cobra.Command {
	var asJSON bool
	var user userVaultFlags
	cmd := &cobra.Command{
		Use:   "history ID",
		Short: "List every commit that changed a memory, newest first",
		Long: `history lists the commits that touched a memory, newest first, following it
when it moved between layer folders: when, who (author and client), why (the
commit message body), which fields changed and a short diff of its body.
The memory may have been deleted since; its history is still found through
the Memory-Id trailer of memvault's commits. A merge commit appears only
where its version differs from both parents', as "merged", with the reasons
of the last commit on each side since the merge base (docs/team.md). The memory may be in the
project vault or the user vault (--user-vault, default ~/.memvault when it
exists), as the MCP server's memory_history finds it.`,
		Example: `  memvault history 01M1JYSK001JFGN6A8F2MM0K3R
  memvault history 01M1JYSK001JFGN6A8F2MM0K3R --json`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id := args[0]
			// The memory may have been deleted since: no vault here is no
			// reason to refuse.
			set, err := m.openLiveSet(ctx, user, m.openVault)
			if err != nil {
				return err
			}
			story, in, err := m.story(ctx, set, id)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(m.Stdout, view.HistoryOf(story, in, set.SupersededBy(id)))
			}
			clitext.History(m.Stdout, story, in)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	user.register(cmd.Flags())
	return cmd
}

// story tells memory id's story from the history of the vault of the set
// that holds it, or, for a memory deleted since, of the first whose
// history knows it, and names that vault.
func (m *Main) story(ctx context.Context, set *vault.Set, id string) (*history.Story, string, error) {
	var holders []history.Holder
	for _, mb := range set.Members() {
		h := history.Holder{Name: mb.Name, Vault: mb.Vault}
		g, err := openRepoAt(ctx, mb.Vault.Dir())
		switch {
		case err == nil:
			defer g.Close()
			h.Teller = g.past(m.Now)
		case !errors.Is(err, gitstore.ErrNotRepository):
			return nil, "", fmt.Errorf("open git repository: %w", err)
		}
		holders = append(holders, h)
	}
	story, name, err := history.FindStory(ctx, id, holders)
	if errors.Is(err, history.ErrNoHistory) {
		return nil, "", usagef("history needs the vault to be in a git repository; this one is not")
	}
	return story, name, err
}
