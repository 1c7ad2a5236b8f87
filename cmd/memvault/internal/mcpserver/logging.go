package mcpserver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/vault"
)

// The server logs one line per call (tool, resource read, prompt): who
// called, how long it took, how big the answer was, and the error.

// loggedTool logs one line per tool call.
func (s *Server) loggedTool(name string, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, err := h(ctx, req)
		attrs := []any{"tool", name, "client", clientName(ctx)}
		if p, ok := vault.PersonOf(ctx); ok {
			attrs = append(attrs, "person", p.Name)
		}
		switch {
		case err != nil:
			s.logger.Warn("tool call", append(attrs, "duration", since(start), "error", err.Error())...)
		case len(res.InputRequests) > 0:
			s.logger.Info("tool call", append(attrs, "waiting_for", "roots")...)
		case res.IsError:
			s.logger.Warn("tool call", append(attrs, "duration", since(start), "result_bytes", textSize(res.Content), "error", firstText(res.Content))...)
		default:
			s.logger.Info("tool call", append(attrs, "duration", since(start), "result_bytes", textSize(res.Content))...)
		}
		return res, err
	}
}

// loggedResource logs one line per resource read.
func (s *Server) loggedResource(h server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		start := time.Now()
		out, err := h(ctx, req)
		size := 0
		for _, c := range out {
			if tc, ok := c.(mcp.TextResourceContents); ok {
				size += len(tc.Text)
			}
		}
		attrs := []any{"uri", req.Params.URI, "client", clientName(ctx), "duration", since(start), "result_bytes", size}
		if err != nil {
			s.logger.Warn("resource read", append(attrs, "error", err.Error())...)
		} else {
			s.logger.Info("resource read", attrs...)
		}
		return out, err
	}
}

// loggedPrompt logs one line per prompt request.
func (s *Server) loggedPrompt(h server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		start := time.Now()
		out, err := h(ctx, req)
		attrs := []any{"prompt", req.Params.Name, "client", clientName(ctx), "duration", since(start)}
		if err != nil {
			s.logger.Warn("prompt", append(attrs, "error", err.Error())...)
		} else {
			s.logger.Info("prompt", attrs...)
		}
		return out, err
	}
}

func since(start time.Time) time.Duration { return time.Since(start).Round(time.Microsecond) }

// textSize is the size of the text in a result.
func textSize(cs []mcp.Content) int {
	n := 0
	for _, c := range cs {
		if tc, ok := c.(mcp.TextContent); ok {
			n += len(tc.Text)
		}
	}
	return n
}

// firstText is a result's first text.
func firstText(cs []mcp.Content) string {
	for _, c := range cs {
		if tc, ok := c.(mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// clientName is the MCP client's clientInfo.name, else "mcp", as the
// vault writes it in trailers (vault.SanitizeClient: no controls, no
// address in angle brackets, capped): logs and own-write checks name the
// client as the commit does.
func clientName(ctx context.Context) string {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if n := vault.SanitizeClient(s.GetClientInfo().Name); n != "" {
			return n
		}
	}
	return "mcp"
}
