//go:build !unix

package gitstore

import (
	"errors"
	"os"
)

// processGone cannot tell here, so no lock is ever taken for stale.
func processGone(int) bool { return false }

// lockRecord is never reached: no process is ever taken for gone.
func lockRecord(*os.File) (func(), error) {
	return nil, errors.New("stale lock records are not supported on this system")
}
