// Package watcher follows a vault folder on disk and reports what changed,
// in batches, to whatever keeps the index.
//
// It watches the folder and every subfolder with fsnotify (adding folders
// created later), ignores dot-files, dot-folders such as .git, and files
// that are not Markdown, and waits until a burst of events has settled
// before it hands the changed paths over. Events are only hints: at the end
// of a burst the consumer re-reads each named file, so it does not matter
// how an editor saved it (in place, through a temp file and a rename, with
// swap and backup files around it). A burst larger than a threshold, or one
// that renamed or removed a folder, becomes one full reload instead, and a
// burst is held back while a Busy check (git's index.lock) says a checkout
// is still writing, so a branch switch lands as one consistent update; a
// settled burst is applied only once a file the watcher writes into a
// private folder has come back through the same event queue (barrier.go),
// so events still queued behind a lagging reader are never split off.
//
// When the system cannot watch (the inotify watch limit is reached), or
// the folder is on a network or FUSE file system where inotify misses
// changes made elsewhere, the watcher falls back to rescanning the folder
// periodically, comparing sizes and modification times, and logs a
// warning that says how to raise the limit.
//
// The watcher knows nothing of memories: it talks to a Sink, declared here
// and implemented over the vault in cmd/memvault.
//
// Changes is a second, smaller tool: a counter of changes under some
// folders (the code memories refer to), with a barrier (Sync) that makes
// sure every change made before a question has been counted, so a cache
// of what those folders hold can be trusted until the counter moves. On
// Linux it reads inotify itself, only at a Sync, which reads every queued
// event; elsewhere it uses fsnotify, and Sync is a round trip through a
// file of its own, which can be split (Begin, then Barrier.Wait after
// other work) so that it overlaps that work. The build tag
// memvault_fsnotify selects the fsnotify one on Linux too, so that its
// tests run there (go test -tags memvault_fsnotify ./watcher/...).
package watcher
