package store

// CanSyncFolder is false on Windows: a folder handle cannot be flushed
// there (FlushFileBuffers refuses it), and NTFS journals the rename.
const CanSyncFolder = false
