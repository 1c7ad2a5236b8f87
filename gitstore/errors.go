package gitstore

// Sentinel errors. Functions wrap them with context; test with errors.Is.
var (
	// ErrNotRepository means no git work tree was found at or above a directory.
	ErrNotRepository = kindErr("git_state", "not a git repository")
	// ErrNoChange means a commit would not change anything relative to HEAD,
	// so none was made.
	ErrNoChange = kindErr("internal", "nothing to commit")
	// ErrOperationInProgress means a merge, rebase, cherry-pick, revert, am or
	// bisect is in progress; the wrapping error names which.
	ErrOperationInProgress = kindErr("git_state", "git operation in progress")
	// ErrIndexLocked means another process held .git/index.lock for longer
	// than Store.IndexLockTimeout.
	ErrIndexLocked = kindErr("git_state", "git index is locked by another process")
	// ErrNoIdentity means no author was given and none is configured.
	ErrNoIdentity = kindErr("git_state", "no git identity configured (user.name and user.email)")
	// ErrNotFound means a revision, a path at a revision, or a commit at a
	// time does not exist.
	ErrNotFound = kindErr("not_found", "not found")
	// ErrOutsideWorkTree means a path is not inside the repository's work
	// tree, or is inside its .git directory.
	ErrOutsideWorkTree = kindErr("invalid", "path outside the work tree")
	// ErrRefChanged means the branch kept moving under us and the commit
	// could not be placed on top of it after several attempts.
	ErrRefChanged = kindErr("conflict", "branch changed concurrently")
	// ErrHookTaken means InstallHook found someone else's hook under both
	// the hook's name and the name it keeps a replaced hook under.
	ErrHookTaken = kindErr("refused", "hook name taken")
	// ErrNotOurHook means UninstallHook found no hook, or someone else's.
	ErrNotOurHook = kindErr("refused", "not the installer's hook")
	// ErrUnsupported means the repository uses a feature this package cannot
	// write safely (SHA-256 objects, reftable refs, split or sparse index).
	ErrUnsupported = kindErr("git_state", "unsupported repository feature")
	// ErrDetachedHead means Change.RefuseDetached was set and HEAD names a
	// commit rather than a branch: a commit made there would be on no
	// branch, left behind by the next checkout.
	ErrDetachedHead = kindErr("git_state", "HEAD is detached")
)

// kindError is a sentinel error with a kind, named in the words of the
// domain's vault/fault (which fault.Of reads through ErrorKind): this
// package does not import the domain.
type kindError struct{ kind, msg string }

func kindErr(kind, msg string) *kindError { return &kindError{kind: kind, msg: msg} }

func (e *kindError) Error() string { return e.msg }

// ErrorKind returns the kind of failure, a vault/fault kind.
func (e *kindError) ErrorKind() string { return e.kind }
