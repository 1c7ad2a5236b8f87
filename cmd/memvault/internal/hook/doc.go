// Package hook is `memvault hook`: the git pre-commit hook that blocks
// memory files holding secrets or conflict markers (install, uninstall,
// and the check git runs). The rules are vault/precommit's (precommit.StagedSecrets,
// precommit.StagedConflictMarkers); the hook files are gitstore's.
package hook
