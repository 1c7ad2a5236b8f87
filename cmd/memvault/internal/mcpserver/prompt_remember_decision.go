package mcpserver

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

func rememberDecisionPrompt() mcp.Prompt {
	return mcp.NewPrompt("remember-decision",
		mcp.WithPromptDescription("Record a decision just made, with its reason and the alternatives rejected."),
		mcp.WithArgument("topic", mcp.ArgumentDescription("What the decision is about (optional).")))
}

func (s *Server) rememberDecisionPrompt(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	about := "the decision we just made"
	if topic := strings.TrimSpace(req.Params.Arguments["topic"]); topic != "" {
		about = "the decision about " + topic
	}
	msg := "Record " + about + " with the remember tool, in layer project. Title: the decision in one line. " +
		"Content: what was decided, why, the alternatives considered and why each was rejected, and where it applies " +
		"(paths, commands). Add topic tags. If it replaces an earlier rule, call recall first and pass the old id in supersedes. " +
		"Give the reason argument in one sentence."
	return mcp.NewGetPromptResult("Remember a decision",
		[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(msg))}), nil
}
