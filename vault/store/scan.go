package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// TempInfix marks the temp files of a vault write: ".<name>.tmp-<random>".
const TempInfix = ".tmp-"

// Scan lists the memory files of the vault at dir, relative to dir with
// slashes, sorted. It skips dot-files and dot-folders (.git, editor
// folders), files that are not Markdown, the root README.md, anything that
// is not a regular file (a FIFO would block the reader), and symbolic
// links (a linked memory file is never loaded). Linked folders are not
// entered. When dir itself is a symbolic link, the folder it names is
// scanned. sawTemp, when not nil, is set if the scan passes a temp file a
// write left behind (see TempInfix).
//
// The top-level folders (the layers) are listed on all cores: a large
// vault's scan is otherwise a pause in which only one core works.
func Scan(ctx context.Context, dir string, sawTemp *atomic.Bool) ([]string, error) {
	rels, _, _, _, err := scanTree(scanner{ctx: ctx, sawTemp: sawTemp}, dir, nil, 0)
	return rels, err
}

// scanner lists the memory files under one vault folder; see Scan.
type scanner struct {
	ctx     context.Context
	root    string
	sawTemp *atomic.Bool // nil: not asked
}

// path returns the folder rel (a slash path, "" for the root) on disk.
func (w scanner) path(rel string) string {
	if rel == "" {
		return w.root
	}
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

// list returns the memory files directly in the folder rel and the
// folders in it to enter, both as slash paths relative to the root, with
// the folder's stat data, taken before it is read, and whether the
// listing depends on nothing but the folder (see FolderRec).
func (w scanner) list(rel string) (l folderListing, err error) {
	p := w.path(rel)
	f, err := os.Open(p)
	if err != nil {
		return l, err
	}
	// Stat'ed before it is read: a change made while it is read leaves
	// times later than these, so a record of this listing never matches
	// the folder again.
	l.st, l.stOK = FileStatKey(f)
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return l, err
	}
	l.plain = true
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	for _, d := range ents {
		if err := w.ctx.Err(); err != nil {
			return folderListing{}, err
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			if w.sawTemp != nil && strings.Contains(name, TempInfix) {
				w.sawTemp.Store(true)
			}
			continue // neither a memory nor a folder to enter
		}
		r := prefix + name
		switch t := d.Type(); {
		case t.IsDir():
			// Folders are entered whatever their name; a linked
			// folder has ModeSymlink and is not.
			l.subdirs = append(l.subdirs, r)
		case !IsMemoryPath(r):
		case t.IsRegular():
			l.files = append(l.files, r)
		case t&fs.ModeSymlink != 0:
			// A linked memory file is never loaded (lint reports it:
			// the vault's LinkedFiles). The listing stays not plain, as it was when
			// links inside the vault were followed, so a cached listing
			// is checked the same way.
			l.plain = false
		default:
			l.plain = false
		}
	}
	return l, nil
}

// IsMemoryPath reports whether a vault-relative slash path names a memory
// file: a .md file, no dot-file or dot-folder on the way, not the root
// README.md. The watcher uses it to ignore everything else.
func IsMemoryPath(rel string) bool {
	// ".md" in any case, without lowering the whole path (which copies
	// a path that is not ASCII: a warm load checks every path).
	n := len(rel)
	if n < 3 || rel[n-3] != '.' || rel[n-2]|0x20 != 'm' || rel[n-1]|0x20 != 'd' || strings.EqualFold(rel, "README.md") {
		return false
	}
	for part := range strings.SplitSeq(rel, "/") {
		if part == "" || strings.HasPrefix(part, ".") || part == ".." {
			return false
		}
	}
	return true
}
