package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// forgetArgs are the arguments of forget.
type forgetArgs struct {
	ID     string `json:"id" jsonschema:"The memory's id."`
	Reason string `json:"reason" jsonschema:"Why it is forgotten; goes into the commit message."`
	Delete bool   `json:"delete,omitempty" jsonschema:"Remove the file instead of archiving it (default false)."`
}

func forgetTool() mcp.Tool {
	return mcp.NewTool("forget", append(write("Forget memory", true, false),
		mcp.WithDescription(`Retire a memory that is wrong or no longer useful. By default it is archived: kept in the vault with `+
			`status archived, no longer recalled unless include_inactive is set. With delete true the file is removed (still in git history). `+
			`If a newer rule replaces it, prefer remember with supersedes. Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A", "reason": "the service was retired"}`),
		strictOutputSchema[view.Forget]())...)
}

func (s *Server) forget(ctx context.Context, vs *openVaults, a forgetArgs) (string, any, error) {
	in, m, err := vs.find(a.ID)
	if err != nil {
		return "", nil, err
	}
	res, err := in.Vault.Forget(ctx, m.ID, a.Delete, vault.Author{Reason: a.Reason, Client: clientName(ctx)})
	if err != nil {
		return "", nil, toolError(err)
	}
	vs.noteOwnCommit(ctx, in.Name, res.Commit)
	out := view.ForgetOf(m.ID, res, a.Delete, in.Name)
	text := out.Action + " " + out.ID
	if out.Commit != "" {
		text += ", commit " + history.ShortHash(out.Commit)
	}
	return text, out, nil
}
