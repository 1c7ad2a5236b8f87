package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/vault/merge"
)

// Exit statuses of merge-driver, git's convention for merge drivers.
const (
	exitMergeConflict = 1   // merged with conflicts: a person must decide
	exitMergeFailure  = 129 // could not merge at all: git fails the merge
)

// exitStatus carries a command's own exit status to Run.
type exitStatus struct {
	code int
	err  error
}

func (e exitStatus) Error() string { return e.err.Error() }
func (e exitStatus) Unwrap() error { return e.err }

func (m *Main) mergeDriverCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS PATH",
		Short: "Merge a memory file field by field (run by git: merge.memvault.driver)",
		Long: `merge-driver merges BASE, OURS and THEIRS (git's %O %A %B %P) field by field into
OURS (rules: docs/team.md). Exit 0: clean; 1: both sides changed something
differently, OURS keeps ours and records theirs in its "conflict" entry,
never markers; above 128: failed. memvault init and doctor --fix register it.`,
		Args: cobra.ExactArgs(4),
		RunE: func(_ *cobra.Command, args []string) error {
			return m.mergeDriver(args[0], args[1], args[2], args[3])
		},
	}
}

func (m *Main) mergeDriver(basePath, oursPath, theirsPath, name string) error {
	res, err := merge.Driver(basePath, oursPath, theirsPath)
	switch {
	case errors.Is(err, merge.ErrUnmergeable):
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: %w; kept ours as it is: memvault resolve keeps both memories (two ids), or compare with git checkout --theirs -- %s", name, err, name)}
	case err != nil:
		return exitStatus{exitMergeFailure, fmt.Errorf("merge %s: %w", name, err)}
	case len(res.Conflicts) > 0:
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: both sides changed %s: kept ours, theirs is in the file's conflict entry; edit the file, remove the conflict entry, then git add it", name, strings.Join(res.Conflicts, ", "))}
	}
	return nil
}
