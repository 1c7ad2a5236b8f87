package mcpserver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// rememberArgs are the arguments of remember.
type rememberArgs struct {
	Title       string      `json:"title" jsonschema:"One line naming the memory (at most 200 characters)."`
	Content     string      `json:"content" jsonschema:"Markdown body: the fact, decision or rule, with its reason."`
	Layer       vault.Layer `json:"layer,omitempty" jsonschema:"The layer; default project."`
	Tags        []string    `json:"tags,omitempty" jsonschema:"Topic tags."`
	Importance  int         `json:"importance,omitempty" min:"1" max:"10" jsonschema:"1..10, default 5; 8 and above never fades."`
	EffectiveAt time.Time   `json:"effective_at,omitempty" jsonschema:"When the rule starts to apply (RFC3339 or YYYY-MM-DD); default now."`
	ExpiresAt   time.Time   `json:"expires_at,omitempty" jsonschema:"When it stops applying (RFC3339 or YYYY-MM-DD); default: the layer's TTL, none for project and preference."`
	Supersedes  []string    `json:"supersedes,omitempty" jsonschema:"Ids of memories this one replaces; they are marked superseded in the same commit."`
	Links       []string    `json:"links,omitempty" jsonschema:"Ids of related memories."`
	Refs        []string    `json:"refs,omitempty" jsonschema:"Code the memory is about, so readers learn when it changes: repository paths (internal/cache.go), folders (internal/cache/), globs (cmd/**/*.go) or symbols (internal/cache.go#Get)."`
	AcceptRefs  bool        `json:"accept_refs,omitempty" jsonschema:"Also add the refs proposed from what the content mentions (paths and backticked symbols that exist); without it they are only returned in proposed_refs."`
	Reason      string      `json:"reason,omitempty" jsonschema:"Why this is recorded; goes into the commit message."`
	Scope       string      `json:"scope,omitempty" enum:"project,user" jsonschema:"Which vault: project (this repository) or user (follows the developer across projects). Default: user for the preference layer when a user vault is served, else project."`
}

func rememberTool() mcp.Tool {
	return mcp.NewTool("remember", append(write("Remember", false, false),
		mcp.WithDescription(`Save something worth knowing in later sessions: a decision and its reason, a convention, a command that works, `+
			`a preference the developer stated, the state of an unfinished task. Each call is one git commit. Write the content so it `+
			`stands alone (what, why, where). Remember only adds: it never changes an existing memory. If an active memory in the same `+
			`layer of the target vault has the same or a near-identical title (same words, ignoring case, punctuation and spacing), `+
			`nothing is written and the call fails naming its id and version: change it with update_memory (expected_version), `+
			`replace it by passing its id in supersedes, or choose a distinct title. Preferences go to `+
			`the user vault, which follows the developer across projects, unless scope is project. When the new memory replaces an old rule, pass the old id in supersedes so the old one stops `+
			`being returned as current. `+layerHelp+
			` Example: {"title": "Tests use pytest", "content": "Run tests with pytest -q; unittest is not used.", "layer": "project", "tags": ["testing"], "reason": "user said so"}`),
		strictOutputSchema[view.Write]())...)
}

func (s *Server) remember(ctx context.Context, vs *openVaults, a rememberArgs) (string, any, error) {
	n := vault.NewMemory{Title: a.Title, Content: a.Content, Layer: a.Layer, Tags: a.Tags, Importance: a.Importance,
		EffectiveAt: a.EffectiveAt, ExpiresAt: a.ExpiresAt, Supersedes: a.Supersedes, Links: a.Links, Refs: a.Refs, AcceptRefs: a.AcceptRefs}
	res, err := vs.Remember(ctx, n, a.Scope, vault.Author{Reason: a.Reason, Client: clientName(ctx)})
	if err != nil {
		return "", nil, toolError(err)
	}
	vs.noteOwnCommit(ctx, res.Vault, res.Commit)
	out := view.WriteOf(res.WriteResult, res.Vault)
	return writeText("remembered", out), out, nil
}
