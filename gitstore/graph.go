package gitstore

import (
	"context"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// GraphCommit is one commit of WalkGraph.
type GraphCommit struct {
	Hash string
	// Parents are the parents' ids, first parent first.
	Parents []string
	// Time is the committer time.
	Time    time.Time
	Message string
	// Changed holds, for each parent in order (for a root commit, one
	// list, against nothing), the paths at or under the walked prefix
	// whose entry differs: a file, folder or submodule there on one side
	// only, or with another id or mode. Each list is sorted.
	Changed [][]string
}

// WalkGraph calls fn for every commit reachable from rev that known does
// not report (known commits' ancestors are not walked either), in no
// particular order, with the entries under prefix (repository-relative,
// "" for everything) it changed against each parent: what History asks
// of a commit, for a HistoryIndex. The store's lock is not held while fn
// runs.
func (s *Store) WalkGraph(ctx context.Context, rev, prefix string, known func(hash string) bool, fn func(GraphCommit) error) error {
	s.mu.Lock()
	err := s.begin(ctx)
	var start plumbing.Hash
	if err == nil {
		start, err = s.resolve(rev)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	seen := map[plumbing.Hash]bool{start: true}
	stack := []plumbing.Hash{start}
	if known(start.String()) {
		return nil
	}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		gc, parents, err := s.graphCommit(ctx, h, prefix)
		if err != nil {
			return err
		}
		if err := fn(gc); err != nil {
			return err
		}
		for i, p := range parents {
			if !seen[p] && !known(gc.Parents[i]) {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return nil
}

// graphCommit reads one commit for WalkGraph.
func (s *Store) graphCommit(ctx context.Context, h plumbing.Hash, prefix string) (GraphCommit, []plumbing.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return GraphCommit{}, nil, err
	}
	c, err := s.getCommit(h)
	if err != nil {
		return GraphCommit{}, nil, err
	}
	gc := GraphCommit{Hash: h.String(), Parents: parentIDs(c), Time: c.Committer.When, Message: c.Message}
	if len(c.ParentHashes) == 0 {
		ch, err := s.changedEntries(plumbing.ZeroHash, c.TreeHash, prefix)
		if err != nil {
			return GraphCommit{}, nil, err
		}
		gc.Changed = [][]string{ch}
		return gc, nil, nil
	}
	gc.Changed = make([][]string, len(c.ParentHashes))
	for i, ph := range c.ParentHashes {
		pc, err := s.getCommit(ph)
		if err != nil {
			return GraphCommit{}, nil, err
		}
		if gc.Changed[i], err = s.changedEntries(pc.TreeHash, c.TreeHash, prefix); err != nil {
			return GraphCommit{}, nil, err
		}
	}
	return gc, c.ParentHashes, nil
}

// changedEntries lists the paths at or under prefix whose entry, as
// lookupPath finds it, differs between root trees a and b (zero: none),
// sorted.
func (s *Store) changedEntries(a, b plumbing.Hash, prefix string) ([]string, error) {
	ea, okA, err := s.lookupPath(a, prefix)
	if err != nil {
		return nil, err
	}
	eb, okB, err := s.lookupPath(b, prefix)
	if err != nil {
		return nil, err
	}
	if okA == okB && (!okA || (ea.hash == eb.hash && ea.mode == eb.mode)) {
		return nil, nil
	}
	out := []string{prefix}
	var da, db plumbing.Hash
	if okA && ea.isDir() {
		da = ea.hash
	}
	if okB && eb.isDir() {
		db = eb.hash
	}
	if out, err = s.entryDiff(da, db, prefix, out); err != nil {
		return nil, err
	}
	// A name that is a file on one side and a folder on the other comes
	// twice.
	slices.Sort(out)
	return slices.Compact(out), nil
}

// entryDiff appends the paths below prefix whose entries differ between
// trees a and b (zero: empty), entries of folders included.
func (s *Store) entryDiff(a, b plumbing.Hash, prefix string, out []string) ([]string, error) {
	if a == b {
		return out, nil
	}
	var ea, eb []treeEntry
	for _, side := range []struct {
		h  plumbing.Hash
		es *[]treeEntry
	}{{a, &ea}, {b, &eb}} {
		if side.h.IsZero() {
			continue
		}
		t, err := s.getTree(side.h)
		if err != nil {
			return nil, err
		}
		*side.es = t.entries
	}
	var err error
	one := func(e treeEntry, added bool) {
		p := joinPath(prefix, e.name)
		out = append(out, p)
		if e.isDir() {
			if added {
				out, err = s.entryDiff(plumbing.ZeroHash, e.hash, p, out)
			} else {
				out, err = s.entryDiff(e.hash, plumbing.ZeroHash, p, out)
			}
		}
	}
	i, j := 0, 0
	for (i < len(ea) || j < len(eb)) && err == nil {
		var c int
		switch {
		case i == len(ea):
			c = 1
		case j == len(eb):
			c = -1
		default:
			c = treeCompare(ea[i].name, ea[i].isDir(), eb[j].name, eb[j].isDir())
		}
		switch {
		case c < 0:
			one(ea[i], false)
			i++
		case c > 0:
			one(eb[j], true)
			j++
		default:
			x, y := ea[i], eb[j]
			i++
			j++
			if x.hash == y.hash && x.mode == y.mode {
				continue
			}
			p := joinPath(prefix, x.name)
			out = append(out, p)
			if x.isDir() {
				out, err = s.entryDiff(x.hash, y.hash, p, out)
			}
		}
	}
	return out, err
}
