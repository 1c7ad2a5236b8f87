package history

import (
	"context"
	"fmt"
	"time"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/vault/fault"
)

// Repo is the git repository that holds a vault, seen from the vault: every
// path is vault-relative with forward slashes, and "" names the vault
// folder itself. Revisions are anything git resolves ("HEAD", "main~2",
// an abbreviated id); "" means HEAD. Methods return an error wrapping
// ErrNotFound for a revision or file that is not there.
type Repo interface {
	// Log lists the commits reachable from opts.Rev that changed path (a
	// file or a folder), newest first, following renames. Entries whose
	// file was outside the vault at that commit have Path "".
	Log(ctx context.Context, path string, opts LogOptions) ([]LogEntry, error)
	// ReadFile returns a file's content at a revision.
	ReadFile(ctx context.Context, rev, path string) ([]byte, error)
	// Walk calls fn with every file of the vault at a revision; an error
	// from fn stops the walk and is returned.
	Walk(ctx context.Context, rev string, fn func(path string, data []byte) error) error
	// Diff lists the vault's files that differ between two commits; base
	// "" is the empty tree.
	Diff(ctx context.Context, base, head string) ([]FileChange, error)
	// Resolve returns the commit a revision names. HEAD on a branch with
	// no commits yet is not found.
	Resolve(ctx context.Context, rev string) (Commit, error)
	// ResolveTime returns the id of the newest commit on HEAD's
	// first-parent line whose commit time is at or before t.
	ResolveTime(ctx context.Context, t time.Time) (string, error)
	// MergeBase returns the best common ancestor of two revisions, as
	// `git merge-base` picks it; ErrNotFound when they have none.
	MergeBase(ctx context.Context, a, b string) (string, error)
}

// LogOptions selects the commits Log lists. The zero value lists every
// commit from HEAD that changed the path.
type LogOptions struct {
	// Rev is where the walk starts; "" means HEAD.
	Rev string
	// Follow is a trailer line ("Memory-Id: 01J..."): commits carrying it
	// are listed even when they did not change the path, and when such a
	// commit adds the path, the path it came from is followed whatever
	// the similarity.
	Follow string
	// NoRenames stops at the commit that added the path.
	NoRenames bool
	// Limit caps the number of commits; 0 means no limit.
	Limit int
	// FullHistory lists the commits of every side of a merge that kept
	// one side's version, as `git log --full-history`; by default only
	// the kept side is followed.
	FullHistory bool
}

// Signature names a commit's author.
type Signature struct {
	Name, Email string
}

// Commit is one commit.
type Commit struct {
	Hash       string
	Author     Signature
	When       time.Time // author time
	CommitTime time.Time // committer time: when the repository learnt it
	Message    string
	// Parents are the parents' ids, first parent first; two or more for
	// a merge. Log and Resolve fill it.
	Parents []string
}

// LogEntry is a commit in a path's log, with the path at that commit.
type LogEntry struct {
	Commit
	// Path is the file at this commit; OldPath the file in the parent
	// when this commit renamed it. Both are vault-relative, "" when
	// outside the vault.
	Path, OldPath string
	// Deleted is set when this commit deleted the file.
	Deleted bool
}

// FileChange is one file that differs between two commits. Old is nil for
// filechange.Added, New for filechange.Deleted. OldPath is the file in base:
// set for filechange.Renamed, equal to Path for Modified and Deleted.
type FileChange struct {
	Path, OldPath string
	Kind          filechange.Kind
	Old, New      []byte
}

var (
	// ErrNotFound reports a revision or a file the repository does not
	// have. Repo implementations wrap it.
	ErrNotFound = fault.New(fault.NotFound, "not in the repository")
	// ErrNoMatch reports a question no memory in force answers.
	ErrNoMatch = fault.New(fault.NotFound, "no memory in force matches")
	// ErrNoHistory reports that none of the vaults asked about has a git
	// history to read.
	ErrNoHistory = fault.New(fault.GitState, "no git history")
)

// RevisionError reports a revision the caller named that the repository
// does not resolve.
type RevisionError struct {
	Rev string // as the caller wrote it
	Err error
}

func (e *RevisionError) Error() string { return fmt.Sprintf("revision %s: %v", e.Rev, e.Err) }

// Unwrap returns the resolution error.
func (e *RevisionError) Unwrap() error { return e.Err }

// ShortHash abbreviates a commit id for people.
func ShortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
