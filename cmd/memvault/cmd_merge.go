package main

import (
	"context"
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
OURS (rules: docs/team.md). Exit 0: clean; 1: a person must decide. Either
both sides changed something differently (OURS keeps ours and records
theirs in its "conflict" entry) or the sides cannot be merged field by
field (a side that does not parse, two memories at one path, more than
merge.MaxKeys keys, a result over the size limit, their side holding
conflict markers): then OURS holds both sides whole between conflict
markers, git keeps the path unmerged, and memvault resolve PATH settles it.
Above 128: failed (interrupted). memvault init and doctor --fix register it.`,
		Args: cobra.ExactArgs(4),
		RunE: func(cmd *cobra.Command, args []string) error {
			return m.mergeDriver(cmd.Context(), args[0], args[1], args[2], args[3])
		},
	}
}

func (m *Main) mergeDriver(ctx context.Context, basePath, oursPath, theirsPath, name string) error {
	res, err := merge.Driver(ctx, basePath, oursPath, theirsPath)
	var two *merge.TwoMemoriesError
	switch {
	case errors.As(err, &two):
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: two different memories at one path (ours %s, theirs %s): the file holds both between conflict markers; "+
			"memvault resolve %s keeps both, each in a file of its own", name, two.Ours, two.Theirs, name)}
	case errors.Is(err, merge.ErrUnmergeable):
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: %w; the file holds both sides whole between conflict markers: "+
			"memvault resolve %s keeps the side that parses and records the other whole in its conflict entry, for you to choose "+
			"(or memvault resolve --ours/--theirs %[3]s takes one side whole)", name, err, name)}
	case err != nil:
		return exitStatus{exitMergeFailure, fmt.Errorf("merge %s: %w", name, err)}
	case res.TheirsMarkers > 0:
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: theirs holds git conflict markers (line %d), a merge left half done: kept ours, theirs is in the file's conflict entry; "+
			"edit the file, remove the conflict entry, then git add it", name, res.TheirsMarkers)}
	case len(res.Conflicts) > 0:
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: both sides changed %s: kept ours, theirs is in the file's conflict entry; edit the file, remove the conflict entry, then git add it", name, strings.Join(res.Conflicts, ", "))}
	}
	return nil
}
