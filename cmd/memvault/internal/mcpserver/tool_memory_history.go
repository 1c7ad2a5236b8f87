package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault/history"
)

func memoryHistoryTool() mcp.Tool {
	return mcp.NewTool("memory_history", append(readOnly("Memory history"),
		mcp.WithDescription(`Show how a memory came to be: every commit that changed it, newest first, with date, client, `+
			`reason and what changed, plus the memories it replaced and the ones that replaced it. Call it to answer `+
			`"why do we do it this way?" or before changing a rule others relied on. Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A"}`),
		strictOutputSchema[view.History]())...)
}

func (s *Server) memoryHistory(ctx context.Context, vs *openVaults, a idArgs) (string, any, error) {
	id := strings.TrimSpace(a.ID)
	story, from, err := history.FindStory(ctx, id, vs.holders())
	if err != nil {
		return "", nil, toolError(err)
	}
	out := view.HistoryOf(story, from, vs.SupersededBy(id))
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", out.Title, id)
	for _, r := range out.Revisions {
		client := r.Client
		if client == "" {
			client = "(none)"
		}
		fmt.Fprintf(&b, "- %s %s by %s via %s: %s", r.Date, history.ShortHash(r.Commit), r.Author, client, r.Summary)
		if r.Reason != "" {
			fmt.Fprintf(&b, "; why: %s", oneLine(r.Reason))
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
