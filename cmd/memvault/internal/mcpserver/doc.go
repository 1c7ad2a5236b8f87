// Package mcpserver is memvault's MCP server: the tools, resources and
// prompts an assistant uses, over stdio or streamable HTTP. It is the only
// importer of mcp-go's server.
//
// Each tool lives in its own file (tool_*.go): one Go type that is both
// its input schema and its parsed arguments (args.go), one handler that
// parses them, makes one call into the domain (vault.Set, vault/history)
// and renders readable text plus a cmd/memvault/internal/view value as
// structured content. The CLI's --json output shows the same views.
//
// The package knows nothing of git or the file watcher: cmd/memvault
// opens each served vault (loading it in the background, keeping it up to
// date with other processes' commits and with the folder) and hands the
// server small interfaces over it ([Loader], [Repo]) through [Config].
package mcpserver
