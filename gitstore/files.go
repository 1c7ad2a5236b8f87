package gitstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Git file modes as stored in trees and in the index.
const (
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeDir     = 0o040000
	modeGitlink = 0o160000
)

// statData is the part of an index entry that git compares with lstat to
// decide whether a file may have changed.
type statData struct {
	ctimeSec, ctimeNsec uint32
	mtimeSec, mtimeNsec uint32
	dev, ino, uid, gid  uint32
	size                uint32
}

func statFromInfo(fi fs.FileInfo) statData {
	m := fi.ModTime()
	return statData{
		ctimeSec: uint32(m.Unix()), ctimeNsec: uint32(m.Nanosecond()),
		mtimeSec: uint32(m.Unix()), mtimeNsec: uint32(m.Nanosecond()),
		size: uint32(fi.Size()),
	}
}

// newIndexEntry builds a stage-0 index entry.
func newIndexEntry(name string, st statData, mode uint32, h [20]byte) indexEntry {
	b := make([]byte, indexEntryFixed)
	be := binary.BigEndian
	be.PutUint32(b[0:], st.ctimeSec)
	be.PutUint32(b[4:], st.ctimeNsec)
	be.PutUint32(b[8:], st.mtimeSec)
	be.PutUint32(b[12:], st.mtimeNsec)
	be.PutUint32(b[16:], st.dev)
	be.PutUint32(b[20:], st.ino)
	be.PutUint32(b[24:], mode)
	be.PutUint32(b[28:], st.uid)
	be.PutUint32(b[32:], st.gid)
	be.PutUint32(b[36:], st.size)
	copy(b[indexHashOffset:], h[:])
	be.PutUint16(b[indexFlagsOffset:], uint16(min(len(name), indexNameMask)))
	return indexEntry{name: name, head: b, off: -1}
}

// statMatches reports whether the entry's stat data still describes fi, the
// way git's ie_match_stat does with core.trustctime and core.checkStat at
// their defaults.
func (e indexEntry) statMatches(st statData) bool {
	be := binary.BigEndian
	h := e.head
	return be.Uint32(h[0:]) == st.ctimeSec && be.Uint32(h[4:]) == st.ctimeNsec &&
		be.Uint32(h[8:]) == st.mtimeSec && be.Uint32(h[12:]) == st.mtimeNsec &&
		be.Uint32(h[20:]) == st.ino && be.Uint32(h[36:]) == st.size
}

// workFile is a snapshot of one work-tree path.
type workFile struct {
	rel    string // repository-relative, slash-separated
	abs    string
	exists bool
	mode   uint32
	data   []byte
	stat   statData
}

// readWorkFile reads a file and the stat data that matches exactly the bytes
// read: if the file changes while it is read, it is read again, so the index
// never pairs new stat data with old content.
func readWorkFile(abs, rel string, fileMode bool) (workFile, error) {
	wf := workFile{rel: rel, abs: abs}
	for attempt := 0; ; attempt++ {
		fi, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			return wf, nil
		}
		if err != nil {
			return wf, fmt.Errorf("stat %s: %w", rel, err)
		}
		switch {
		case fi.Mode().IsDir():
			return wf, fmt.Errorf("%s is a directory", rel)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(abs)
			if err != nil {
				return wf, fmt.Errorf("read link %s: %w", rel, err)
			}
			wf.exists, wf.mode, wf.data = true, modeSymlink, []byte(filepath.ToSlash(target))
			wf.stat = statFields(fi)
			return wf, nil
		case !fi.Mode().IsRegular():
			return wf, fmt.Errorf("%s is not a regular file", rel)
		}
		data, err := os.ReadFile(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return wf, fmt.Errorf("read %s: %w", rel, err)
		}
		fi2, err := os.Lstat(abs)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return wf, fmt.Errorf("stat %s: %w", rel, err)
		}
		before := statFields(fi)
		stable := err == nil && statFields(fi2) == before && int64(len(data)) == fi.Size()
		if stable || attempt >= 5 {
			wf.exists, wf.data, wf.stat = true, data, before
			if !stable {
				// Still changing: zero stat data makes git re-hash the file
				// instead of trusting an entry that may not match it.
				wf.stat = statData{}
			}
			wf.mode = modeFile
			if fileMode && fi.Mode().Perm()&0o100 != 0 {
				wf.mode = modeExec
			}
			return wf, nil
		}
	}
}

// hasDotGit reports whether a slash path has a component git refuses to
// track.
func hasDotGit(rel string) bool {
	for comp := range strings.SplitSeq(rel, "/") {
		if strings.EqualFold(comp, ".git") {
			return true
		}
	}
	return false
}
