package main

import (
	"errors"
	"fmt"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/hook"
	"github.com/memvault/memvault/cmd/memvault/internal/teamsync"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/merge"
)

// Exit statuses of the pinned CLI interface.
const (
	exitOK       = 0
	exitUsage    = 1 // usage or input error: the message names the problem
	exitInternal = 2 // anything else
	// exitSkipped: import did its work but refused items of the source (a
	// secret, a malformed line, an invalid or oversized item); the report
	// lists them.
	exitSkipped = 3
)

// skippedError reports an import that refused items; its exit status is
// exitSkipped.
type skippedError struct{ n int }

func (e skippedError) Error() string {
	return fmt.Sprintf("import: %s of the source refused (secrets, malformed or invalid items; the report lists them)", clitext.Plural(e.n, "item"))
}

// usageError marks an error the user can fix by changing the command.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitCode maps an error to the CLI's exit status: input problems (bad
// flags, invalid fields, unknown ids, version conflicts, malformed files,
// a title an active memory has already, a vault that is not there, a
// query past the limits) are 1, the rest 2.
func exitCode(err error) int {
	var u usageError
	var big *vault.QueryTooLargeError
	var st exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return st.code
	case errors.As(err, new(skippedError)):
		return exitSkipped
	case errors.As(err, &u),
		errors.As(err, &big),
		errors.Is(err, vault.ErrInvalid),
		errors.Is(err, vault.ErrInvalidLayer),
		errors.Is(err, vault.ErrNotFound),
		errors.Is(err, vault.ErrConflict),
		errors.Is(err, vault.ErrUnchanged),
		errors.Is(err, vault.ErrMalformedFile),
		errors.Is(err, vault.ErrSupersedesSelf),
		errors.Is(err, vault.ErrSupersessionCycle),
		errors.Is(err, vault.ErrAmbiguousID),
		errors.Is(err, vault.ErrReadOnly),
		errors.Is(err, vault.ErrDuplicate),
		errors.Is(err, vault.ErrNoVault),
		errors.Is(err, gitstore.ErrNoIdentity),
		errors.Is(err, gitstore.ErrOperationInProgress),
		errors.Is(err, vault.ErrGitOperation),
		errors.Is(err, gitstore.ErrDetachedHead),
		errors.Is(err, gitrepo.ErrForeignRepository),
		errors.Is(err, gitstore.ErrNotRepository),
		errors.Is(err, gitstore.ErrNotFound),
		errors.Is(err, vault.ErrNotUnmerged), errors.Is(err, merge.ErrUnmergeable), errors.Is(err, vault.ErrConflictMarkers),
		errors.Is(err, teamsync.ErrConflicts), errors.Is(err, teamsync.ErrInProgress), errors.Is(err, teamsync.ErrDetached), errors.Is(err, hook.ErrRefused):
		return exitUsage
	}
	return exitInternal
}
