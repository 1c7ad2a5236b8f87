package main

import (
	"errors"
	"fmt"
	"os"
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
		Long: `merge-driver is git's merge driver for memory files (git passes %O %A %B %P).
It merges the common ancestor BASE, OURS and THEIRS field by field and the
body line by line, and writes the result to OURS. Exit 0: merged cleanly.
Exit 1: both sides changed something differently; OURS keeps our value and
records theirs in its "conflict" entry (never conflict markers), and the
memory is labelled conflicted until someone resolves it. Above 128: the
merge failed. The rules are in docs/team.md; memvault init registers the
driver.`,
		Args: cobra.ExactArgs(4),
		RunE: func(_ *cobra.Command, args []string) error {
			return m.mergeDriver(args[0], args[1], args[2], args[3])
		},
	}
}

func (m *Main) mergeDriver(basePath, oursPath, theirsPath, name string) error {
	fail := func(err error) error { return exitStatus{exitMergeFailure, fmt.Errorf("merge %s: %w", name, err)} }
	var in [3][]byte
	for i, p := range []string{basePath, oursPath, theirsPath} {
		b, err := os.ReadFile(p)
		if err != nil {
			return fail(err)
		}
		in[i] = b
	}
	res, err := merge.Files(in[0], in[1], in[2])
	if errors.Is(err, merge.ErrUnmergeable) {
		// Ours stays as it is, without markers; theirs is one
		// `git checkout --theirs` away.
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: %w; kept ours as it is: compare with git checkout --theirs -- %s, then git add it", name, err, name)}
	} else if err != nil {
		return fail(err)
	}
	if err := os.WriteFile(oursPath, res.Data, 0o644); err != nil {
		return fail(err)
	}
	if len(res.Conflicts) > 0 {
		return exitStatus{exitMergeConflict, fmt.Errorf("%s: both sides changed %s: kept ours, theirs is in the file's conflict entry; edit the file, remove the conflict entry, then git add it", name, strings.Join(res.Conflicts, ", "))}
	}
	return nil
}
