// Package transfer moves memories in and out of a vault: export as JSON
// Lines or as a folder of Markdown files, import from memvault's own JSON
// Lines export, from the knowledge graph file (memory.jsonl) of the
// official MCP memory server, and from folders of Markdown notes such as a
// Cline memory bank or a CLAUDE.md.
//
// Reading a source ([Read]) turns it into vault.BatchItem values and
// reports, per item, what cannot be imported (malformed lines with their
// file and line, limits, secrets by rule and position, secret-bearing files
// skipped unread). Writing them is one vault.CreateBatch call: one commit
// for the whole import.
//
// The format logic is pure (bytes in, items out: [ParseJSONL], [ParseMCP],
// [ParseMarkdown]); the file walk and the export sit around it.
package transfer
