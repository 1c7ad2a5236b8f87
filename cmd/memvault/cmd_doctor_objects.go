package main

import (
	"fmt"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/doctor"
)

// objectsCheck reports the repository's object store: loose objects,
// which memvault's writes make and git gc --auto packs past gc.auto
// (gitstore's housekeeping starts it after a write), and packs (issue 24
// finding 8). Twice the threshold means housekeeping does not keep up:
// a problem, which git gc fixes.
func objectsCheck(store *gitstore.Store) doctor.Check {
	o, err := store.ObjectStats()
	if err != nil {
		return doctor.Check{Name: "objects", Status: doctor.Problem, Detail: fmt.Sprintf("could not count the git objects: %v", err)}
	}
	detail := fmt.Sprintf("%s (%s), %s (%s)", clitext.Plural(o.Loose, "loose object"), mebibytes(o.LooseBytes),
		clitext.Plural(o.Packs, "pack"), mebibytes(o.PackBytes))
	switch {
	case o.GCAuto == 0:
		return doctor.Check{Name: "objects", Status: doctor.Note, Detail: detail + "; gc.auto is 0: nothing packs them but git gc"}
	case o.Loose > 2*o.GCAuto:
		return doctor.Check{Name: "objects", Status: doctor.Problem,
			Detail: fmt.Sprintf("%s: more than twice gc.auto (%d), so housekeeping does not keep up; run git gc", detail, o.GCAuto)}
	}
	return doctor.Check{Name: "objects", Status: doctor.Note, Detail: fmt.Sprintf("%s; a write past gc.auto (%d loose) starts git gc --auto", detail, o.GCAuto)}
}

// mebibytes is a size for people.
func mebibytes(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
