// Package live keeps a served vault in step with its folder: it starts
// the watcher (package watcher) before the vault loads, applies each batch
// of changed files to the vault and logs what it applied and the problems
// found in those files. cmd/memvault's serve wires it.
package live
