//go:build !linux

package watcher

// remoteFS reports no remote file systems outside Linux, where fsnotify
// uses other kernel interfaces.
func remoteFS(string) (string, bool) { return "", false }

// countsSubfolders reports false outside Linux: every folder is listed.
func countsSubfolders(string) bool { return false }

// noSubfolders is never consulted outside Linux (see countsSubfolders).
func noSubfolders(string) bool { return false }
