// Package vault is memvault's domain: the memory model, layers and their
// lifetimes, loading a vault folder into an in-memory index, time-aware
// recall, and the write sequence (validate, atomic write, commit, index).
//
// A Set holds the rules that span vaults: the project vault and the user
// vault recalled and ranked together, supersession and rival rules across
// them, where a new memory goes and what Remember refuses (a near-identical
// title). Both the CLI and the MCP server call it, so one operation gives
// one result through either; the session-start digest (vault/digest)
// reads the Set through its recall.
//
// The git workflows live in packages of their own, each declaring the
// small interface it reaches git through: vault/doctor (what can stop or
// spoil a vault's writes, and the safe repairs), vault/resolve (unmerged
// memory files), vault/mergesetup (the merge driver's set-up in a clone)
// and vault/precommit (the pre-commit rules).
//
// It imports the parser, its own subpackages and the standard library
// only. Git, file watching and MCP are adapters that plug in through the
// small interfaces declared here (Committer, Tracker) and in the
// subpackages (history.Repo, doctor.Repo, resolve.MergeIndex ...), and
// are wired together in cmd/memvault. Commit messages are written and
// read through vault/commitmsg.
package vault
