//go:build unix

package gitstore

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// syncDir fsyncs a directory so that the names created or renamed in it
// survive a power loss. File systems that cannot sync a directory (some
// network and FUSE mounts answer EINVAL or ENOTSUP) are let be, as no
// stronger guarantee is available there.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	err = d.Sync()
	d.Close()
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
