// Package clientconfig writes memvault into the project files of an
// assistant: the MCP server in Claude Code's .mcp.json and Cursor's
// .cursor/mcp.json, Claude Code's hooks in .claude/settings.json, a
// marked section in CLAUDE.md and AGENTS.md, and Cursor's rule in
// .cursor/rules/memvault.mdc.
//
// Merge, MergeHooks and MergeSection change one entry, or one marked
// section, and keep everything else as it was: other servers, hooks and
// keys, their order, keys the user added to memvault's own entry, the
// text around the section. A file that is not valid JSON, or whose shape
// is not the expected one, is refused with an *InvalidError and never
// overwritten. Writing the same thing again changes nothing. The Plan
// functions compute a Change without writing it, so a caller can refuse
// a bad file before it writes any other.
//
// TemporaryBuild tells whether a binary is one that `go run` built, whose
// path must not be registered: it is deleted when it exits, or when the
// build cache is trimmed.
package clientconfig
