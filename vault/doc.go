// Package vault is memvault's domain: the memory model, layers and their
// lifetimes, loading a vault folder into an in-memory index, time-aware
// recall, and the write sequence (validate, atomic write, commit, index).
//
// A Set holds the rules that span vaults: the project vault and the user
// vault recalled and ranked together, supersession and rival rules across
// them, where a new memory goes and what Remember refuses (a near-identical
// title), and the session-start digest. Both the CLI and the MCP server
// call it, so one operation gives one result through either.
//
// Doctor checks what can stop or spoil a vault's writes (the repository's
// state, the write lock, an interrupted write, hand edits, broken files)
// and repairs what is safe to repair, through the DoctorRepo it declares.
//
// It imports the parser, its own subpackages and the standard library
// only. Git, file watching and MCP are adapters that plug in through the
// small interfaces declared here (Committer, DoctorRepo, Tracker) and in
// vault/history (Repo), and are wired together in cmd/memvault. Commit
// messages are written and read through vault/commitmsg.
package vault
