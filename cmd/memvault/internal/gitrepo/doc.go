// Package gitrepo adapts gitstore to the interfaces the domain declares for
// the repository around a vault: history.Repo (the vault's past) and
// vault.DoctorRepo (its state, the files that differ from HEAD). It maps
// vault-relative paths to repository-relative ones and gitstore's errors
// to the domain's.
package gitrepo
