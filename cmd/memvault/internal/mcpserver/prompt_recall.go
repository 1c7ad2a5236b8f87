package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func recallPrompt() mcp.Prompt {
	return mcp.NewPrompt("recall",
		mcp.WithPromptDescription("Pull the project's memories about a subject into the conversation."),
		mcp.WithArgument("query", mcp.ArgumentDescription("What to recall, in any language."), mcp.RequiredArgument()))
}

func (s *Server) recallPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	query := strings.TrimSpace(req.Params.Arguments["query"])
	if query == "" {
		return nil, errors.New("query: required")
	}
	// Like a tool call, the prompt may ask the client for its roots
	// while the project vault is unknown.
	s.project.wait(ctx)
	vs, ask, err := s.vaults(ctx, req.Params.InputResponses)
	if err != nil {
		return nil, err
	}
	if ask {
		s.project.noteAsked()
		return server.NewInputRequestBuilder("").Roots(rootsInputID).PromptResult(), nil
	}
	text, _, err := s.recall(ctx, vs, recallArgs{Query: query})
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("Project memories about %q (from memvault; use get_memory for the whole text):\n\n%s", query, text)
	return mcp.NewGetPromptResult("Memories about "+query,
		[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(msg))}), nil
}
