//go:build !linux

package gitstore

// processAt cannot list processes here: no lock is ever taken for
// orphaned, and doctor leaves it to a person.
func processAt(dirs []string) (live, ok bool) { return false, false }
