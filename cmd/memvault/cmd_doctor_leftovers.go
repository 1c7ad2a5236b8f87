package main

import (
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/doctor"
)

// mergeLeftoverChecks reports, and with fix removes, the temporary files
// of a merge driver a git killed in a merge left at the top of the work
// tree (.merge_file_*), when no git process works in the repository
// (issue 27 finding 5); nothing when there are none.
func mergeLeftoverChecks(store *gitstore.Store, fix bool) []doctor.Check {
	found, err := store.MergeLeftovers(fix)
	switch {
	case err != nil:
		return []doctor.Check{{Name: "git", Status: doctor.Problem, Detail: err.Error()}}
	case len(found) == 0:
		return nil
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = filepath.Base(f)
	}
	if fix {
		return []doctor.Check{{Name: "git", Status: doctor.Fixed, Detail: "removed a killed merge's temporary files: " + strings.Join(names, ", ")}}
	}
	return []doctor.Check{{Name: "git", Status: doctor.Problem,
		Detail: "a killed merge left its temporary files at " + store.Root() + ": " + strings.Join(names, ", ") + "; doctor --fix removes them"}}
}
