package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// whyHistoryLines caps the condensed history in why's report.
const whyHistoryLines = 8

// whyJSON is why's report as JSON.
type whyJSON struct {
	Query    string                `json:"query"`
	Memory   view.Memory           `json:"memory"`
	State    string                `json:"state"`
	Replaced []history.Replacement `json:"supersedes"`
	// History is null outside git.
	History []view.Revision `json:"history"`
	Rivals  []view.Ref      `json:"possible_conflicts"`
	InGit   bool            `json:"in_git"`
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
			if asJSON {
				mem := rep.Memory
				out := whyJSON{Query: rep.Query, State: rep.State, Replaced: rep.Replaced, Rivals: view.Refs(rep.Rivals), InGit: rep.InGit,
					Memory: view.MemoryOf(mem, vault.ProjectVault, v.Related(mem), m.newSet(v, nil).SupersededBy(mem.ID))}
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
			printWhy(m.Stdout, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printWhy writes the report as a short readable story.
func printWhy(w io.Writer, rep *history.Report) {
	mem := rep.Memory
	fmt.Fprintf(w, "%s\n", mem.Title)
	fmt.Fprintf(w, "  %s · %s · L%d %s · importance %d · version %d · %s\n",
		mem.ID, mem.Path, int(mem.Layer), mem.Layer, mem.Importance, mem.Version, rep.State)
	line := "  created " + mem.CreatedAt.UTC().Format("2006-01-02")
	if !mem.UpdatedAt.Equal(mem.CreatedAt) {
		line += ", last changed " + mem.UpdatedAt.UTC().Format("2006-01-02")
	}
	if !mem.EffectiveAt.IsZero() {
		line += ", in force from " + mem.EffectiveAt.UTC().Format("2006-01-02")
	}
	if !mem.ExpiresAt.IsZero() {
		line += ", expires " + mem.ExpiresAt.UTC().Format("2006-01-02")
	}
	fmt.Fprintln(w, line)

	fmt.Fprintln(w, "\nWhat it replaced")
	if len(rep.Replaced) == 0 {
		fmt.Fprintln(w, "  nothing: it supersedes no earlier memory")
	}
	printChain(w, rep.Replaced, "  ")

	fmt.Fprintln(w, "\nHow it changed")
	switch {
	case !rep.InGit:
		fmt.Fprintln(w, "  unknown: the vault is not in a git repository")
	case len(rep.History) == 0:
		fmt.Fprintln(w, "  not committed yet")
	default:
		for i, r := range rep.History {
			if i == whyHistoryLines {
				fmt.Fprintf(w, "  … %d older (memvault history %s)\n", len(rep.History)-i, mem.ID)
				break
			}
			fmt.Fprintf(w, "  %s  %-11s  %s%s\n", r.Date.Format("2006-01-02"), orDash(r.Client), view.Summary(r), reasonSuffix(r.Reason))
		}
	}

	fmt.Fprintln(w, "\nPossible rivals")
	if len(rep.Rivals) == 0 {
		fmt.Fprintln(w, "  none among the top results")
	}
	for _, r := range rep.Rivals {
		fmt.Fprintf(w, "  ⚠ %s (%s): neither supersedes the other; ask which rule holds\n", orDash(r.Title), r.ID)
	}
}

func printChain(w io.Writer, reps []history.Replacement, indent string) {
	for _, r := range reps {
		title := r.Title
		if title == "" {
			title = "(unknown title)"
		}
		state := r.Status
		if r.Missing {
			state = "no longer in the vault"
		}
		fmt.Fprintf(w, "%s↳ %s (%s)%s\n", indent, title, r.ID, prefixed(" — ", state))
		if r.Replaced != nil {
			fmt.Fprintf(w, "%s    replaced %s%s\n", indent, noteLine(r.Replaced), reasonSuffix(r.Replaced.Reason))
		}
		if r.Marked != nil && (r.Replaced == nil || r.Marked.Commit != r.Replaced.Commit) {
			fmt.Fprintf(w, "%s    marked superseded %s%s\n", indent, noteLine(r.Marked), reasonSuffix(r.Marked.Reason))
		}
		printChain(w, r.Supersedes, indent+"    ")
	}
}

func noteLine(n *history.Note) string {
	s := n.Date.Format("2006-01-02 15:04")
	if n.Client != "" {
		s += " by " + n.Client
	}
	return s + " in " + shortHash(n.Commit)
}

// reasonSuffix renders a commit reason on one line after a colon.
func reasonSuffix(reason string) string {
	reason = strings.Join(strings.Fields(reason), " ")
	if reason == "" {
		return ""
	}
	return ": " + truncate(reason, 160)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
