package watcher

import "syscall"

// remoteFS names the file system holding dir when it is one whose changes
// inotify does not fully report: changes made on another machine (NFS,
// SMB) or on the Windows side of WSL (9p), or by a FUSE server.
func remoteFS(dir string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "", false
	}
	// Magic numbers from linux/magic.h and statfs(2).
	switch uint32(st.Type) {
	case 0x6969:
		return "NFS", true
	case 0xFF534D42, 0xFE534D42, 0x517B:
		return "SMB", true
	case 0x01021997:
		return "9p (WSL drive)", true
	case 0x65735546:
		return "FUSE", true
	}
	return "", false
}

// countsSubfolders reports whether the file system holding dir gives a
// folder a link count of two plus its subfolders (ext2/3/4, XFS, tmpfs),
// so that a count of two says a folder holds no folder; btrfs, overlayfs
// and network file systems do not keep that count (GNU find's -noleaf).
func countsSubfolders(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0xEF53, 0x58465342, 0x01021994: // ext2/3/4, XFS, tmpfs
		return true
	}
	return false
}

// noSubfolders reports whether the folder p's link count says it holds no
// folder (see countsSubfolders).
func noSubfolders(p string) bool {
	var st syscall.Stat_t
	return syscall.Stat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR && st.Nlink == 2
}
