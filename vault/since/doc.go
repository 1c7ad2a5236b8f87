// Package since tells what changed in a vault since a point: the
// memories added, changed, superseded, archived or deleted by the commits
// reachable from HEAD and not from the point (so changes that arrived
// through a pull or a merge count, each with the teammate who committed
// it and the reason in its message), and the memories that went stale
// since. It is what `memory://context` opens with ("what is new since
// your last session") and what `memvault digest --since` prints.
//
// A [Point] is where a client last looked: the HEAD commit, the time,
// and which memories were not fresh then. Points are kept per client in
// a git-ignored local file (cmd/memvault/internal/gitrepo), never in git.
//
// The package declares the small [Git] interface it reads the range
// through, in the vault's own terms; it imports vault, vault/commitmsg,
// vault/staleness and the standard library.
package since
