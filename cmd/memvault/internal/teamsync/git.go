package teamsync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/memvault/memvault/vault/fault"
)

// Git runs the git command in the repository; Syncer declares it so that
// tests can run real git in real repositories, or watch the commands.
type Git interface {
	// Run runs git with args, env added to the process's environment,
	// and returns its standard output. A git that exits non-zero returns
	// a *GitError.
	Run(ctx context.Context, env []string, args ...string) (string, error)
}

// GitError is a git command that exited non-zero.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// ErrorKind says a git command failed: its message is git's own (a
// rejected push, a remote that cannot be reached), nothing memvault can
// classify further.
func (e *GitError) ErrorKind() string { return string(fault.Internal) }

// CLI is Git through the git command, run in Dir with the user's own
// environment, config and credentials (helpers, ssh agent): sync fetches
// and pushes as the user's git would.
type CLI struct {
	// Dir is the folder git runs in (the top of the work tree).
	Dir string
}

// Run implements Git.
func (c CLI) Run(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return stdout.String(), &GitError{Args: args, Code: exit.ExitCode(), Stderr: stdout.String() + stderr.String()}
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return stdout.String(), nil
}
