// Package gitstore records memvault's writes in the project's git repository
// and reads the recorded history back.
//
// Every write becomes exactly one commit that contains only the memory files
// the caller names. The commit is built from git plumbing (go-git object
// storage plus git's own on-disk formats), never from a work-tree scan, so the
// user's staged and unstaged work is left exactly as it was:
//
//   - blobs are written for the named paths, and only the trees on those paths
//     are rebuilt (decoded trees are cached by hash between commits);
//   - the branch is moved with git's lockfile protocol (refs/heads/x.lock,
//     compare-and-swap, reflog entry), so git itself sees a normal update;
//   - only the named paths' entries in .git/index are rewritten, under
//     index.lock, with stat data taken from the files so `git status` stays
//     clean; the index's other entries and extensions are kept byte for byte,
//     except the cache-tree (invalidated along the changed paths), caches
//     that depend on entry positions (dropped; git rebuilds them) and the
//     size of a racily clean entry whose file changed, zeroed as git does
//     so that the change stays visible (racy.go).
//
// Commit is durable across a power loss: new loose objects, the ref and the
// index are each fsynced before the rename that publishes them and their
// directory after, objects before the ref that names them (git's
// core.fsync=committed plus the index). The repository's core.fsync, when
// set, chooses what is synced; Store.NoSync turns syncing off.
//
// Git's locks are held only to update the index and the ref: the objects
// are written and synced before index.lock is taken. Each lock is a hard
// link to an owner record naming this process (pid, start time, host), so
// a lock left by a memvault process that was killed is recognised and
// removed by the next Commit or by ClearStaleLocks; a lock of git or of a
// running process never is (see stalelock.go).
//
// Like any plumbing writer, Commit runs no hooks, does not sign commits
// (commit.gpgSign) and stores file bytes as they are, without clean filters
// or end-of-line conversion from .gitattributes.
//
// go-git is not safe for concurrent use, so a Store serialises its own calls.
// Store.Lock adds a cross-process file lock for callers that need a
// read-check-write sequence to be atomic across memvault processes. The
// lock file is <git-common-dir>/memvault.lock, shared by linked worktrees
// because they share branches and objects.
//
// HooksDir, InstallHook and UninstallHook find the folder git runs hooks
// from and install a hook there, keeping the one it replaces to be run
// first.
//
// What only git itself answers runs the git command: the merge driver's
// registration and attributes (mergedriver.go), and during a merge the
// index stages of unmerged paths and their resolution (UnmergedFiles,
// StageWorkTree), which memvault resolve reads and writes.
//
// Paths: inputs may be absolute (inside the work tree) or repository-relative;
// outputs that name files in git objects (History, WalkTree, DiffTrees) are
// repository-relative with forward slashes, while Dirty returns absolute paths
// because they name files on disk that a caller will pass back to Commit.
package gitstore
