package main

import (
	"errors"
	"fmt"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/outcome"
	"github.com/memvault/memvault/vault/fault"
)

// Exit statuses of the pinned CLI interface.
const (
	exitOK       = outcome.ExitOK
	exitUsage    = outcome.ExitUser     // a failure the user can act on: the message names it
	exitInternal = outcome.ExitInternal // anything else
	// exitSkipped: import did its work but refused items of the source (a
	// secret, a malformed line, an invalid or oversized item); the report
	// lists them.
	exitSkipped = outcome.ExitSkipped
)

// skippedError reports an import that refused items; its exit status is
// exitSkipped.
type skippedError struct{ n int }

func (e skippedError) Error() string {
	return fmt.Sprintf("import: %s of the source refused (secrets, malformed or invalid items; the report lists them)", clitext.Plural(e.n, "item"))
}

// ErrorKind says the source held items the user can fix.
func (e skippedError) ErrorKind() string { return string(fault.Invalid) }

// usageError marks an error the user can fix by changing the command.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// ErrorKind says the user can fix the command.
func (e usageError) ErrorKind() string { return string(fault.Invalid) }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitCode maps an error to the CLI's exit status: an exitStatus's own,
// exitSkipped for an import that refused items, else by the error's kind
// through outcome's table, the one the MCP server's errors follow too.
func exitCode(err error) int {
	var st exitStatus
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return st.code
	case errors.As(err, new(skippedError)):
		return exitSkipped
	}
	return outcome.For(err).Exit
}
