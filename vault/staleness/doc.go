// Package staleness decides whether a memory still matches the code it
// refers to. A memory names code in its `refs` front matter (a file, a
// folder "dir/", a glob "dir/**/*.go", a symbol "path#Name"); the package
// reads what happened to those paths in git since the memory was last
// written or confirmed, and says:
//
//   - stale: a referenced path was deleted or renamed since then (naming
//     where it went), or no longer exists, or a referenced symbol is no
//     longer defined;
//   - possibly stale: a referenced path, or the definition block of a
//     referenced symbol, changed in later commits (naming how many and the
//     latest one's subject), or has uncommitted changes in the work tree;
//   - fresh otherwise.
//
// "Last written or confirmed" is the last commit that changed the memory's
// own file: every write and every `memvault confirm` (which sets
// verified_at) is one commit, so that commit is the point after which code
// changes count. A memory whose file was never committed is measured from
// the HEAD at which the Tracker first saw it.
//
// The package declares the small [Git] interface it needs (a first-parent
// walk with the changes under some paths, the work tree's changes, blobs);
// cmd/memvault adapts gitstore to it. [Tracker] computes every memory's
// state in one walk back to the oldest point any memory needs, caches it,
// and updates it from the new commits alone when HEAD moves forward.
package staleness
