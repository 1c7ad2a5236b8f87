package gitstore

import (
	"container/heap"
	"context"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// RangeCommit is one commit of a range (CommitsBetween) with the files
// under the folder asked about that it changed.
type RangeCommit struct {
	CommitInfo
	// Parents counts the commit's parents: more than one for a merge.
	Parents int
	// Changes are the files it changed, sorted by path, with their
	// content before (Old) and after (New). Renames are not paired: a
	// move is a Deleted and an Added change.
	Changes []FileChange
}

// Range flags of CommitsBetween's walk.
const (
	rangeQueued        = 1 << iota // pushed once; never pushed again
	rangeUninteresting             // reachable from base
)

// CommitsBetween lists the commits reachable from head ("" is HEAD) and
// not from base ("" excludes nothing), as `git log base..head` does,
// newest first by commit time, keeping those that changed a file under
// dir: a commit with one parent against that parent, a root commit
// against the empty tree, and a merge only with the files that differ
// from every parent, that is what the merge itself decided (a conflict
// resolved by hand), as `git log --cc` shows it. So each change is
// reported once, by the commit that made it, with its own author and
// message, whether it came through a fast-forward or a merge. At most
// limit commits are returned (0: no limit); more reports that the range
// holds others that changed dir.
//
// The walk pops commits newest first and marks ancestors of base as it
// meets them, so it reads only the commits of the range and the few
// around its edge; like git, it trusts commit times to grow along
// parents (a commit dated before its parent may be listed wrongly).
func (s *Store) CommitsBetween(ctx context.Context, base, head, dir string, limit int) (out []RangeCommit, more bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, false, err
	}
	rel, err := s.rel(dir)
	if err != nil {
		return nil, false, err
	}
	h, err := s.resolve(head)
	if err != nil {
		return nil, false, err
	}
	w := rangeWalk{s: s, flags: map[plumbing.Hash]uint8{}}
	if base != "" {
		b, err := s.resolve(base)
		if err != nil {
			return nil, false, err
		}
		if err := w.push(b, true); err != nil {
			return nil, false, err
		}
	}
	if err := w.push(h, false); err != nil {
		return nil, false, err
	}
	for w.interesting > 0 {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		c := heap.Pop(&w.queue).(walkItem).commit
		unint := w.flags[c.Hash]&rangeUninteresting != 0
		if !unint {
			w.interesting--
		}
		for _, p := range c.ParentHashes {
			if err := w.push(p, unint); err != nil {
				return nil, false, err
			}
		}
		if unint {
			continue
		}
		changes, err := s.commitChanges(ctx, c, rel)
		if err != nil {
			return nil, false, err
		}
		if len(changes) == 0 {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, true, nil
		}
		out = append(out, RangeCommit{CommitInfo: commitInfo(c), Parents: len(c.ParentHashes), Changes: changes})
	}
	return out, false, nil
}

// rangeWalk is CommitsBetween's queue and marks.
type rangeWalk struct {
	s     *Store
	flags map[plumbing.Hash]uint8
	queue walkQueue
	seq   int
	// interesting counts the queued commits not known to be reachable
	// from base; the walk ends when none is left.
	interesting int
}

// push queues commit h once; unint marks it (and, when it is popped,
// its parents) as reachable from base. A commit queued as interesting
// and found reachable from base before it is popped is marked then.
func (w *rangeWalk) push(h plumbing.Hash, unint bool) error {
	f := w.flags[h]
	if f&rangeQueued != 0 {
		if unint && f&rangeUninteresting == 0 {
			w.flags[h] = f | rangeUninteresting
			if w.popped(h) {
				return nil
			}
			w.interesting--
		}
		return nil
	}
	c, err := w.s.getCommit(h)
	if err != nil {
		return err
	}
	w.flags[h] = rangeQueued
	if unint {
		w.flags[h] |= rangeUninteresting
	} else {
		w.interesting++
	}
	w.seq++
	heap.Push(&w.queue, walkItem{commit: c, when: c.Committer.When.Unix(), node: -1, seq: w.seq})
	return nil
}

// popped reports whether h has left the queue.
func (w *rangeWalk) popped(h plumbing.Hash) bool {
	for _, it := range w.queue {
		if it.commit.Hash == h {
			return false
		}
	}
	return true
}

// commitChanges lists the files under rel that commit c changed (see
// CommitsBetween), with their content.
func (s *Store) commitChanges(ctx context.Context, c *object.Commit, rel string) ([]FileChange, error) {
	at := func(tree plumbing.Hash) (plumbing.Hash, error) {
		e, ok, err := s.lookupPath(tree, rel)
		if err != nil || !ok || e.mode != modeDir {
			return plumbing.ZeroHash, err
		}
		return e.hash, nil
	}
	mine, err := at(c.TreeHash)
	if err != nil {
		return nil, err
	}
	var diffs []treeDiff
	for i, ph := range c.ParentHashes {
		p, err := s.getCommit(ph)
		if err != nil {
			return nil, err
		}
		theirs, err := at(p.TreeHash)
		if err != nil {
			return nil, err
		}
		d, err := s.diffTree(ctx, theirs, mine, rel, nil)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			diffs = d
			continue
		}
		// A merge keeps only what differs from every parent.
		also := make(map[string]bool, len(d))
		for _, x := range d {
			also[x.path] = true
		}
		kept := diffs[:0]
		for _, x := range diffs {
			if also[x.path] {
				kept = append(kept, x)
			}
		}
		diffs = kept
		if len(diffs) == 0 {
			return nil, nil
		}
	}
	if len(c.ParentHashes) == 0 {
		if diffs, err = s.diffTree(ctx, plumbing.ZeroHash, mine, rel, nil); err != nil {
			return nil, err
		}
	}
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].path < diffs[j].path })
	return s.fileChanges(diffs)
}
