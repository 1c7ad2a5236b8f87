//go:build !linux

package watcher

// remoteFS reports no remote file systems outside Linux, where fsnotify
// uses other kernel interfaces.
func remoteFS(string) (string, bool) { return "", false }

// noSubfolders cannot tell here: every folder is listed.
func noSubfolders(string) bool { return false }
