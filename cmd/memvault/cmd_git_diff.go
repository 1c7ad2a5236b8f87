package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/vault"
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
				printDiffMarkdown(m.Stdout, rep.Base, rep.Head, changes)
			default:
				printDiffText(m.Stdout, rep.Base, rep.Head, changes)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown section for a pull-request comment")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func countKinds(changes []history.MemoryChange) string {
	n := map[string]int{}
	for _, c := range changes {
		n[c.Kind]++
	}
	parts := make([]string, 0, 5)
	for _, k := range history.DiffKinds() {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}

// changeDetails is what changed, on one line.
func changeDetails(c history.MemoryChange) string {
	var parts []string
	if c.OldPath != "" {
		parts = append(parts, "moved from "+c.OldPath)
	}
	if c.Broken {
		parts = append(parts, "the new version does not parse (memvault lint)")
	}
	if len(c.Supersedes) > 0 {
		parts = append(parts, "supersedes "+refList(c.Supersedes))
	}
	if len(c.SupersededBy) > 0 {
		parts = append(parts, "by "+refList(c.SupersededBy))
	}
	for _, f := range c.Changes {
		switch f.Field {
		case "version", "supersedes":
		case "status":
			if c.Kind == history.KindChanged {
				parts = append(parts, fmt.Sprintf("status %s → %s", orNone(f.Old), orNone(f.New)))
			}
		case "tags", "title", "links", "effective_at", "expires_at", "importance", "layer":
			parts = append(parts, fmtChange(f))
		}
	}
	if c.Body {
		parts = append(parts, "body")
	}
	return strings.Join(parts, "; ")
}

func refList(rs []vault.Ref) string {
	var out []string
	for _, r := range rs {
		if r.Title != "" {
			out = append(out, fmt.Sprintf("%q", r.Title))
		} else {
			out = append(out, r.ID)
		}
	}
	return strings.Join(out, ", ")
}

// changeSign marks a kind in the text report, like a diff's +/-.
func changeSign(kind string) string {
	switch kind {
	case history.KindAdded:
		return "+"
	case history.KindChanged:
		return "~"
	case history.KindSuperseded:
		return "⇢"
	case history.KindArchived:
		return "▫"
	}
	return "-"
}

func printDiffText(w io.Writer, base, head string, changes []history.MemoryChange) {
	fmt.Fprintf(w, "Memory changes %s..%s: %s\n", shortHash(base), shortHash(head), countKinds(changes))
	for _, kind := range history.DiffKinds() {
		first := true
		for _, c := range changes {
			if c.Kind != kind {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n%s%s\n", strings.ToUpper(kind[:1]), kind[1:])
				first = false
			}
			fmt.Fprintf(w, "  %s %s [%s] %s\n", changeSign(kind), c.Title, c.Layer, c.ID)
			if d := changeDetails(c); d != "" {
				fmt.Fprintf(w, "      %s\n", d)
			}
			if c.Reason != "" {
				who := ""
				if c.Client != "" {
					who = " (" + c.Client + ")"
				}
				fmt.Fprintf(w, "      why%s%s\n", who, reasonSuffix(c.Reason))
			}
		}
	}
}

// changeLabel names a kind in the Markdown table.
func changeLabel(kind string) string {
	switch kind {
	case history.KindAdded:
		return "🆕 added"
	case history.KindChanged:
		return "✏️ changed"
	case history.KindSuperseded:
		return "⤵️ superseded"
	case history.KindArchived:
		return "🗄️ archived"
	}
	return "🗑️ deleted"
}

// printDiffMarkdown writes a pull-request comment section.
func printDiffMarkdown(w io.Writer, base, head string, changes []history.MemoryChange) {
	fmt.Fprintln(w, "### What the assistants learned in this branch")
	fmt.Fprintln(w)
	if len(changes) == 0 {
		fmt.Fprintf(w, "No memory changes between `%s` and `%s`.\n", shortHash(base), shortHash(head))
		return
	}
	fmt.Fprintf(w, "%s (`%s..%s`)\n\n", countKinds(changes), shortHash(base), shortHash(head))
	fmt.Fprintln(w, "| | Memory | Layer | What changed | Why |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, kind := range history.DiffKinds() {
		for _, c := range changes {
			if c.Kind != kind {
				continue
			}
			why := strings.Join(strings.Fields(c.Reason), " ")
			if why != "" {
				why = truncate(why, 200)
				if c.Client != "" {
					why += " — _" + c.Client + "_"
				}
			}
			fmt.Fprintf(w, "| %s | **%s**<br>`%s` | %s | %s | %s |\n", changeLabel(kind), mdCell(c.Title), mdCell(c.Path),
				c.Layer, mdCell(changeDetails(c)), mdCell(why))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "<sub>Generated by `memvault diff`. Superseded and archived memories stay in the vault; `memvault history ID` shows each story.</sub>")
}

// mdCell makes text safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
