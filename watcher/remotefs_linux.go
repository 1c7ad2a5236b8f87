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

// noSubfolders reports whether the folder p certainly holds no folder: on
// the file systems that count a folder's links exactly (ext2/3/4, xfs,
// tmpfs: two, plus one for each folder in it), a count of 2. Elsewhere
// (btrfs counts 1, overlayfs and FUSE what they like; ext4 past 65,000
// folders counts 1) it cannot tell and says false: the folder is listed.
func noSubfolders(p string) bool {
	var fs syscall.Statfs_t
	if syscall.Statfs(p, &fs) != nil {
		return false
	}
	switch uint32(fs.Type) {
	case 0xEF53, 0x58465342, 0x01021994: // ext2/3/4, xfs, tmpfs (linux/magic.h)
	default:
		return false
	}
	var st syscall.Stat_t
	return syscall.Lstat(p, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR && st.Nlink == 2
}
