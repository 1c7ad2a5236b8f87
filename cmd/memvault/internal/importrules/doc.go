// Package importrules encodes the import rules of memvault's design (the
// domain imports no adapter, each third-party library has one home) and
// checks the module's import graph against them. Its test runs in CI with
// the rest of `go test ./...`, so a change that breaks a rule fails the
// build with the package, the import and the rule it breaks.
package importrules
