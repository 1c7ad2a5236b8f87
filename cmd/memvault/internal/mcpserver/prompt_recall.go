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
	// Claude Code lists the prompt as /mcp__memvault__recall and passes
	// only the first word typed after it (anthropics/claude-code#14210):
	// the argument says how to give several.
	return mcp.NewPrompt("recall",
		mcp.WithPromptDescription("Bring the project memory on a subject into the conversation (keywords in English or 中文)"),
		mcp.WithArgument("query", mcp.ArgumentDescription("Keywords, e.g. deploy or 部署; join words with - (python-version), as Claude Code passes only the first word"), mcp.RequiredArgument()))
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
