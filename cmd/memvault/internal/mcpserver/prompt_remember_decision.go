package mcpserver

import (
	"context"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

func rememberDecisionPrompt() mcp.Prompt {
	return mcp.NewPrompt("remember-decision",
		mcp.WithPromptDescription("Record the decision just made in the project memory: what, why, and the alternatives rejected"),
		mcp.WithArgument("topic", mcp.ArgumentDescription("Optional: what the decision is about, e.g. database or 测试框架")))
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
