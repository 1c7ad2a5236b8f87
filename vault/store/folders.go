package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// A warm load takes each folder's listing from the index cache when the
// folder's stat data is what was recorded with it, as git's untracked
// cache does: adding, removing or renaming an entry changes the folder's
// modification and change times, so an unchanged folder lists as it did.
// Listing a large vault's folders was a good part of a warm recall's CPU
// (docs/performance.md, "Storage engine"). A listing is recorded only when it depends on
// the folder alone and the folder was last changed RacyWindow or more
// before it was listed:
//
//   - a folder holding a symbolic link named like a memory is listed
//     each time, since where the link leads (inside the vault or not, a
//     file or not) can change without the folder changing;
//   - a folder changed within RacyWindow of its listing is listed each
//     time until it is older: a second change within the file system's
//     timestamp granularity could leave its times as they were.
//
// The folder is stat'ed before it is listed, so a change made while it
// is listed gives it times later than the recorded ones. Every file is
// still stat'ed against its record (vault/load's readCachedFiles): only the set of
// names comes from the cache.

// folderListing is what listing one folder gave (see scanner.list).
type folderListing struct {
	files, subdirs []string // vault-relative slash paths
	st             StatKey  // the folder's, taken before it was read
	stOK           bool
	plain          bool // no entry whose meaning can change without the folder
}

// FolderRec is a folder's listing as the index cache records it.
type FolderRec struct {
	Rel            string // slash path from the vault root, "" for the root
	Stat           StatKey
	Files, Subdirs []string
}

// ScanFolders is Scan that takes a folder's listing from prev (sorted by
// rel) when the folder's stat data matches the record. It returns, with
// the files, the records the cache may keep (sorted by rel), how many
// folders it listed, and how many files the folders it listed and could
// record hold (prev lacked their records: a reason to write the cache
// again when that saves listing many files).
func ScanFolders(ctx context.Context, dir string, prev []FolderRec, now time.Time) (rels []string, recs []FolderRec, listed, fresh int, err error) {
	return scanTree(scanner{ctx: ctx}, dir, prev, now.Add(-RacyWindow).UnixNano())
}

// scanTree lists the vault at dir with w (its root set here), taking
// listings from prev as ScanFolders does and recording the folders last
// changed before newest (none when newest is 0).
func scanTree(w scanner, dir string, prev []FolderRec, newest int64) (rels []string, recs []FolderRec, listed, fresh int, err error) {
	root := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		root = real
	}
	fail := func(err error) ([]string, []FolderRec, int, int, error) {
		return nil, nil, 0, 0, fmt.Errorf("scan %s: %w", dir, err)
	}
	if fi, err := os.Lstat(root); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, 0, 0, nil
		}
		return fail(err)
	} else if !fi.IsDir() {
		return nil, nil, 0, 0, nil
	}
	w.root = root
	f := folderScan{scanner: w, prev: prev, newest: newest}
	top, err := f.folder("")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, 0, 0, nil // removed since the Lstat
	} else if err != nil {
		return fail(err)
	}
	// Each top-level folder in a goroutine, at most GOMAXPROCS at a time:
	// the ones whose listing is not cached are listed on all cores.
	subs := make([]folderScan, len(top.Subdirs))
	errs := make([]error, len(top.Subdirs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, sub := range top.Subdirs {
		sem <- struct{}{}
		subs[i] = folderScan{scanner: f.scanner, prev: prev, newest: f.newest}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = subs[i].walk(sub)
			// Sorted here, on all cores: a folder's files come before
			// those of its subfolders, which may sort before them.
			if !slices.IsSorted(subs[i].files) {
				slices.Sort(subs[i].files)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fail(err)
	}
	n := len(f.files)
	for i := range subs {
		n += len(subs[i].files)
	}
	rels = make([]string, 0, n)
	rels = append(rels, f.files...)
	recs = f.recs
	listed, fresh = f.listed, f.fresh
	for i := range subs {
		rels = append(rels, subs[i].files...)
		recs = append(recs, subs[i].recs...)
		listed += subs[i].listed
		fresh += subs[i].fresh
	}
	if !slices.IsSorted(rels) {
		slices.Sort(rels)
	}
	slices.SortFunc(recs, func(a, b FolderRec) int { return strings.Compare(a.Rel, b.Rel) })
	return rels, recs, listed, fresh, nil
}

// folderScan gathers the files and folder records of part of a vault.
type folderScan struct {
	scanner
	prev          []FolderRec
	newest        int64 // a folder changed at or after this is not recorded
	files         []string
	recs          []FolderRec
	listed, fresh int
}

// walk takes the folder rel and everything below it.
func (f *folderScan) walk(rel string) error {
	l, err := f.folder(rel)
	for _, sub := range l.Subdirs {
		if err != nil {
			break
		}
		err = f.walk(sub)
	}
	return err
}

// folder takes the folder rel alone: its files, its record, and its
// listing, from prev when its stat data is the record's.
func (f *folderScan) folder(rel string) (FolderRec, error) {
	if i := sort.Search(len(f.prev), func(i int) bool { return f.prev[i].Rel >= rel }); i < len(f.prev) && f.prev[i].Rel == rel {
		if st, ok := FolderStatKey(f.path(rel)); ok && st == f.prev[i].Stat {
			f.files = append(f.files, f.prev[i].Files...)
			f.recs = append(f.recs, f.prev[i])
			return f.prev[i], nil
		}
	}
	l, err := f.list(rel)
	if err != nil {
		return FolderRec{}, err
	}
	f.listed++
	// The listing's files, sorted, as Scan gives them.
	slices.Sort(l.files)
	rec := FolderRec{Rel: rel, Stat: l.st, Files: l.files, Subdirs: l.subdirs}
	f.files = append(f.files, l.files...)
	if l.stOK && l.plain && max(l.st.Mtime, l.st.Ctime) < f.newest {
		f.recs = append(f.recs, rec)
		f.fresh += len(l.files)
	}
	return rec, nil
}
