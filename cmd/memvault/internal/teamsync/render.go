package teamsync

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/vault/resolve"
)

// WriteResolved prints one line per file resolve resolved, with the
// vault's folder dir before each path; ok says the run had no error, so
// that an empty list means there was nothing to resolve.
func WriteResolved(w io.Writer, dir string, rs []resolve.Resolved, ok bool) {
	if len(rs) == 0 && ok {
		fmt.Fprintf(w, "nothing to resolve: no unmerged memory file under %s\n", dir)
		return
	}
	at := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	for _, r := range rs {
		line := fmt.Sprintf("%-14s %s", r.Action, at(r.Path))
		switch r.Action {
		case resolve.ActionConflict:
			line += fmt.Sprintf(": both sides changed %s; kept ours, theirs is in the file's conflict entry (edit it, remove the entry, commit)", strings.Join(r.Conflicts, ", "))
		case resolve.ActionSplit, resolve.ActionBoth:
			line += fmt.Sprintf(" and %s (%s)", at(r.NewPath), r.NewID)
		case resolve.ActionRenamed:
			line += " into " + at(r.NewPath)
			if len(r.Conflicts) > 0 {
				line += fmt.Sprintf(", with a conflict entry for %s", strings.Join(r.Conflicts, ", "))
			}
		}
		if r.Note != "" && r.Action != resolve.ActionSplit {
			line += " (" + r.Note + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// WriteReport prints what a sync did, in a few lines, and what resolve
// did with the vault at dir; err is the sync's error, if any.
func WriteReport(w io.Writer, dir string, rep Report, err error) {
	if rep.Recovered != "" {
		fmt.Fprintf(w, "recovered: a sync killed in its %s was undone (the repository is as before it), then synced again\n", rep.Recovered)
	}
	if rep.Committed != "" {
		fmt.Fprintf(w, "committed: %s\n", rep.Committed)
	}
	verb := "merged"
	if rep.Rebase {
		verb = "rebased onto"
	}
	switch {
	case !rep.Merged && err != nil:
		// Stopped before anything came from the remote.
	case rep.Merged && len(rep.Resolved) > 0:
		fmt.Fprintf(w, "%s %s/%s; resolved %d memory file(s)\n", verb, rep.Remote, rep.RemoteBranch, len(rep.Resolved))
	case rep.Merged:
		fmt.Fprintf(w, "%s %s/%s\n", verb, rep.Remote, rep.RemoteBranch)
	default:
		fmt.Fprintf(w, "nothing new on %s/%s\n", rep.Remote, rep.RemoteBranch)
	}
	WriteResolved(w, dir, rep.Resolved, false)
	if n := len(rep.Lint.Conflicted); n > 0 {
		fmt.Fprintf(w, "%d memory file(s) carry a conflict entry for a person to decide (memvault stats): %s\n", n, strings.Join(rep.Lint.Conflicted, ", "))
	}
	for _, b := range rep.Broken {
		fmt.Fprintf(w, "broken memory file: %s\n", b)
	}
	if rep.Pushed {
		fmt.Fprintf(w, "pushed %s to %s/%s\n", rep.Branch, rep.Remote, rep.RemoteBranch)
	}
}
