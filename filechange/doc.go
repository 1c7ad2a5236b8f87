// Package filechange names how a file changed between two trees or
// commits. It is the one vocabulary the git adapter (gitstore) and the
// domain (vault/history, vault/staleness) share, so the code that wires them
// passes a kind along instead of translating three enums by hand. It imports
// nothing, which is why both sides of the import rules may import it.
package filechange
