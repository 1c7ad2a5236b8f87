package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestOutputSchemaValidationRejects checks that mcp-go's output schema
// validation, which the server turns on, refuses a result outside the
// declared schema. mcp-go skips validation silently when a schema fails
// to compile, so accepting the valid results alone would not show that
// it works.
func TestOutputSchemaValidationRejects(t *testing.T) {
	t.Parallel()
	s := server.NewMCPServer("t", "1", server.WithToolCapabilities(false), server.WithOutputSchemaValidation())
	tool := mcp.NewTool("echo", mcp.WithRawOutputSchema(json.RawMessage(
		`{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]}`)))
	s.AddTool(tool, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(req.GetArguments()["out"], "out"), nil
	})
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c, "unit", "", false)
	for _, tc := range []struct {
		name    string
		out     any
		refused bool
	}{
		{"within the schema", map[string]any{"n": 3}, false},
		{"wrong type", map[string]any{"n": "three"}, true},
		{"below the minimum", map[string]any{"n": -1}, true},
		{"required property missing", map[string]any{"m": 1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, text := callTool(t, c, "echo", map[string]any{"out": tc.out})
			if res.IsError != tc.refused {
				t.Errorf("IsError = %v (%q), want %v", res.IsError, text, tc.refused)
			}
		})
	}
}
