//go:build !linux

package gitstore

// processStart cannot read a process's start time here: pid reuse is then
// not detected, and a reused pid keeps a stale lock in place (the safe
// side).
func processStart(int) (start string, zombie bool, ok bool) { return "", false, false }
