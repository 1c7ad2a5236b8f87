package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/vault/history"
)

// parseRange reads BASE..HEAD or BASE (meaning BASE..HEAD).
func parseRange(arg string) (base, head string, err error) {
	if strings.Contains(arg, "...") {
		return "", "", usagef("diff: %q: three-dot ranges are not supported; use $(git merge-base A B)..B", arg)
	}
	base, head, _ = strings.Cut(arg, "..")
	if base == "" {
		return "", "", usagef("diff: %q: want BASE..HEAD or BASE", arg)
	}
	if head == "" {
		head = "HEAD"
	}
	return base, head, nil
}

func (m *Main) diffCommand() *cobra.Command {
	var markdown, asJSON bool
	cmd := &cobra.Command{
		Use:   "diff BASE..HEAD",
		Short: "Summarise the memory changes between two revisions",
		Long: `diff lists the memories added, changed (and which fields), superseded,
archived and deleted between two revisions, with the reason recorded in the
commit that changed each. BASE alone means BASE..HEAD. --markdown prints a
section for a pull-request comment.`,
		Example: `  memvault diff main..HEAD
  memvault diff origin/main --markdown > memory-changes.md`,
		Args: exactArgs(1, "BASE..HEAD"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			base, head, err := parseRange(args[0])
			if err != nil {
				return err
			}
			g, err := m.needRepo(ctx, "diff")
			if err != nil {
				return err
			}
			defer g.Close()
			rep, err := g.past(m.Now).Diff(ctx, base, head)
			var re *history.RevisionError
			if errors.As(err, &re) {
				return usagef("diff: %s: no such revision", re.Rev)
			}
			if err != nil {
				return err
			}
			changes := rep.Changes
			switch {
			case asJSON:
				if changes == nil {
					changes = []history.MemoryChange{}
				}
				return writeJSON(m.Stdout, map[string]any{"base": rep.Base, "head": rep.Head, "changes": changes})
			case markdown:
				clitext.DiffMarkdown(m.Stdout, rep.Base, rep.Head, changes)
			default:
				clitext.DiffText(m.Stdout, rep.Base, rep.Head, changes)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown section for a pull-request comment")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
