// Package clientconfig registers memvault as an MCP server in the project
// configuration file of an MCP client: Claude Code's .mcp.json and
// Cursor's .cursor/mcp.json.
//
// Write merges one entry into the file's mcpServers object and keeps
// everything else as it was: other servers, other keys, their order, and
// keys the user added to memvault's own entry. A file that is not valid
// JSON, or whose shape is not the expected one, is refused with an
// *InvalidError and never overwritten. Writing the same entry again
// changes nothing.
//
// TemporaryBuild tells whether a binary is one that `go run` built, whose
// path must not be registered: it is deleted when it exits, or when the
// build cache is trimmed.
package clientconfig
