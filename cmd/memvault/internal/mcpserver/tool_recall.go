package mcpserver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// recallArgs are the arguments of recall.
type recallArgs struct {
	Query           string        `json:"query,omitempty" jsonschema:"What to look for, in any language (\"部署脚本在哪\", \"test runner\"): the question, at most 8 KiB. Empty: recent memories. Alias: q."`
	Q               string        `json:"q,omitempty" alias:"query" jsonschema:"Alias of query."`
	Limit           int           `json:"limit,omitempty" min:"1" max:"50" jsonschema:"Most results to return (1..50, default 8). Aliases: k, top_k."`
	K               int           `json:"k,omitempty" alias:"limit" min:"1" max:"50" jsonschema:"Alias of limit."`
	TopK            int           `json:"top_k,omitempty" alias:"limit" min:"1" max:"50" jsonschema:"Alias of limit."`
	Layers          []vault.Layer `json:"layers,omitempty" jsonschema:"Only these layers. Default: all."`
	Tags            []string      `json:"tags,omitempty" jsonschema:"Only memories carrying at least one of these tags."`
	AsOf            time.Time     `json:"as_of,omitempty" jsonschema:"Answer as of this instant (RFC3339 or YYYY-MM-DD), with validity and decay evaluated then: before now, the vaults as git recorded them then; from now on, the vaults as they are, transient memories included (\"what applies in an hour\")."`
	Since           time.Time     `json:"since,omitempty" jsonschema:"Only memories updated at or after this instant (RFC3339 or YYYY-MM-DD)."`
	IncludeInactive bool          `json:"include_inactive,omitempty" jsonschema:"Also return archived, superseded, expired and not-yet-effective memories, labelled by status."`
	Explain         bool          `json:"explain,omitempty" jsonschema:"Also say why each result ranks where it does: the query's concepts it covers, the terms it matched (typed, or an expansion such as a translation) and the rules that moved it (links, supersession, near-duplicates)."`
}

func recallTool() mcp.Tool {
	return mcp.NewTool("recall", append(readOnly("Recall memories"),
		mcp.WithDescription(`Search the project's long-term memory (decisions, conventions, preferences, task state) by meaning, in Chinese or English. `+
			`Call it before answering questions about how this project does things, before making a choice that may already have been decided, `+
			`and at the start of a task. It searches the project vault and the user vault (preferences that follow the developer), `+
			`each result saying which (vault). Each result is a strong match (it answers the question) or weak (kept for what it shares with it, with match_reason); `+
			`strong ones come first, and when none is strong no memory answers the question: say so rather than guess. An empty query lists the most recently updated memories. Results are compact snippets; `+
			`call get_memory with an id for the whole text. Superseded and expired memories are hidden unless include_inactive is true. `+
			layerHelp+` Example: {"query": "how do we run the tests", "limit": 5}`),
		strictOutputSchema[view.Recall]())...)
}

func (s *Server) recall(ctx context.Context, vs *openVaults, a recallArgs) (string, any, error) {
	ctx, cancel := s.recallContext(ctx)
	defer cancel()
	ctx = vs.prepareStaleness(ctx)
	rs, err := vs.Recall(ctx, vault.Query{Text: a.Query, Limit: a.Limit, Layers: a.Layers, Tags: a.Tags,
		AsOf: a.AsOf, Since: a.Since, IncludeInactive: a.IncludeInactive, Explain: a.Explain})
	if err != nil {
		return "", nil, s.recallError(err)
	}
	sctx, scancel := s.stalenessContext(ctx)
	states := s.recallStaleness(sctx, vs, rs)
	scancel()
	staleness.Rerank(rs, states)
	rv := view.RecallOf(rs)
	rv.SetStaleness(states)
	text, shown := renderResults(rv.Results, "No memories found.", "narrow the query, or call get_memory for a whole memory")
	if a.AsOf.IsZero() { // a read of the past is not a use
		s.recordAccess(ctx, vs, rs[:len(shown)])
	}
	return text, view.Recall{Results: shown}, nil
}
