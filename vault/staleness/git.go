package staleness

import (
	"context"
	"time"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/vault/fault"
)

// ErrNotAncestor is returned by Git.Walk when stop is not on head's
// first-parent line (history was rewritten): the walk went to the root.
var ErrNotAncestor = fault.New(fault.Internal, "stop commit is not an ancestor of head")

// Change is one file a commit (or the work tree) changed. Paths are
// repository-relative with forward slashes. OldPath is the path before a
// rename. OldBlob and NewBlob identify the contents for Git.Blob; "" when
// absent, and NewBlob is "" for a work-tree change (read it with
// Git.WorkFile).
type Change struct {
	Kind             filechange.Kind
	Path, OldPath    string
	OldBlob, NewBlob string
}

// Commit is one commit of a walk with its changes under the walked paths.
type Commit struct {
	ID      string
	Subject string
	// Time is the committer time.
	Time    time.Time
	Changes []Change
}

// Git is the repository as the package needs it. All paths are
// repository-relative. It is one interface rather than several because a
// Tracker uses all of it in one computation, and one adapter provides it.
type Git interface {
	// Head returns HEAD's commit id; "" on a branch with no commits.
	Head(ctx context.Context) (string, error)
	// Walk calls fn for each commit on head's first-parent line, newest
	// first, down to but not including stop ("" for the root), with the
	// files it changed under prefixes (a file, or a folder; "" is the
	// whole tree) against its first parent. A deleted file that the same
	// commit renamed is reported as Renamed, with the new path, even when
	// the new path is outside prefixes. An error from fn stops the walk
	// and is returned; a stop not on the line gives ErrNotAncestor.
	Walk(ctx context.Context, head, stop string, prefixes []string, fn func(Commit) error) error
	// Uncommitted lists the files under prefixes whose work-tree content
	// differs from HEAD (modified, deleted, or new and not ignored).
	Uncommitted(ctx context.Context, prefixes []string) ([]Change, error)
	// Exists reports which of paths (files or folders) exist at rev.
	Exists(ctx context.Context, rev string, paths []string) (map[string]bool, error)
	// Blob returns the content of a blob named by a Change; nil for "".
	Blob(ctx context.Context, id string) ([]byte, error)
	// WorkFile returns a file's content in the work tree.
	WorkFile(ctx context.Context, path string) ([]byte, error)
}
