package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
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

// historyFunc reads a memory's revisions from git; current returns the
// memory's vault-relative path in the work tree, "" when it has none.
type historyFunc func(ctx context.Context, id string, current func(id string) (string, error)) (path string, revs []revision, err error)

// history serves memory_history through Main's git wiring.
func (m *Main) history(ctx context.Context, id string, current func(id string) (string, error)) (string, []revision, error) {
	g, err := m.needGitView(ctx, "memory_history")
	if err != nil {
		return "", nil, err
	}
	defer g.Close()
	rel, err := locateMemory(ctx, g, id, current)
	if err != nil {
		return "", nil, err
	}
	revs, err := memoryHistory(ctx, g, id, rel)
	return rel, revs, err
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
		cur  *vault.Memory
		rel  string
		revs []revision
		in   vaultPair
		err  error
	)
	for _, p := range pairs {
		if p.slot.history == nil {
			continue
		}
		cur, _ = p.v.Get(id)
		rel, revs, err = p.slot.history(ctx, id, func(id string) (string, error) {
			if cur == nil {
				return "", nil
			}
			return cur.Path, nil
		})
		if err != nil && !errors.Is(err, vault.ErrNotFound) && !errors.Is(err, gitstore.ErrNotFound) {
			return "", nil, toolError(err)
		}
		if cur != nil || len(revs) > 0 {
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
	out := historyOutput{ID: id, Title: historyTitle(cur, id, revs), Path: rel, Revisions: []historyEntry{},
		Supersedes: []string{}, SupersededBy: []string{}, Vault: in.slot.name}
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
