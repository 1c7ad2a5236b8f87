// Package gitrepo is memvault's git adapter: it adapts gitstore to the
// interfaces the domain declares for the repository around a vault:
// vault.Committer (Committer: every write a commit, by MEMVAULT_AUTHOR or
// a team server's caller), history.Repo (the vault's past),
// doctor.Repo (its state, the files that differ from HEAD) and
// vault.Tracker (which files git tracks). It maps vault-relative paths to
// repository-relative ones and gitstore's errors to the domain's, and
// opens a vault's repository (OpenStore), refusing a vault whose folder
// is a link into another repository.
//
// It also adapts gitstore to vault/staleness (Code, Checker; a server's
// LiveChecker keeps the work tree's uncommitted state between answers
// until watcher.Changes sees a change) and to vault/since (Commits), and
// keeps each client's last-seen point of a vault in the git folder
// (CatchUp, LastSeen, PassOwnWrite).
package gitrepo
