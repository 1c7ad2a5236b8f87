package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// memoryURIPrefix starts the URI of one memory: memory://memories/{id}.
const memoryURIPrefix = "memory://memories/"

func memoryTemplate() mcp.ResourceTemplate {
	return mcp.NewResourceTemplate(memoryURIPrefix+"{id}", "Memory",
		mcp.WithTemplateDescription("One memory, whole, as Markdown."),
		mcp.WithTemplateMIMEType("text/markdown"))
}

func (s *Server) readMemory(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	id, ok := strings.CutPrefix(req.Params.URI, memoryURIPrefix)
	if !ok || id == "" {
		return nil, fmt.Errorf("%s: want %s{id}", vault.ShortID(req.Params.URI), memoryURIPrefix)
	}
	vs, err := s.readyVaults(ctx)
	if err != nil {
		return nil, err
	}
	in, m, err := vs.Find(id)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("# %s\n\nid: %s  \nlayer: %s  \nvault: %s  \nimportance: %d  \nstatus: %s  \nversion: %d  \nupdated: %s\n\n%s",
		m.Title, m.ID, m.Layer, in.Name, m.Importance, m.Status, m.Version, view.Instant(m.UpdatedAt), m.Body)
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: text}}, nil
}

// unknownMemory makes a read of a memory no vault holds fail with the
// protocol's resource-not-found error (-32002; -32602 from protocol
// 2026-07-28) rather than an internal error. mcp-go gives a resource
// handler's errors the internal error's code and keeps resource-not-found
// for a URI no resource or template matches, so this hook, which runs
// before the read, points such a read at a URI nothing matches: the
// memory template's {id} takes no spaces.
func (s *Server) unknownMemory(ctx context.Context, _ any, req *mcp.ReadResourceRequest) {
	id, ok := strings.CutPrefix(req.Params.URI, memoryURIPrefix)
	if !ok || id == "" {
		return
	}
	vs, err := s.readyVaults(ctx)
	if err != nil {
		return // the read reports it
	}
	if _, _, err := vs.Find(id); err != nil {
		// A long id is not echoed whole in the error.
		req.Params.URI = memoryURIPrefix + vault.ShortID(id) + " (no memory has this id)"
	}
}
