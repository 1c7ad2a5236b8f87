package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// listArgs are the arguments of list_memories.
type listArgs struct {
	Layers   []vault.Layer  `json:"layers,omitempty" jsonschema:"Only these layers. Default: all."`
	Statuses []vault.Status `json:"statuses,omitempty" jsonschema:"Only memories in these states now: active (in force), archived, superseded, expired, future (not yet effective). Default: all."`
	Tags     []string       `json:"tags,omitempty" jsonschema:"Only memories carrying at least one of these tags."`
	Limit    int            `json:"limit,omitempty" min:"1" max:"200" jsonschema:"Most memories to return (1..200, default 50)."`
}

// defaultListLimit is how many memories list_memories returns when the
// call sets no limit.
const defaultListLimit = 50

func listMemoriesTool() mcp.Tool {
	return mcp.NewTool("list_memories", append(readOnly("List memories"),
		mcp.WithDescription(`List the memories of the project vault and the user vault, most recently updated first, by layer, `+
			`state and tag, without a query: an inventory, not a search (use recall to find what answers a question). `+
			`Every state is listed unless statuses says otherwise, each result saying its status and vault. `+layerHelp+
			` Example: {"layers": ["short-term"], "statuses": ["active"]}`),
		strictOutputSchema[view.Recall]())...)
}

func (s *Server) listMemories(_ context.Context, vs *openVaults, a listArgs) (string, any, error) {
	limit := a.Limit
	if limit == 0 {
		limit = defaultListLimit
	}
	rs := vs.List(vault.ListQuery{Layers: a.Layers, Statuses: a.Statuses, Tags: a.Tags, Limit: limit + 1})
	text, shown := renderResults(view.RecallOf(rs[:min(limit, len(rs))]).Results, "No memories match.", "filter by layer, status or tag")
	if len(rs) > limit && len(shown) == limit {
		text += "\n(more memories match: raise limit, up to 200, or filter by layer, status or tag)"
	}
	return text, view.Recall{Results: shown}, nil
}
