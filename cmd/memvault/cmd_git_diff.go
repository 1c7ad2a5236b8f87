package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/vault/history"
)

// parseRange reads BASE..HEAD, BASE...HEAD (the same: both compare from
// the merge base) or BASE (meaning BASE..HEAD).
func parseRange(arg string) (base, head string, err error) {
	base, head, ok := strings.Cut(arg, "...")
	if !ok {
		base, head, _ = strings.Cut(arg, "..")
	}
	if base == "" || strings.HasPrefix(head, ".") {
		return "", "", usagef("diff: %q: want BASE..HEAD, BASE...HEAD or BASE", arg)
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
		Long: `diff lists the memories HEAD added, changed (and which fields), superseded,
archived and deleted since it forked from BASE, with the reason recorded in
the commit that changed each. Like git diff BASE...HEAD, it compares from
the merge base of the two revisions, so what BASE did meanwhile (main moving
on while a branch is reviewed) is not shown as HEAD deleting or undoing it;
BASE..HEAD and BASE...HEAD mean the same, and BASE alone means BASE..HEAD.
Memories are matched by id, wherever their files moved. --markdown prints a
section for a pull-request comment: a table, then each memory's body diff in
a collapsed block.`,
		Example: `  memvault diff main..HEAD
  memvault diff main...feature --json
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
				return writeJSON(m.Stdout, map[string]any{"base": rep.Base, "head": rep.Head, "merge_base": rep.From, "changes": changes})
			case markdown:
				clitext.DiffMarkdown(m.Stdout, rep.From, rep.Head, changes)
			default:
				clitext.DiffText(m.Stdout, rep.From, rep.Head, changes)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown section for a pull-request comment")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
