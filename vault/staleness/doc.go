// Package staleness decides whether a memory still matches the code it
// refers to. A memory names code in its `refs` front matter (a file, a
// folder "dir/", a glob "dir/**/*.go", a symbol "path#Name"); the package
// reads what happened to those paths in git since the memory was last
// written or confirmed, and says:
//
//   - stale: a referenced path was deleted or renamed since then (naming
//     where it went), or no longer exists though it did before, or a
//     referenced symbol is no longer defined;
//   - possibly stale: a referenced path, or the definition block of a
//     referenced symbol, changed in later commits (naming how many and the
//     latest one's subject), or has uncommitted changes in the work tree;
//   - unknown: a referenced path never existed in the history (or, said
//     by the caller with Late, the answer was not ready in time);
//   - fresh otherwise.
//
// "Last written or confirmed" is the later of the memory's updated_at and
// verified_at: commits whose committer time is after it count. Every write
// through memvault sets updated_at and every `memvault confirm` sets
// verified_at, each in the commit that records it, so this instant is the
// commit that last wrote the memory. (Finding that commit from the file's
// own history would need a walk over the memory folder's trees, which
// change in every memory write: at 10,000 memories that alone costs
// seconds. docs/staleness.md says what the choice gives up.)
//
// The package declares the small [Git] interface it needs (a first-parent
// walk with the changes under some paths, the work tree's changes, blobs);
// cmd/memvault adapts gitstore to it. [Tracker] computes every memory's
// state in one first-parent walk back to the oldest instant any memory
// needs, caches it, and updates it from the new commits alone when HEAD
// moves forward.
package staleness
