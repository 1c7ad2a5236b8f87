package vault

import (
	"context"
	"fmt"

	"github.com/memvault/memvault/vault/fault"
)

// ErrGitOperation means a write was refused because git is in the middle
// of a merge, rebase, cherry-pick or the like in the vault's repository.
// The wrapping OperationError says which and what to run.
var ErrGitOperation = fault.New(fault.GitState, "a git operation is in progress")

// OperationReader reports a multi-step git operation under way in the
// vault's repository. gitstore.Store satisfies it.
type OperationReader interface {
	// Operation names the operation in progress ("merge", "rebase",
	// "cherry-pick", "revert", "am", "bisect"), or "" when none is.
	Operation(ctx context.Context) (string, error)
}

// OperationError refuses a write made while git is in the middle of Op. A
// memvault commit then would land inside the operation: on a merge, a
// commit with one parent that the merge commit would silently build on;
// on a rebase, a commit in the middle of the replayed ones. Reads go on
// serving the last good versions meanwhile.
type OperationError struct {
	Op string // "merge", "rebase", "cherry-pick", "revert", "am" or "bisect"
}

func (e *OperationError) Error() string {
	var what string
	switch e.Op {
	case "merge":
		what = "resolve the memory files in conflict (`memvault resolve`, or edit them and `git add` them), then run `git merge --continue`; or give the merge up with `git merge --abort`"
	case "rebase", "cherry-pick", "revert", "am":
		what = fmt.Sprintf("resolve the memory files in conflict (`memvault resolve`, or edit them and `git add` them), then run `git %s --continue`; or give it up with `git %s --abort`", e.Op, e.Op)
	case "bisect":
		what = "end it with `git bisect reset`"
	default:
		what = "finish it or abort it with git"
	}
	return fmt.Sprintf("%v: a git %s is under way in this repository, and a memory committed now would land in the middle of it. "+
		"Nothing was written; memories stay readable (files in conflict are served as last committed, labelled conflicted). "+
		"To write again, %s", ErrGitOperation, e.Op, what)
}

// Unwrap makes errors.Is(err, ErrGitOperation) hold.
func (e *OperationError) Unwrap() error { return ErrGitOperation }

// OperationInProgress returns the OperationError a write that commits
// would get now, or nil: memory_stats and the session digest say so
// before an assistant tries.
func (v *Vault) OperationInProgress(ctx context.Context) error {
	return v.refuseDuringOperation(ctx)
}

// refuseDuringOperation returns an OperationError when git is in the
// middle of an operation. Both doors reach it: every write that commits
// passes here before touching a file.
func (v *Vault) refuseDuringOperation(ctx context.Context) error {
	if v.ports.operations == nil {
		return nil
	}
	op, err := v.ports.operations.Operation(ctx)
	if err != nil {
		return fmt.Errorf("read the repository's state: %w", err)
	}
	if op != "" {
		return &OperationError{Op: op}
	}
	return nil
}
