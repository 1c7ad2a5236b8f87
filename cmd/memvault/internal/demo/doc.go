// Package demo runs memvault's scripted MCP session: it replays the
// sample vault and its history into a temporary git repository, starts
// "memvault serve" there as a child process, as Claude Code or Cursor
// would, and drives it over stdio with mcp-go's client through eight
// steps (initialize, tools/list, a recall in Chinese, one in English that
// finds two rival rules, a remember that supersedes both in one commit,
// the recall again, memory_history, the memory://context digest), each
// checking its answer.
//
// It is a client only: it imports mcp-go's client and mcp packages, never
// its server. The replay itself (memvault sample-history) is passed in
// through Options.Replay, so the package does not depend on the command.
package demo
