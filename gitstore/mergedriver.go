package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ErrNoGitCLI means the git command is not installed: merge drivers and
// attributes are git's business, and only git answers for them.
var ErrNoGitCLI = kindErr("git_state", "the git command is not installed")

// gitCLI runs the git command at the top of the work tree and returns its
// standard output; a non-zero exit is an *exec.ExitError.
func (s *Store) gitCLI(ctx context.Context, args ...string) ([]byte, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGitCLI
	}
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = s.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// MergeDriver returns the command the clone registers for the merge
// driver name (merge.<name>.driver, from every config source git reads),
// "" when there is none.
func (s *Store) MergeDriver(ctx context.Context, name string) (string, error) {
	out, err := s.gitCLI(ctx, "config", "--get", "merge."+name+".driver")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "", nil // not set
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// SetMergeDriver registers the merge driver name in the repository's own
// config (shared by its linked worktrees): merge.<name>.name, a
// description, and merge.<name>.driver, the command git runs.
func (s *Store) SetMergeDriver(ctx context.Context, name, description, command string) error {
	if _, err := s.gitCLI(ctx, "config", "--local", "merge."+name+".name", description); err != nil {
		return err
	}
	_, err := s.gitCLI(ctx, "config", "--local", "merge."+name+".driver", command)
	return err
}

// Attribute returns the value git's attributes give attr for path
// (absolute, or relative to the top of the work tree; it need not exist):
// "unspecified", "set", "unset", or the value.
func (s *Store) Attribute(ctx context.Context, path, attr string) (string, error) {
	rel, err := s.rel(path)
	if err != nil {
		return "", err
	}
	out, err := s.gitCLI(ctx, "check-attr", attr, "--", rel)
	if err != nil {
		return "", err
	}
	// "path: attr: value"
	line := strings.TrimSpace(string(out))
	i := strings.LastIndex(line, ": ")
	if i < 0 {
		return "", fmt.Errorf("git check-attr %s -- %s: unexpected output %q", attr, rel, line)
	}
	return line[i+2:], nil
}

// MergeBase returns the best common ancestor of two revisions, as `git
// merge-base` picks it (and `git diff A...B` compares from): one of them
// when it is an ancestor of the other. It asks the git command, which
// settles criss-cross histories the way every other git tool does. Two
// revisions with no common ancestor are ErrNotFound.
func (s *Store) MergeBase(ctx context.Context, a, b string) (string, error) {
	for _, rev := range []string{a, b} {
		if strings.HasPrefix(rev, "-") {
			return "", fmt.Errorf("merge base: revision %q: %w", rev, ErrNotFound)
		}
	}
	out, err := s.gitCLI(ctx, "merge-base", "--end-of-options", a, b)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "", fmt.Errorf("merge base of %s and %s: %w (no common ancestor)", a, b, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	return strings.TrimSpace(string(out)), nil
}
