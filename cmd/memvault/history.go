package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// This file renders a memory's history for people (history); vault/history
// gathers it.

// listDelta renders the change of a list field ("[a, b]" → "[b, c]") as
// "+c −a", which reads better than two long lists of ids.
func listDelta(old, new string) string {
	parse := func(s string) []string {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if s == "" {
			return nil
		}
		return strings.Split(s, ", ")
	}
	a, b := parse(old), parse(new)
	var parts []string
	for _, x := range b {
		if !slices.Contains(a, x) {
			parts = append(parts, "+"+x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			parts = append(parts, "−"+x)
		}
	}
	if len(parts) == 0 {
		return "reordered"
	}
	return strings.Join(parts, " ")
}

// isListField reports whether a field change holds lists.
func isListField(field string) bool {
	switch field {
	case "tags", "supersedes", "links":
		return true
	}
	return false
}

// fmtChange renders one field change for people.
func fmtChange(c history.FieldChange) string {
	if isListField(c.Field) {
		return c.Field + " " + listDelta(c.Old, c.New)
	}
	return fmt.Sprintf("%s %s → %s", c.Field, orNone(c.Old), orNone(c.New))
}

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
the Memory-Id trailer of memvault's commits. The memory may be in the
project vault or the user vault (--user-vault, default ~/.memvault when it
exists), as the MCP server's memory_history finds it.`,
		Example: `  memvault history 01M1JYSK001JFGN6A8F2MM0K3R
  memvault history 01M1JYSK001JFGN6A8F2MM0K3R --json`,
		Args: exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			id := args[0]
			project, err := m.openVault(ctx)
			if err != nil {
				return err
			}
			u, err := m.userVault(ctx, user, project.Dir(), func(u *Main) (*vault.Vault, error) { return u.openVault(ctx) })
			if err != nil {
				return err
			}
			set := m.newSet(project, u)
			story, in, err := m.story(ctx, set, id)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(m.Stdout, view.HistoryOf(story, in, set.SupersededBy(id)))
			}
			printHistory(m.Stdout, story, in)
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

// printHistory writes a story as readable blocks; one told by the user
// vault says so.
func printHistory(w io.Writer, story *history.Story, vaultName string) {
	revs := story.Revisions
	where := ""
	if vaultName != vault.ProjectVault {
		where = ", in the " + vaultName + " vault"
	}
	fmt.Fprintf(w, "%s (%s)%s\n", story.Title, story.ID, where)
	if len(revs) == 0 {
		fmt.Fprintln(w, "no commits yet: the memory is not committed (L1 transient, or a hand edit; see memvault doctor)")
		return
	}
	fmt.Fprintf(w, "%s, newest first\n", plural(len(revs), "revision"))
	for _, r := range revs {
		fmt.Fprintln(w)
		who := r.Author
		if r.Client != "" {
			who += " via " + r.Client
		}
		head := fmt.Sprintf("%s  %s  %s  %s", r.Date.Format("2006-01-02 15:04 MST"), shortHash(r.Commit), who, r.Kind)
		if r.Version > 0 {
			head += fmt.Sprintf(" (version %d)", r.Version)
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "  %s\n", r.Subject)
		if r.Reason != "" {
			fmt.Fprintf(w, "  why: %s\n", indentRest(r.Reason, "       "))
		}
		if r.OldPath != "" {
			fmt.Fprintf(w, "  moved: %s → %s\n", r.OldPath, r.Path)
		}
		for _, c := range r.Changes {
			fmt.Fprintf(w, "  %s\n", fmtChange(c))
		}
		if len(r.BodyDiff) > 0 {
			fmt.Fprintln(w, "  body:")
			for _, l := range r.BodyDiff {
				fmt.Fprintf(w, "    %s\n", l)
			}
			if r.BodyDiffMore > 0 {
				fmt.Fprintf(w, "    … %d more changed lines (git show %s)\n", r.BodyDiffMore, shortHash(r.Commit))
			}
		}
	}
}

// changeSummary is view.Summary, for the MCP tools until they use the
// view package too.
func changeSummary(r history.Revision) string { return view.Summary(r) }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// indentRest indents every line after the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}
