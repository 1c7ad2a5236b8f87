//go:build unix

package gitstore

import (
	"io/fs"
	"syscall"
)

// statFields extracts the index stat data git compares to decide whether a
// work-tree file changed.
func statFields(fi fs.FileInfo) statData {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statFromInfo(fi)
	}
	cs, cn := statCtime(st)
	return statData{
		ctimeSec: uint32(cs), ctimeNsec: uint32(cn),
		mtimeSec: uint32(fi.ModTime().Unix()), mtimeNsec: uint32(fi.ModTime().Nanosecond()),
		dev: uint32(st.Dev), ino: uint32(st.Ino),
		uid: st.Uid, gid: st.Gid,
		size: uint32(fi.Size()),
	}
}
