// Package vault is memvault's domain: the memory model, layers and their
// lifetimes, loading a vault folder into an in-memory index, time-aware
// recall, and the write sequence (validate, atomic write, commit, index).
//
// It imports the parser, its own subpackages and the standard library
// only. Git, file watching and MCP are adapters that plug in through the
// small interfaces declared here (Committer) and in vault/history (Repo),
// and are wired together in cmd/memvault. Commit messages are written and
// read through vault/commitmsg.
package vault
