package transfer

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ExportToFile runs write on a temporary file next to path and renames
// it into place, so a failed export never leaves half a file under the
// requested name.
func ExportToFile(path string, write func(io.Writer) (ExportStats, error)) (ExportStats, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".memvault-export-*")
	if err != nil {
		return ExportStats{}, fmt.Errorf("export to %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	st, err := write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return st, fmt.Errorf("export to %s: %w", path, err)
	}
	return st, nil
}
