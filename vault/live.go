package vault

import (
	"context"
	"errors"

	"github.com/memvault/memvault/parser"
)

// SyncFiles brings the index in line with files that someone else changed
// on disk (a hand edit, git, another memvault process) and returns the ids
// whose indexed state changed. The whole batch becomes visible at once.
//
// Unlike Refresh it waits for a write of this process in progress, so a
// file read before that write can never overwrite the entry the write just
// indexed. A file whose content hash equals the indexed one is left alone,
// so syncing after this process's own write costs a read and changes
// nothing.
func (v *Vault) SyncFiles(ctx context.Context, rels []string) ([]string, error) {
	if v.readOnly {
		return nil, ErrReadOnly
	}
	v.writeMu.Lock()
	defer v.writeMu.Unlock()
	return v.refresh(ctx, rels)
}

// SyncAll reloads the whole vault like Reload, after any write of this
// process in progress. A watcher uses it when too much changed at once
// (a branch switch) to be worth syncing file by file.
func (v *Vault) SyncAll(ctx context.Context) error {
	if v.readOnly {
		return ErrReadOnly
	}
	v.writeMu.Lock()
	defer v.writeMu.Unlock()
	return v.Reload(ctx)
}

// keepLastGood is the memory a read yields for the index, or nil when the
// file's last good version should stay, marked stale. That is the case for
// a file that could not be read at all, and for one that was indexed
// before and whose front matter no longer parses: read as a fresh file it
// would lose its id and fields, which would silently turn a memory into
// another one. had says whether the path was indexed.
func keepLastGood(r loaded, had bool) *Memory {
	if r.mem == nil || !had {
		return r.mem
	}
	for _, d := range r.diags {
		if errors.Is(d.Err, parser.ErrSyntax) || errors.Is(d.Err, parser.ErrUnclosed) {
			return nil
		}
	}
	return r.mem
}
