package merge

import (
	"fmt"
	"os"
)

// Driver is git's merge driver for a memory file: it merges the files git
// names for the common ancestor (%O), ours (%A) and theirs (%B) with
// Files and writes the result over ours, where git takes it from. On
// ErrUnmergeable ours is left as it is: a person decides, and no conflict
// marker is written either way. It is the package's one function that
// touches files.
func Driver(basePath, oursPath, theirsPath string) (Result, error) {
	var in [3][]byte
	for i, p := range []string{basePath, oursPath, theirsPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			return Result{}, fmt.Errorf("read: %w", err)
		}
		in[i] = b
	}
	res, err := Files(in[0], in[1], in[2])
	if err != nil {
		return Result{}, err
	}
	if err := os.WriteFile(oursPath, res.Data, 0o644); err != nil {
		return Result{}, fmt.Errorf("write the result: %w", err)
	}
	return res, nil
}
