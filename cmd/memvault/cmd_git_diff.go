package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// Kinds of memory change between two revisions, in report order.
const (
	chAdded      = "added"
	chChanged    = "changed"
	chSuperseded = "superseded"
	chArchived   = "archived"
	chDeleted    = "deleted"
)

// changeKinds lists the kinds in report order.
func changeKinds() []string { return []string{chAdded, chChanged, chSuperseded, chArchived, chDeleted} }

// maxDiffReasons bounds the history lookups diff makes to find why each
// memory changed; a huge diff lists the rest without reasons.
const maxDiffReasons = 100

// memoryChange is one memory that differs between two revisions.
type memoryChange struct {
	Kind    string        `json:"kind"`
	ID      string        `json:"id"`
	Title   string        `json:"title"`
	Layer   string        `json:"layer"`
	Path    string        `json:"path"`               // vault-relative, at head (at base when deleted)
	OldPath string        `json:"old_path,omitempty"` // when moved
	Changes []fieldChange `json:"changes,omitempty"`
	Body    bool          `json:"body_changed,omitempty"`
	Broken  bool          `json:"broken,omitempty"` // the head version does not parse
	// Supersedes lists what an added or changed memory newly replaces;
	// SupersededBy what replaced a superseded one, when it is in the diff.
	Supersedes   []vault.Ref `json:"supersedes,omitempty"`
	SupersededBy []vault.Ref `json:"superseded_by,omitempty"`
	// Reason and Client come from the newest commit that changed the file.
	Reason string `json:"reason,omitempty"`
	Client string `json:"client,omitempty"`

	repoPath string
}

// diffMemories compares the vault at two revisions.
func diffMemories(ctx context.Context, g *gitView, base, head string) ([]memoryChange, error) {
	fcs, err := g.store.DiffTrees(ctx, base, head, g.dir)
	if err != nil {
		return nil, err
	}
	var out []memoryChange
	titles := map[string]string{}
	for _, fc := range fcs {
		rel, ok := g.vaultRel(fc.Path)
		if !ok || !vault.IsMemoryPath(rel) {
			continue
		}
		oldRel, _ := g.vaultRel(fc.OldPath)
		var before, after *vault.Memory
		if fc.Old != nil {
			before, _ = vault.ParseMemory(oldRel, fc.Old, time.Time{})
		}
		if fc.New != nil {
			after, _ = vault.ParseMemory(rel, fc.New, time.Time{})
		}
		c := memoryChange{Path: rel, repoPath: fc.Path}
		if fc.Kind == gitstore.Renamed {
			c.OldPath = oldRel
		}
		cur := firstMem(after, before)
		if cur == nil {
			continue // neither side is a memory file
		}
		c.ID, c.Title, c.Layer = cur.ID, cur.Title, cur.Layer.String()
		titles[c.ID] = c.Title
		switch {
		case fc.Kind == gitstore.Added:
			c.Kind = chAdded
			c.Supersedes = refs(after.Supersedes)
		case fc.Kind == gitstore.Deleted:
			c.Kind, c.Path = chDeleted, oldRel
		case after == nil:
			c.Kind, c.Broken = chChanged, true
		case before == nil:
			c.Kind = chAdded
		default:
			c.Changes = fieldChanges(before, after)
			c.Body = before.Body != after.Body
			for _, id := range after.Supersedes {
				if !containsID(before.Supersedes, id) {
					c.Supersedes = append(c.Supersedes, vault.Ref{ID: id})
				}
			}
			switch {
			case after.Status == vault.StatusSuperseded && before.Status != vault.StatusSuperseded:
				c.Kind = chSuperseded
			case after.Status == vault.StatusArchived && before.Status != vault.StatusArchived:
				c.Kind = chArchived
			default:
				c.Kind = chChanged
			}
		}
		out = append(out, c)
	}
	// Name the memories on both ends of a supersession in this diff.
	byID := map[string]int{}
	for i := range out {
		byID[out[i].ID] = i
	}
	for i := range out {
		for j, r := range out[i].Supersedes {
			out[i].Supersedes[j].Title = titles[r.ID]
			if k, ok := byID[r.ID]; ok && out[k].Kind == chSuperseded {
				out[k].SupersededBy = append(out[k].SupersededBy, vault.Ref{ID: out[i].ID, Title: out[i].Title})
			}
		}
	}
	for i := range out {
		if i == maxDiffReasons {
			break
		}
		c := &out[i]
		p := c.repoPath
		if c.Kind == chDeleted {
			p = g.repoRel(c.Path)
		}
		cs, err := g.store.History(ctx, p, gitstore.HistoryOptions{Rev: head, Limit: 1, NoRenames: true})
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			_, reason, trailers := splitMessage(cs[0].Message)
			c.Reason, c.Client = reason, firstOf(trailers["memory-client"])
		}
	}
	return out, nil
}

func refs(ids []string) []vault.Ref {
	var out []vault.Ref
	for _, id := range ids {
		out = append(out, vault.Ref{ID: id})
	}
	return out
}

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
			g, err := m.needGitView(ctx, "diff")
			if err != nil {
				return err
			}
			defer g.Close()
			var hashes [2]string
			for i, rev := range []string{base, head} {
				if hashes[i], err = g.store.Resolve(ctx, rev); err != nil {
					return usagef("diff: %s: no such revision", rev)
				}
			}
			changes, err := diffMemories(ctx, g, hashes[0], hashes[1])
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				if changes == nil {
					changes = []memoryChange{}
				}
				return writeJSON(m.Stdout, map[string]any{"base": hashes[0], "head": hashes[1], "changes": changes})
			case markdown:
				printDiffMarkdown(m.Stdout, hashes[0], hashes[1], changes)
			default:
				printDiffText(m.Stdout, hashes[0], hashes[1], changes)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print a Markdown section for a pull-request comment")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func countKinds(changes []memoryChange) string {
	n := map[string]int{}
	for _, c := range changes {
		n[c.Kind]++
	}
	parts := make([]string, 0, 5)
	for _, k := range changeKinds() {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	return strings.Join(parts, ", ")
}

// details is what changed, on one line.
func (c memoryChange) details() string {
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
			if c.Kind == chChanged {
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
	case chAdded:
		return "+"
	case chChanged:
		return "~"
	case chSuperseded:
		return "⇢"
	case chArchived:
		return "▫"
	}
	return "-"
}

func printDiffText(w io.Writer, base, head string, changes []memoryChange) {
	fmt.Fprintf(w, "Memory changes %s..%s: %s\n", shortHash(base), shortHash(head), countKinds(changes))
	for _, kind := range changeKinds() {
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
			if d := c.details(); d != "" {
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
	case chAdded:
		return "🆕 added"
	case chChanged:
		return "✏️ changed"
	case chSuperseded:
		return "⤵️ superseded"
	case chArchived:
		return "🗄️ archived"
	}
	return "🗑️ deleted"
}

// printDiffMarkdown writes a pull-request comment section.
func printDiffMarkdown(w io.Writer, base, head string, changes []memoryChange) {
	fmt.Fprintln(w, "### What the assistants learned in this branch")
	fmt.Fprintln(w)
	if len(changes) == 0 {
		fmt.Fprintf(w, "No memory changes between `%s` and `%s`.\n", shortHash(base), shortHash(head))
		return
	}
	fmt.Fprintf(w, "%s (`%s..%s`)\n\n", countKinds(changes), shortHash(base), shortHash(head))
	fmt.Fprintln(w, "| | Memory | Layer | What changed | Why |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, kind := range changeKinds() {
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
				c.Layer, mdCell(c.details()), mdCell(why))
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
