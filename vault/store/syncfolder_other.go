//go:build !windows

package store

// CanSyncFolder says whether fsync of a folder makes a rename in it
// durable, as it does on Linux, the BSDs and macOS.
const CanSyncFolder = true
