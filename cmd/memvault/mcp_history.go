package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// historyEntry is one commit in a memory's history as the model sees it.
type historyEntry struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Author  string `json:"author"`
	Client  string `json:"client"`
	Reason  string `json:"reason"`
	Subject string `json:"subject"`
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	Summary string `json:"summary"`
}

type historyOutput struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Path         string         `json:"path"`
	Revisions    []historyEntry `json:"revisions"`
	Supersedes   []string       `json:"supersedes"`
	SupersededBy []string       `json:"superseded_by"`
	// Vault says where the memory lives: project or user.
	Vault string `json:"vault"`
}

func memoryHistoryTool() mcp.Tool {
	return mcp.NewTool("memory_history",
		mcp.WithDescription(`Show how a memory came to be: every commit that changed it, newest first, with date, client, `+
			`reason and what changed, plus the memories it replaced and the ones that replaced it. Call it to answer `+
			`"why do we do it this way?" or before changing a rule others relied on. Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A"}`),
		mcp.WithString("id", mcp.Required(), mcp.Description("The memory's id (it may have been deleted since).")),
		mcp.WithSchemaAdditionalProperties(false),
		strictOutputSchema[historyOutput](),
		mcp.WithTitleAnnotation("Memory history"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

// historyFunc tells a memory's story from git; cur is the memory as the
// served vault has it, nil when it has none.
type historyFunc func(ctx context.Context, id string, cur *vault.Memory) (*history.Story, error)

// servedHistory serves memory_history for the vault at dir, opening its
// repository for each call.
func (m *Main) servedHistory(dir string) historyFunc {
	return func(ctx context.Context, id string, cur *vault.Memory) (*history.Story, error) {
		g, err := needRepoAt(ctx, dir, "memory_history")
		if err != nil {
			return nil, err
		}
		defer g.Close()
		return g.past(m.Now).History(ctx, id, cur)
	}
}

// servedAsOf reads the vault at dir as recorded at an instant, as the
// CLI's recall --as-of does, and logs what it read.
func (m *Main) servedAsOf(dir, name string, logger *slog.Logger) func(ctx context.Context, at time.Time) (*vault.Vault, error) {
	return func(ctx context.Context, at time.Time) (*vault.Vault, error) {
		return m.pastVault(ctx, dir, "", at, func(note string) { logger.Info(note, "vault", name) })
	}
}

func (t *mcpTools) memoryHistory(ctx context.Context, vs *openVaults, a *toolArgs) (string, any, error) {
	id, _ := a.str("id", true)
	if err := a.done(); err != nil {
		return "", nil, err
	}
	id = strings.TrimSpace(id)
	// The vault that holds the memory answers; a deleted memory is
	// looked for in each vault's history, project first.
	pairs := vs.each()
	if p, _, err := vs.find(id); err == nil {
		pairs = []vaultPair{p}
	}
	var (
		cur   *vault.Memory
		story *history.Story
		in    vaultPair
		err   error
	)
	for _, p := range pairs {
		if p.slot.history == nil {
			continue
		}
		cur, _ = p.v.Get(id)
		story, err = p.slot.history(ctx, id, cur)
		if err != nil && !errors.Is(err, vault.ErrNotFound) && !errors.Is(err, history.ErrNotFound) {
			return "", nil, toolError(err)
		}
		if cur != nil || (story != nil && len(story.Revisions) > 0) {
			in = p
			break
		}
	}
	if in.v == nil {
		if pairs[0].slot.history == nil {
			return "", nil, fmt.Errorf("memory_history: this vault has no git history")
		}
		return "", nil, toolError(fmt.Errorf("%w: %s", vault.ErrNotFound, id))
	}
	out := historyOutput{ID: id, Title: id, Revisions: []historyEntry{},
		Supersedes: []string{}, SupersededBy: []string{}, Vault: in.slot.name}
	var revs []history.Revision
	if story != nil {
		out.Title, out.Path, revs = story.Title, story.Path, story.Revisions
	} else if cur != nil {
		out.Title, out.Path = cur.Title, cur.Path
	}
	if cur != nil {
		out.Supersedes = orEmpty(cur.Supersedes)
	}
	out.SupersededBy = append(out.SupersededBy, vs.SupersededBy(id)...)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", out.Title, id)
	for _, r := range revs {
		e := historyEntry{Commit: r.Commit, Date: fmtInstant(r.Date), Author: r.Author, Client: r.Client, Reason: r.Reason,
			Subject: r.Subject, Kind: r.Kind, Version: r.Version, Summary: changeSummary(r)}
		out.Revisions = append(out.Revisions, e)
		fmt.Fprintf(&b, "- %s %s by %s via %s: %s", e.Date, shortHash(e.Commit), e.Author, orNone(e.Client), e.Summary)
		if e.Reason != "" {
			fmt.Fprintf(&b, "; why: %s", oneLine(e.Reason))
		}
		b.WriteString("\n")
	}
	if len(out.Supersedes) > 0 {
		fmt.Fprintf(&b, "replaces: %s\n", strings.Join(out.Supersedes, ", "))
	}
	if len(out.SupersededBy) > 0 {
		fmt.Fprintf(&b, "replaced by: %s\n", strings.Join(out.SupersededBy, ", "))
	}
	return strings.TrimRight(b.String(), "\n"), out, nil
}
