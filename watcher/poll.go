package watcher

import (
	"io/fs"
	"path/filepath"
	"time"
)

// fileStat is what a rescan compares: a save changes the size or the
// modification time (nanoseconds on common Linux file systems).
type fileStat struct {
	size int64
	mod  time.Time
}

// rescan lists the reported files below the folder with their stats.
// Unreadable entries are skipped: the next rescan tries again.
func (w *Watcher) rescan() map[string]fileStat {
	out := map[string]fileStat{}
	_ = filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != w.dir {
				return fs.SkipDir
			}
			return nil
		}
		r := w.rel(p)
		if d.IsDir() {
			if r != "." && hasDotPart(r) {
				return fs.SkipDir
			}
			return nil
		}
		if !w.wanted(r) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		out[r] = fileStat{size: fi.Size(), mod: fi.ModTime()}
		return nil
	})
	return out
}

// pollChanged rescans, records the files that appeared, changed or
// disappeared since the last rescan, and reports whether there were any.
func (w *Watcher) pollChanged(now time.Time) bool {
	cur := w.rescan()
	changed := false
	for r, st := range cur {
		if old, ok := w.snap[r]; !ok || old.size != st.size || !old.mod.Equal(st.mod) {
			w.pend.add(r, now)
			changed = true
		}
	}
	for r := range w.snap {
		if _, ok := cur[r]; !ok {
			w.pend.add(r, now)
			changed = true
		}
	}
	w.snap = cur
	return changed
}
