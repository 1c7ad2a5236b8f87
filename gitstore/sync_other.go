//go:build !unix

package gitstore

// syncDir does nothing: Windows cannot open a directory for flushing (NTFS
// journals renames itself), and the other non-Unix targets have no such call.
func syncDir(dir string) error { return nil }
