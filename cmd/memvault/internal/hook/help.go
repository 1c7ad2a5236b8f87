package hook

// Help is `memvault help hook`.
const Help = `hook install writes a git pre-commit hook that runs "memvault hook pre-commit"
(this binary, by absolute path). It honours core.hooksPath and linked
worktrees. An existing pre-commit hook is kept as pre-commit.local and runs
first; if it fails, the commit stops. Installing again only refreshes the
binary path. hook uninstall removes the memvault hook and puts the previous
one back.

hook pre-commit scans the .memory/**/*.md blobs the commit adds or changes
(the index against HEAD, not the work tree) for secrets and git conflict
markers, and fails with path:line:column and the rule for each secret,
path:line for each marker, never printing the secret. A file staged as HEAD
has it is not scanned: a secret already committed does not block an
unrelated commit (memvault lint and doctor report it). Bypass once with git
commit --no-verify.`
