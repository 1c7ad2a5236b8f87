package store

import (
	"fmt"
	"io"
	"os"
)

// MapCacheFile opens the cache file name in the folder d (see
// OpenFile: a regular file only, never through a link, without
// blocking) and maps it (see MapFile), returning also its modification
// time. check, when set, sees the open file and its size first and may
// refuse it before it is mapped. With private, what is mapped is a copy
// of the file that no other process can name (see privateCopy).
func MapCacheFile(d *os.Root, name string, private bool, check func(f *os.File, size int64) error) (data []byte, written int64, release func(), drop func(b []byte), err error) {
	f, fi, err := OpenFile(d, name)
	if err != nil {
		return nil, 0, nil, nil, err
	}
	defer f.Close()
	size := fi.Size()
	if check != nil {
		if err := check(f, size); err != nil {
			return nil, 0, nil, nil, err
		}
	}
	if private && MapsFiles {
		c, err := privateCopy(d, f, size)
		if err != nil {
			return nil, 0, nil, nil, err
		}
		defer c.Close()
		f = c
	}
	data, release, drop, err = MapFile(f, size)
	return data, fi.ModTime().UnixNano(), release, drop, err
}

// privateCopy copies the first size bytes of f into a new file in the
// folder d whose name is removed at once, and returns it open. A mapping
// of f itself faults (SIGBUS, which kills the process) wherever another
// program truncates f under it; nobody else can truncate a file without
// a name. The copy is made in the kernel (copy_file_range; a clone on
// file systems that share blocks), and a copy cut short by such a
// truncation is refused.
func privateCopy(d *os.Root, f *os.File, size int64) (*os.File, error) {
	c, name, err := CreateTemp(d, IndexFileName+".tmp-copy-")
	if err != nil {
		return nil, err
	}
	// Where an open file's name cannot be removed (Windows), the name
	// stays until the next write's RemoveTemps.
	_ = d.Remove(name)
	// f is at its start; a limited *os.File is what os.File.ReadFrom
	// copies in the kernel.
	n, err := io.Copy(c, io.LimitReader(f, size))
	if err == nil && n != size {
		err = fmt.Errorf("%w: copied %d of %d bytes", ErrBadCache, n, size)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// ReadAll reads the first size bytes of f onto the heap: where nothing
// is mapped (see MapFile), or a mapping failed.
func ReadAll(f *os.File, size int64) ([]byte, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), data); err != nil {
		return nil, err
	}
	return data, nil
}
