package staleness

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/memvault/memvault/filechange"
)

// maxHops bounds how many renames in a row a ref is followed through.
const maxHops = 8

// Renames in a row: a memory names a.go; one commit renames it to b.go
// and a later one b.go to c.go. The walk that finds the first rename
// watches a.go only, so it says "renamed to b.go"; the memory should be
// told where the file is now. follow watches the new names and reads
// the commits after each rename, as often as the file moved again.

// hopIn looks through cs (newest first, all watching the refs' current
// names) for what happened to each ref's file after the ref's rename,
// oldest first: renamed again (movedTo follows; the ref is returned in
// moved), or deleted (the ref is gone without a new place). Commits
// older than the ref's rename, and the rename itself, are skipped.
func hopIn(cs []Commit, refs []*refState) (moved []*refState) {
	pos := make(map[string]int, len(cs))
	for i, c := range cs {
		pos[c.ID] = i
	}
	for _, r := range refs {
		g, ok := pos[r.goneID]
		if !ok {
			g = len(cs) // older than every commit of cs
		}
		hopped := false
	commits:
		for i := g - 1; i >= 0; i-- {
			for _, ch := range cs[i].Changes {
				switch {
				case ch.Kind == filechange.Renamed && ch.OldPath == r.movedTo && ch.Path != r.movedTo:
					r.movedTo, r.goneID, r.goneSubj = ch.Path, cs[i].ID, cs[i].Subject
					hopped = true
				case ch.Kind == filechange.Deleted && ch.Path == r.movedTo:
					r.movedTo, r.goneID, r.goneSubj = "", cs[i].ID, cs[i].Subject
					hopped = false
					break commits
				}
			}
		}
		if hopped {
			moved = append(moved, r)
		}
	}
	return moved
}

// follow brings refs, gone by a rename, to the file's place at head,
// walking from head down to stop ("": down to the oldest of their
// renames) once per rename in a row. Refs renamed in head itself need
// no walk.
func (t *Tracker) follow(ctx context.Context, head, stop string, refs []*refState) error {
	for range maxHops {
		var pending []*refState
		for _, r := range refs {
			if r.gone && r.movedTo != "" && r.goneID != head {
				pending = append(pending, r)
			}
		}
		if len(pending) == 0 {
			return nil
		}
		var prefixes []string
		need := map[string]bool{}
		for _, r := range pending {
			prefixes = append(prefixes, r.movedTo)
			need[r.goneID] = true
		}
		slices.Sort(prefixes)
		prefixes = slices.Compact(prefixes)
		var cs []Commit
		err := t.git.Walk(ctx, head, stop, prefixes, func(c Commit) error {
			cs = append(cs, c)
			delete(need, c.ID)
			if stop == "" && len(need) == 0 {
				return errDone // every rename is behind us
			}
			return nil
		})
		if err != nil && !errors.Is(err, errDone) {
			return fmt.Errorf("staleness: follow renames: %w", err)
		}
		refs = hopIn(cs, pending)
	}
	return nil
}

// movedRefs lists the refs of es gone by a rename.
func movedRefs(es []*entry) []*refState {
	var out []*refState
	for _, e := range es {
		for _, r := range e.refs {
			if r.gone && r.movedTo != "" {
				out = append(out, r)
			}
		}
	}
	return out
}
