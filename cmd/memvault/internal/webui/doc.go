// Package webui is memvault's local web view (`memvault ui`, and the same
// pages on `memvault serve --http`): the overview, recall, one memory with
// its story, the timeline of commits, the review and a branch's diff, as
// server-rendered HTML (html/template, embedded CSS and one small script
// for live updates over SSE).
//
// It renders only: every rule about memories is reached through the same
// domain functions the CLI and the MCP server call (Set.Recall,
// history.WhyMemory, history.Reader.Diff, the review, Vault.Confirm,
// Vault.Forget, Vault.Update). Memory files are untrusted input: bodies go
// through parser.HTML (raw HTML dropped, dangerous links removed), every
// other value through html/template's escaping, and control characters
// are stripped.
package webui
