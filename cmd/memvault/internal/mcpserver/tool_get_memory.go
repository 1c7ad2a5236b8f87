package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// idArgs are the arguments of the tools that take one memory id.
type idArgs struct {
	ID string `json:"id" jsonschema:"The memory's id."`
}

func getMemoryTool() mcp.Tool {
	return mcp.NewTool("get_memory", append(readOnly("Get memory"),
		mcp.WithDescription(`Read one whole memory by id (from recall): all front matter fields and the full Markdown body. `+
			`Call it when a recall snippet is not enough, and before update_memory to learn the current version and etag. Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A"}`),
		strictOutputSchema[view.Memory]())...)
}

func (s *Server) getMemory(ctx context.Context, vs *openVaults, a idArgs) (string, any, error) {
	in, m, err := vs.find(a.ID)
	if err != nil {
		return "", nil, err
	}
	out := view.MemoryOf(m, in.Name, in.Vault.Related(m), vs.SupersededBy(m.ID))
	if len(m.Refs) > 0 {
		out.Staleness = view.StalenessOf(s.staleness(ctx, vs, map[string][]*vault.Memory{in.Name: {m}}), m.ID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nid: %s\nlayer: %s  importance: %d  status: %s  version: %d  etag: %s\npath: %s (%s vault)\n",
		m.Title, m.ID, out.Layer, m.Importance, m.Status, m.Version, out.ETag, m.Path, in.Name)
	if len(m.Tags) > 0 {
		fmt.Fprintf(&b, "tags: %s\n", strings.Join(m.Tags, ", "))
	}
	if len(out.SupersededBy) > 0 {
		fmt.Fprintf(&b, "superseded by: %s\n", strings.Join(out.SupersededBy, ", "))
	}
	if len(m.Conflicted) > 0 {
		fmt.Fprintf(&b, "%s\n", conflictedText(m.Conflicted))
	}
	for _, l := range m.Labels() {
		fmt.Fprintf(&b, "%s\n", l)
	}
	if len(m.Refs) > 0 {
		fmt.Fprintf(&b, "refs: %s\n", strings.Join(m.Refs, ", "))
	}
	if st := out.Staleness; st != nil && st.State != "fresh" {
		fmt.Fprintf(&b, "%s: %s\n", strings.ReplaceAll(st.State, "_", " "), st.Reason)
	}
	fmt.Fprintf(&b, "updated: %s\n\n%s", out.UpdatedAt, m.Body)
	writeTheirs(&b, m.Conflicted, m.ConflictTheirs)
	return strings.TrimRight(b.String(), "\n"), out, nil
}
