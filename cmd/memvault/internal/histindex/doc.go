// Package histindex keeps a vault's history index: for every commit HEAD
// reaches, its parents, its commit time, the entries under the vault
// folder it changed against each parent, and its Memory-Id trailers. With
// it gitstore's History (and so a memory's history, `memvault history`,
// MCP's memory_history and the web view's memory page) reads only the
// commits that touched a memory's file or name it, instead of walking the
// whole log for each memory; the answer is the same.
//
// The index is built by one walk, saved in the git folder (gitrepo), and
// brought forward from the commits since its tip when HEAD moves; when
// the old tip is no longer an ancestor of HEAD it keeps only what HEAD
// reaches. Commits are immutable, so a Snapshot never goes wrong: Update
// publishes a new one.
package histindex
