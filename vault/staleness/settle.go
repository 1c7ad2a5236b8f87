package staleness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/vault"
)

// SinceOf is when a memory was last written or confirmed: the later of
// its updated_at and verified_at (Item.Since).
func SinceOf(m *vault.Memory) time.Time {
	if m.VerifiedAt.After(m.UpdatedAt) {
		return m.VerifiedAt
	}
	return m.UpdatedAt
}

// Counting commits by time alone says "possibly stale" whenever the code
// changed in a commit dated after the memory's write. Every way of
// merging a pull request makes such commits: a merge commit brings the
// branch's code change into main's first-parent line, a squash copies it
// into one new commit, a rebase into new ones, each dated at the merge.
// The memory was written with that code all the same. settle decides by
// ancestry and content instead, for the refs a backward walk counted
// changes for: it finds the memory's writing commit W on head's
// first-parent line (the newest commit that changed the memory's file
// whose version sets its current Since, where the version before did
// not), and drops the counted changes of each ref that no commit newer
// than W changed, or whose content (a file's blob, a symbol's definition
// block) is at head what it was at W. W's own changes are the memory's:
// a merge commit, a squash commit, or the last of a rebase's commits
// that holds the memory's write holds the code it was written with.

// candidate is one memory whose counted changes settle may drop.
type candidate struct {
	e    *entry
	refs []*refState
	// seen: a change of the memory's file was met; done: W was found
	// (written) or cannot be (the committed version is not the one
	// tracked, or the file was deleted).
	seen, done, written bool
	// version is the tracked version's number, read with its Since.
	version int
	// after is, per ref, the changes newer than W met so far.
	after map[*refState]*span
}

// span is a ref's changes newer than W: the content at head (the newest
// change's new blob) and at W (the oldest one's old blob); moved says
// one of them renamed or deleted the file, or concerned another file.
type span struct {
	newest, oldest string
	moved          bool
	// commits is how many commits they are; last is the newest seen.
	commits int
	last    string
}

// settle applies the ancestry and content rule to the refs of es that
// count changes, in one first-parent walk from head watching those
// memories' files and refs, down to the oldest of their Since (a
// memory's own write is no older).
func (t *Tracker) settle(ctx context.Context, head string, es []*entry) error {
	byPath := map[string][]*candidate{}
	byEntry := map[*entry]*candidate{}
	var view []*entry // the candidates' counted refs, for a matcher
	var oldest time.Time
	for _, e := range es {
		if e.path == "" {
			continue
		}
		var rs []*refState
		for _, r := range e.refs {
			if r.count > 0 && !r.gone {
				rs = append(rs, r)
			}
		}
		if len(rs) == 0 {
			continue
		}
		k := &candidate{e: e, refs: rs, after: map[*refState]*span{}}
		v := &entry{refs: rs}
		byEntry[v] = k
		view = append(view, v)
		byPath[e.path] = append(byPath[e.path], k)
		// Commit times have whole seconds; Since may not.
		if s := e.since.Truncate(time.Second); oldest.IsZero() || s.Before(oldest) {
			oldest = s
		}
	}
	if len(view) == 0 {
		return nil
	}
	m, prefixes := newMatcher(view)
	for p := range byPath {
		prefixes = append(prefixes, p)
	}
	left := len(view)
	err := t.git.Walk(ctx, head, "", coverPrefixes(prefixes), func(c Commit) error {
		if c.Time.Before(oldest) {
			return errDone
		}
		// The memory's files first: the code a commit changes together
		// with the memory's write is not newer than it.
		for _, ch := range c.Changes {
			for _, k := range byPath[ch.Path] {
				if k.done {
					continue
				}
				if err := t.meet(ctx, k, ch); err != nil {
					return err
				}
				if k.done {
					left--
				}
			}
		}
		if left == 0 {
			return errDone
		}
		for _, ch := range c.Changes {
			visit := func(p string) {
				m.hits(p, func(h hit) {
					k := byEntry[h.e]
					if k.done {
						return
					}
					sp := k.after[h.r]
					if sp == nil {
						sp = &span{newest: ch.NewBlob}
						k.after[h.r] = sp
					}
					sp.oldest = ch.OldBlob
					if sp.last != c.ID {
						sp.last = c.ID
						sp.commits++
					}
					if ch.Kind != filechange.Modified || ch.Path != h.r.ref.Path {
						sp.moved = true
					}
				})
			}
			visit(ch.Path)
			if ch.Kind == filechange.Renamed && ch.OldPath != ch.Path {
				visit(ch.OldPath)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDone) {
		return fmt.Errorf("staleness: the memories' own commits: %w", err)
	}
	for _, k := range byEntry {
		if !k.written {
			continue
		}
		for _, r := range k.refs {
			same, err := t.sameSince(ctx, r, k.after[r])
			if err != nil {
				return err
			}
			switch sp := k.after[r]; {
			case same:
				r.count, r.latestID, r.latestSubj, r.lastCounted = 0, "", "", ""
			case r.ref.Symbol == "" && sp.commits < r.count:
				// Only the changes after W count (a symbol's were
				// counted for its block alone: kept).
				r.count = sp.commits
			}
		}
	}
	return nil
}

// meet reads a change of candidate k's memory file, newest first: the
// first one met must hold the version tracked (else the tracked one is
// not committed: nothing to settle); the one whose version before it
// is another write (another Since, or the same Since with another
// version number: an update within the second of the write before it),
// or none, is W.
func (t *Tracker) meet(ctx context.Context, k *candidate, ch Change) error {
	if ch.Kind == filechange.Deleted {
		k.done = true
		return nil
	}
	if !k.seen {
		k.seen = true
		cur, err := t.git.Blob(ctx, ch.NewBlob)
		if err != nil {
			return err
		}
		w := writeOf(k.e.path, cur)
		if !w.since.Equal(k.e.since) {
			k.done = true
			return nil
		}
		k.version = w.version
	}
	if ch.OldBlob != "" && (ch.Kind == filechange.Modified || ch.Kind == filechange.Renamed) {
		old, err := t.git.Blob(ctx, ch.OldBlob)
		if err != nil {
			return err
		}
		if w := writeOf(k.e.path, old); w.since.Equal(k.e.since) && w.version == k.version {
			// A later edit or rename of the same version: W is older
			// (past a rename, on a path not watched: nothing settles).
			return nil
		}
	}
	k.done, k.written = true, true
	return nil
}

// write is what a memory file's content says of its last write: its
// Since and its version number.
type write struct {
	since   time.Time
	version int
}

// writeOf is the write of a memory file's content; zero when it does not
// parse.
func writeOf(path string, data []byte) write {
	m, _ := vault.ParseMemory(path, data, time.Time{})
	if m == nil {
		return write{}
	}
	return write{SinceOf(m), m.Version}
}

// sameSince reports whether ref r is at head what it was at W, given its
// changes newer than W: none, or (for a file, or a symbol's block) the
// same content at both ends.
func (t *Tracker) sameSince(ctx context.Context, r *refState, sp *span) (bool, error) {
	if sp == nil {
		return true, nil
	}
	if sp.moved || r.ref.Kind != File {
		return false, nil
	}
	if sp.oldest == sp.newest {
		return true, nil
	}
	if r.ref.Symbol == "" {
		return false, nil
	}
	old, err := t.git.Blob(ctx, sp.oldest)
	if err != nil {
		return false, err
	}
	cur, err := t.git.Blob(ctx, sp.newest)
	if err != nil {
		return false, err
	}
	return bytes.Equal(old, cur) || !symbolChanged(r.ref.Path, old, cur, r.ref.Symbol), nil
}
