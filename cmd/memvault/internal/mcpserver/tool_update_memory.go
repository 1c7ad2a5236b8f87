package mcpserver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// updateArgs are the arguments of update_memory: the fields given change,
// the others stay.
type updateArgs struct {
	ID              string       `json:"id" jsonschema:"The memory's id."`
	ExpectedVersion int          `json:"expected_version" min:"1" jsonschema:"The version you read; the update is refused if the memory is at another one."`
	ExpectedETag    string       `json:"expected_etag,omitempty" jsonschema:"The etag you read (get_memory, recall, or a write's result); the update is refused if the memory's content changed, even when a merge left it at the same version. Give it whenever you have it."`
	Title           *string      `json:"title,omitempty" jsonschema:"New title."`
	Content         *string      `json:"content,omitempty" jsonschema:"New Markdown body (replaces the whole body)."`
	Tags            *[]string    `json:"tags,omitempty" jsonschema:"New tag list (replaces the old one)."`
	Importance      *int         `json:"importance,omitempty" min:"1" max:"10" jsonschema:"New importance, 1..10."`
	Layer           *vault.Layer `json:"layer,omitempty" jsonschema:"Move to another layer."`
	EffectiveAt     *time.Time   `json:"effective_at,omitempty" jsonschema:"New start of validity (RFC3339 or YYYY-MM-DD); an empty string removes it."`
	ExpiresAt       *time.Time   `json:"expires_at,omitempty" jsonschema:"New end of validity (RFC3339 or YYYY-MM-DD); an empty string removes it."`
	Supersedes      *[]string    `json:"supersedes,omitempty" jsonschema:"New list of the ids this memory replaces (replaces the old list); they are not marked superseded by this call."`
	Links           *[]string    `json:"links,omitempty" jsonschema:"New list of related memory ids (replaces the old list)."`
	Refs            *[]string    `json:"refs,omitempty" jsonschema:"New list of the code the memory is about (replaces the old list; [] removes it): paths, folders (dir/), globs, path#Symbol."`
	AcceptRefs      bool         `json:"accept_refs,omitempty" jsonschema:"Also add the refs proposed from what the new title or content mentions (paths and backticked symbols that exist); without it they are only returned in proposed_refs."`
	ResolveConflict bool         `json:"resolve_conflict,omitempty" jsonschema:"Remove the conflict record a git merge left in the memory (conflicted in get_memory): what it holds after this update is the decision. Setting a field the record lists settles that field alone."`
	Reason          string       `json:"reason" jsonschema:"Why the memory changes; goes into the commit message."`
}

func updateMemoryTool() mcp.Tool {
	return mcp.NewTool("update_memory", append(write("Update memory", false, false),
		mcp.WithDescription(`Change an existing memory in place (one git commit; the old text stays in git history). `+
			`Pass the version you last read (get_memory or recall) as expected_version: if someone changed the memory since, `+
			`the call fails naming the current version and nothing is overwritten; read it again and reapply. Pass the etag you read too, as `+
			`expected_etag: after a git merge two different contents can carry the same version, and only the etag tells them apart. Only the fields `+
			`given change. To replace a rule with a different one, prefer remember with supersedes. `+layerHelp+
			` Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A", "expected_version": 2, "expected_etag": "2-5f1c0e9a7b3d", "content": "Deploy with ops/deploy.sh --canary.", "reason": "canary step added"}`),
		strictOutputSchema[view.Write]())...)
}

func (s *Server) updateMemory(ctx context.Context, vs *openVaults, a updateArgs) (string, any, error) {
	in, m, err := vs.find(a.ID)
	if err != nil {
		return "", nil, err
	}
	p := vault.Patch{Title: a.Title, Content: a.Content, Tags: a.Tags, Importance: a.Importance, Layer: a.Layer,
		EffectiveAt: a.EffectiveAt, ExpiresAt: a.ExpiresAt, Supersedes: a.Supersedes, Links: a.Links, Refs: a.Refs,
		AcceptRefs: a.AcceptRefs, ResolveConflict: a.ResolveConflict, ExpectedETag: a.ExpectedETag}
	res, err := in.Vault.Update(ctx, m.ID, a.ExpectedVersion, p, vault.Author{Reason: a.Reason, Client: clientName(ctx)})
	if err != nil {
		return "", nil, toolError(err)
	}
	vs.noteOwnCommit(ctx, in.Name, res.Commit)
	out := view.WriteOf(res, in.Name)
	return writeText("updated", out), out, nil
}
