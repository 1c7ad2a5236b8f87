package main

import (
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault/history"
)

// This file holds what only the MCP code still in package main (mcp_*.go)
// uses of the CLI's files. The MCP server moves to internal/mcpserver on
// branch h-mcp, with its own helpers: once that lands, this file is unused
// and goes.

// orEmpty makes a nil list encode as [], for the JSON the MCP tools
// build until they use the view package too.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// round3 rounds a score to three decimals, for the MCP tools' own JSON.
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// changeSummary is view.Summary, for the MCP tools until they use the
// view package too.
func changeSummary(r history.Revision) string { return view.Summary(r) }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
