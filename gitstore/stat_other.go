//go:build !unix

package gitstore

import "io/fs"

// statFields extracts the stat data available on this platform; git for
// Windows compares only times and size by default.
func statFields(fi fs.FileInfo) statData { return statFromInfo(fi) }
