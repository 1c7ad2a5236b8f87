package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/staleness"
)

// whyJSON is why's report as JSON.
type whyJSON struct {
	Query    string                `json:"query"`
	Memory   view.Memory           `json:"memory"`
	State    string                `json:"state"`
	Replaced []history.Replacement `json:"supersedes"`
	// History is null outside git.
	History []view.Revision `json:"history"`
	// Rivals carry recall's name for them at both doors.
	Rivals []view.Ref `json:"possible_conflict"`
	InGit  bool       `json:"in_git"`
}

func (m *Main) whyCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "why QUERY",
		Short: "Tell the story of the memory that best answers a question",
		Long: `why recalls the memory that best answers QUERY and tells its story: what it
replaced (the supersession chain, with when and why each rule was replaced,
from the commit messages), how it changed over time, and which other
memories look like rival rules on the same subject (possible conflicts to
settle with a person). Outside git the story has no dates or reasons.`,
		Example: `  memvault why "订单有哪些状态"
  memvault why "api error format" --json`,
		Args: exactArgs(1, "QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			v, err := m.openVault(ctx)
			if err != nil {
				return err
			}
			var past *history.Reader // nil outside git
			g, err := m.openRepo(ctx)
			switch {
			case err == nil:
				defer g.Close()
				past = g.past(m.Now)
			case !errors.Is(err, gitstore.ErrNotRepository):
				return fmt.Errorf("open git repository: %w", err)
			}
			rep, err := history.Why(ctx, v, past, args[0])
			if errors.Is(err, history.ErrNoMatch) {
				return usagef("why: no memory in force matches %q", args[0])
			}
			if err != nil {
				return err
			}
			st := staleness.OfMemory(ctx, gitrepo.OpenChecker, m.newSet(v, nil).Members(), vault.ProjectVault, rep.Memory)
			if asJSON {
				mem := rep.Memory
				out := whyJSON{Query: rep.Query, State: rep.State, Replaced: rep.Replaced, Rivals: view.Refs(rep.Rivals), InGit: rep.InGit,
					Memory: view.MemoryWith(mem, vault.ProjectVault, v.Related(mem), m.newSet(v, nil).SupersededBy(mem.ID), st)}
				if out.Replaced == nil {
					out.Replaced = []history.Replacement{}
				}
				if out.InGit {
					out.History = make([]view.Revision, 0, len(rep.History))
					for _, r := range rep.History {
						out.History = append(out.History, view.RevisionOf(r))
					}
				}
				return writeJSON(m.Stdout, out)
			}
			clitext.Why(m.Stdout, rep, view.StalenessOf(st, rep.Memory.ID))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
