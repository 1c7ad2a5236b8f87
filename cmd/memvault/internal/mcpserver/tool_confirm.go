package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// confirmArgs are the arguments of confirm_memory.
type confirmArgs struct {
	ID     string `json:"id" jsonschema:"The memory's id."`
	Reason string `json:"reason,omitempty" jsonschema:"What was checked; goes into the commit message. Default: re-checked against the code."`
}

func confirmMemoryTool() mcp.Tool {
	return mcp.NewTool("confirm_memory", append(write("Confirm memory", false, false),
		mcp.WithDescription(`Record that you re-checked a memory against the code it refers to (its refs) and it still holds: `+
			`sets verified_at in one commit, which clears possibly_stale (code changes before it no longer count). `+
			`Call it after reading the code a possibly_stale memory names and finding the memory still right; if it is wrong, use update_memory instead. `+
			`Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A", "reason": "Backoff still doubles up to 30s"}`),
		strictOutputSchema[view.Confirm]())...)
}

func (s *Server) confirmMemory(ctx context.Context, vs *openVaults, a confirmArgs) (string, any, error) {
	in, m, err := vs.find(a.ID)
	if err != nil {
		return "", nil, err
	}
	res, err := in.Vault.Confirm(ctx, m.ID, vault.Author{Reason: a.Reason, Client: clientName(ctx)})
	if err != nil {
		return "", nil, toolError(err)
	}
	vs.noteOwnCommit(ctx, in.Name, res.Commit)
	out := view.ConfirmOf(res, in.Name, s.staleness(ctx, vs, map[string][]*vault.Memory{in.Name: {res.Memory}}))
	text := "confirmed " + out.ID + " at " + out.VerifiedAt
	if out.Commit != "" {
		text += ", commit " + history.ShortHash(out.Commit)
	}
	if out.Staleness != nil {
		text += "; now " + out.Staleness.State + ": " + out.Staleness.Reason
	}
	return text, out, nil
}
