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
