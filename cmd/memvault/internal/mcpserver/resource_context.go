package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/digesttext"
	"github.com/memvault/memvault/cmd/memvault/internal/sincetext"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/digest"
	"github.com/memvault/memvault/vault/history"
)

// contextURI is the session-start digest a client can pull in.
const contextURI = "memory://context"

// contextDigestHeader starts the session-start digest.
const contextDigestHeader = "# Project memory\n"

func contextResource() mcp.Resource {
	return mcp.NewResource(contextURI, "Memory context",
		mcp.WithResourceDescription("What an assistant should know at session start: first, what changed in the memory since "+
			"this client's last session in this clone (added, changed, superseded, gone stale; who and why), then the developer's preferences, "+
			"high-importance project rules, the project decisions of the last 7 days, recent task state and open conflicts, each ranked as recall ranks memories "+
			"(layer, age and importance), within about 2,000 tokens; a last line counts what it left out, by layer."),
		mcp.WithMIMEType("text/markdown"))
}

func (s *Server) readContext(ctx context.Context, _ mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	vs, err := s.readyVaults(ctx)
	if err != nil {
		return nil, err
	}
	news := s.catchUp(ctx, vs)
	lines := digesttext.Lines{}
	d, err := digest.Build(ctx, vs, resultsBudgetBytes-len(contextDigestHeader)-len(news)-digesttext.LeftOutReserve, lines)
	if err != nil {
		return nil, err
	}
	states := s.recallStaleness(ctx, vs, digesttext.Shown(d))
	var b strings.Builder
	b.WriteString(contextDigestHeader)
	b.WriteString(news)
	lines.Write(&b, d, states)
	writeMergeConflicts(&b, vs)
	writeOperation(ctx, &b, vs)
	s.writeSync(&b)
	switch {
	case d.LeftOut > 0:
		b.WriteString(digesttext.LeftOutLine(d))
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

// writeSync says when the team server's last sync round failed or left
// memory files with errors out, so that a session does not start on a
// server that silently stopped syncing.
func (s *Server) writeSync(b *strings.Builder) {
	if s.syncStatus == nil {
		return
	}
	st := s.syncStatus()
	if st == nil || st.OK && len(st.Broken) == 0 {
		return
	}
	b.WriteString("\n## Team sync\n")
	if !st.OK {
		fmt.Fprintf(b, "- the last sync (%s) failed at its %s step: %s\n", st.At, st.Step, st.Error)
	}
	for _, l := range st.Broken {
		fmt.Fprintf(b, "- broken memory file: %s\n", l)
	}
}
