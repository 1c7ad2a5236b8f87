// Package teamsync is memvault's side of a team sharing memory through
// git: `memvault sync` (Syncer: commit pending memory files, fetch, merge
// or rebase with the merge driver passed per invocation, resolve what the
// driver left, lint, push with bounded retries) and the rendering of
// `memvault resolve`. It runs the user's git command (Git, CLI): go-git
// v5 cannot merge or rebase, and the git command brings the user's own
// remotes, credentials and hooks. The rules about memories stay in vault
// (resolve.Run) and vault/merge.
package teamsync
