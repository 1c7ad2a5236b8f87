package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/cmd/memvault/internal/outcome"
	"github.com/memvault/memvault/cmd/memvault/internal/termsafe"
	"github.com/memvault/memvault/vault/fault"
)

// toolFunc is a tool's handler over its parsed arguments A: it returns
// the readable text and the structured result (a view), or an error that
// becomes an isError result.
type toolFunc[A any] func(ctx context.Context, vs *openVaults, args A) (text string, structured any, err error)

// addTool registers the tool t with its handler. A, the type of its
// arguments, gives both the input schema the tool declares and the
// parser of its calls (args.go). A call's arguments are parsed into an
// A, then the served vaults are made ready (asking the
// client for its roots while the project vault is unknown: a multi
// round-trip input request, which mcp-go turns into a roots/list request
// for clients that predate it), then fn runs. Every error is a tool
// error, never a protocol error, so the model can read and fix it.
func addTool[A any](s *Server, t mcp.Tool, fn toolFunc[A]) {
	spec, err := specOf[A]()
	if err != nil {
		panic(err) // a malformed arguments type: every test run finds it
	}
	t.InputSchema, t.RawInputSchema = mcp.ToolInputSchema{}, spec.raw
	if s.args == nil {
		s.args = map[string]*argSpec{}
	}
	s.args[t.Name] = spec
	s.mcp.AddTool(t, s.loggedTool(t.Name, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args A
		if err := spec.parse(rawArguments(req), &args); err != nil {
			return errorResult(fault.Wrap(fault.Invalid, err)), nil
		}
		vs, ask, err := s.vaults(ctx, req.Params.InputResponses)
		if err != nil {
			return errorResult(err), nil
		}
		if ask {
			s.project.noteAsked()
			return server.NewInputRequestBuilder("").Roots(rootsInputID).ToolResult(), nil
		}
		text, out, err := fn(ctx, vs, args)
		if err != nil {
			return errorResult(err), nil
		}
		// The text is what a client may print for people: memory text in
		// it must not drive a terminal. The structured result stays exact.
		text = termsafe.String(text)
		if out == nil {
			return mcp.NewToolResultStructured(nil, text), nil
		}
		// Encoded once here: the output schema check and the response
		// read the same bytes instead of encoding the value twice.
		raw, err := json.Marshal(out)
		if err != nil {
			return errorResult(fault.Wrap(fault.Internal, fmt.Errorf("encode the result: %w", err))), nil
		}
		return mcp.NewToolResultStructured(json.RawMessage(raw), text), nil
	}))
}

// errorResult is a tool error for err: its message, cleaned for a
// terminal, and in _meta "memvault/error" the kind of failure and whether
// the caller can act on it (outcome's table, which the CLI's exit status
// follows too).
func errorResult(err error) *mcp.CallToolResult {
	res := mcp.NewToolResultError(termsafe.String(err.Error()))
	res.Meta = mcp.NewMetaFromMap(map[string]any{"memvault/error": map[string]any{
		"kind":   string(outcome.Kind(err)),
		"caller": outcome.For(err).Caller,
	}})
	return res
}

// rawArguments returns a call's arguments as JSON: the bytes as received
// when the call came over a transport, else the decoded value encoded
// again.
func rawArguments(req mcp.CallToolRequest) json.RawMessage {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", "unencodable arguments"))
	}
	return b
}
