package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/sincetext"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/staleness"
)

// contextURI is the session-start digest a client can pull in.
const contextURI = "memory://context"

// contextDigestHeader starts the session-start digest.
const contextDigestHeader = "# Project memory\n"

func contextResource() mcp.Resource {
	return mcp.NewResource(contextURI, "Memory context",
		mcp.WithResourceDescription("What an assistant should know at session start: first, what changed in the memory since "+
			"this client's last session in this clone (added, changed, superseded, gone stale; who and why), then the developer's preferences, "+
			"high-importance project rules, recent task state and open conflicts, each ranked as recall ranks memories "+
			"(layer, age and importance), within about 2,000 tokens; a last line counts what it left out, by layer."),
		mcp.WithMIMEType("text/markdown"))
}

func (s *Server) readContext(ctx context.Context, _ mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	vs, err := s.readyVaults(ctx)
	if err != nil {
		return nil, err
	}
	news := s.catchUp(ctx, vs)
	d, err := vs.Digest(ctx, resultsBudgetBytes-len(contextDigestHeader)-len(news)-leftOutReserve, digestLines{})
	if err != nil {
		return nil, err
	}
	var shown []vault.SetResult
	for _, sec := range d.Sections {
		shown = append(shown, sec.Memories...)
	}
	states := s.recallStaleness(ctx, vs, shown)
	var b strings.Builder
	b.WriteString(contextDigestHeader)
	b.WriteString(news)
	for _, sec := range d.Sections {
		b.WriteString(digestLines{}.heading(sec.Title))
		for _, r := range sec.Memories {
			b.WriteString(withStaleness(digestLines{}.memory(r), states[r.Memory.ID]))
		}
		for _, p := range sec.Conflicts {
			b.WriteString(digestLines{}.conflict(p))
		}
	}
	writeMergeConflicts(&b, vs)
	writeOperation(ctx, &b, vs)
	switch {
	case d.LeftOut > 0:
		b.WriteString(leftOutLine(d))
	case len(d.Sections) == 0:
		b.WriteString("\nNo preferences, key rules or task state recorded yet.\n")
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: contextURI, MIMEType: "text/markdown", Text: b.String()}}, nil
}

// maxNews caps the entries of the "new since your last session" section;
// `memvault digest --since COMMIT` lists them all.
const maxNews = 15

// catchUp is the section the context opens with: what changed in each
// vault since this client's last session in this clone (memories added,
// changed, superseded, archived or deleted, by whom and why, and those
// gone stale), "" when nothing did or the client had no earlier session.
// Reading it moves the client's point: the next session starts from
// here. A vault that cannot say is logged and left out.
func (s *Server) catchUp(ctx context.Context, vs *openVaults) string {
	var b strings.Builder
	client := clientName(ctx)
	for _, sl := range vs.slots {
		if sl.Git == nil {
			continue
		}
		rep, err := sl.Git.CatchUp(ctx, client)
		if err != nil {
			s.logger.Warn("catch up", "vault", sl.name, "client", client, "err", err)
			continue
		}
		heading := sincetext.Heading(rep, "")
		if len(vs.slots) > 1 {
			heading += " — " + sl.name + " vault"
		}
		more := "memvault digest --since " + history.ShortHash(rep.Base)
		if rep.Base == "" {
			more = "memvault list" // the range starts at the first commit
		}
		b.WriteString(sincetext.Markdown(rep, sincetext.Options{Heading: heading, Max: maxNews, More: more}))
	}
	return b.String()
}

// withStaleness adds to a digest line a short note when the code the
// memory refers to changed since it was last written or confirmed, so an
// assistant checks the code before relying on it.
func withStaleness(line string, st staleness.Staleness) string {
	if st.State == "" || st.State == staleness.Fresh {
		return line
	}
	reason := []rune(st.Reason)
	if len(reason) > 120 {
		reason = append(reason[:119], '…')
	}
	return strings.TrimSuffix(line, "\n") + fmt.Sprintf(" [%s: %s]\n", strings.ReplaceAll(string(st.State), "_", " "), string(reason))
}

// leftOutReserve is the part of the budget kept for the line that says
// what the digest left out (leftOutLine), so the whole fits.
const leftOutReserve = 160

// leftOutLine says what the digest left out, by layer, and how to see
// it: "(12 more memories not shown: 5 L2, 7 L3; use the recall tool to
// see them)".
func leftOutLine(d vault.Digest) string {
	var parts, what []string
	n := 0
	for _, l := range vault.AllLayers() {
		if c := d.Omitted[l]; c > 0 {
			n += c
			parts = append(parts, fmt.Sprintf("%d L%d", c, int(l)))
		}
	}
	if n > 0 {
		what = append(what, plural(n, "more memory", "more memories"))
	}
	if d.OmittedConflicts > 0 {
		what = append(what, plural(d.OmittedConflicts, "open conflict", "open conflicts"))
	}
	line := "\n(" + strings.Join(what, " and ") + " not shown"
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	return line + "; use the recall tool to see them)\n"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// maxContextConflicts caps the conflicted files the context names;
// memory_stats lists them all.
const maxContextConflicts = 5

// writeMergeConflicts names the memory files a git merge left in conflict
// and what to run, so that a session does not start on half a merge.
func writeMergeConflicts(b *strings.Builder, vs *openVaults) {
	var all []view.Conflicted
	for _, m := range vs.Members() {
		for _, c := range m.Vault.Conflicted() {
			all = append(all, view.ConflictedOf(c, m.Vault.Dir()))
		}
	}
	if len(all) == 0 {
		return
	}
	b.WriteString("\n## Merge conflicts in memory files\n")
	for i, c := range all {
		if i == maxContextConflicts {
			fmt.Fprintf(b, "- … and %d more (memory_stats lists them)\n", len(all)-i)
			break
		}
		fmt.Fprintf(b, "- %s (%s): %s\n", c.Path, strings.Join(c.What, ", "), c.Fix)
	}
}

// writeOperation says when git is in the middle of a merge (or rebase...)
// in a served vault's repository: writes are refused until it ends.
func writeOperation(ctx context.Context, b *strings.Builder, vs *openVaults) {
	for _, m := range vs.Members() {
		var op *vault.OperationError
		if err := m.Vault.OperationInProgress(ctx); errors.As(err, &op) {
			fmt.Fprintf(b, "\n## A git %s is under way (%s vault)\n%s\n", op.Op, m.Name, op.Error())
		}
	}
}

// digestLines renders the digest's parts (vault.Set.Digest decides what
// goes in), and measures them for its budget.
type digestLines struct{}

func (digestLines) heading(title string) string { return "\n## " + title + "\n" }

func (digestLines) memory(r vault.SetResult) string {
	line := fmt.Sprintf("- %s (%s): %s", r.Memory.Title, r.Memory.ID, oneLine(r.Snippet))
	if len(r.Supersedes) > 0 {
		// Ids only: the digest leaves the old rules' wording out.
		ids := make([]string, 0, len(r.Supersedes))
		for _, ref := range r.Supersedes {
			ids = append(ids, ref.ID)
		}
		line += " (replaces " + strings.Join(ids, ", ") + ")"
	}
	return line + "\n"
}

func (digestLines) conflict(p [2]string) string {
	return fmt.Sprintf("- %s may conflict with %s\n", p[0], p[1])
}

func (l digestLines) Heading(title string) int     { return len(l.heading(title)) }
func (l digestLines) Memory(r vault.SetResult) int { return len(l.memory(r)) }
func (l digestLines) Conflict(p [2]string) int     { return len(l.conflict(p)) }
