// Package history reads a vault's past from the git repository that holds
// it: a memory's revisions (who changed what, when and why), the story
// `memvault why` tells (what a memory replaced, how it changed, its
// rivals), the memory changes between two revisions, a memory as it was at
// a commit, and the whole vault as recorded at a commit or an instant
// (record time, for recall --at and --as-of).
//
// It declares the small [Repo] interface it needs from git, in the vault's
// own terms (vault-relative paths), with its own types; cmd/memvault adapts
// gitstore to it. Commit messages are read with vault/commitmsg. The
// package decides and gathers; saying it to people (text, JSON, logs) is
// the caller's.
package history
