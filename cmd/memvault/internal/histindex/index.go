package histindex

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memvault/memvault/gitstore"
)

// Graph is the repository the index reads: gitstore.Store.
type Graph interface {
	WalkGraph(ctx context.Context, rev, prefix string, known func(hash string) bool, fn func(gitstore.GraphCommit) error) error
}

var _ Graph = (*gitstore.Store)(nil)

// Index keeps the commits reachable from one tip, with what History asks
// of each: parents, commit time, the entries under the prefix that differ
// from each parent, and the values of one trailer key. It is safe for
// concurrent use: Snapshot returns what a walk reads, which Update never
// changes.
type Index struct {
	prefix, key string
	update      sync.Mutex // one Update at a time
	cur         atomic.Pointer[Snapshot]
}

// Snapshot is the index at one tip. It implements gitstore.HistoryIndex
// and does not change.
type Snapshot struct {
	prefix, key string
	tip         string
	nums        map[string]int
	commits     []commit
	pathNum     map[string]int32
	paths       []string
}

// commit is one commit of the index.
type commit struct {
	hash     string
	when     int64
	parents  []int
	changed  [][]int32 // per parent (one list for a root), sorted path numbers
	trailers []string  // values of the key's trailer lines
}

var _ gitstore.HistoryIndex = (*Snapshot)(nil)

// New returns an empty index of the entries at or under prefix
// (repository-relative, "" for everything) that records the trailer key.
func New(prefix, key string) *Index {
	x := &Index{prefix: prefix, key: key}
	x.cur.Store(&Snapshot{prefix: prefix, key: key, nums: map[string]int{}, pathNum: map[string]int32{}})
	return x
}

// Snapshot returns the index as it is now.
func (x *Index) Snapshot() *Snapshot { return x.cur.Load() }

// Tip is the commit the snapshot was brought up to; "" when empty.
func (s *Snapshot) Tip() string { return s.tip }

// Len is the number of commits the snapshot holds.
func (s *Snapshot) Len() int { return len(s.commits) }

// Update brings the index up to head (a commit id): the commits head
// reaches that the index does not hold are read from g, and nothing else.
// When the previous tip is not an ancestor of head (history rewritten,
// another branch checked out) the index keeps only what head reaches, as
// if built afresh, without reading the repository again. It reports
// whether the index changed.
func (x *Index) Update(ctx context.Context, g Graph, head string) (bool, error) {
	x.update.Lock()
	defer x.update.Unlock()
	s := x.cur.Load()
	if s.tip == head {
		return false, nil
	}
	var news []commit
	var raw [][][]string
	err := g.WalkGraph(ctx, head, x.prefix, func(h string) bool {
		_, ok := s.nums[h]
		return ok
	}, func(gc gitstore.GraphCommit) error {
		news = append(news, commit{hash: gc.Hash, when: gc.Time.Unix(), trailers: trailerValues(gc.Message, x.key)})
		raw = append(raw, append([][]string{gc.Parents}, gc.Changed...))
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("history index of %q up to %s: %w", x.prefix, head, err)
	}
	ns := &Snapshot{prefix: s.prefix, key: s.key, tip: head, nums: maps.Clone(s.nums), commits: slices.Clip(s.commits),
		pathNum: maps.Clone(s.pathNum), paths: slices.Clip(s.paths)}
	base := len(ns.commits)
	for i, c := range news {
		ns.nums[c.hash] = base + i
	}
	for i, c := range news {
		parents, lists := raw[i][0], raw[i][1:]
		c.parents = make([]int, len(parents))
		for j, p := range parents {
			n, ok := ns.nums[p]
			if !ok {
				return false, fmt.Errorf("history index: parent %s of %s was not walked", p, c.hash)
			}
			c.parents[j] = n
		}
		c.changed = make([][]int32, len(lists))
		for j, l := range lists {
			c.changed[j] = ns.pathList(l)
		}
		ns.commits = append(ns.commits, c)
	}
	if old, ok := s.nums[s.tip]; ok && !ns.reaches(ns.nums[head], old) {
		ns = ns.reachable(ns.nums[head])
	}
	x.cur.Store(ns)
	return true, nil
}

// pathList numbers paths, sorted by number.
func (x *Snapshot) pathList(paths []string) []int32 {
	if len(paths) == 0 {
		return nil
	}
	out := make([]int32, len(paths))
	for i, p := range paths {
		n, ok := x.pathNum[p]
		if !ok {
			n = int32(len(x.paths))
			x.pathNum[p] = n
			x.paths = append(x.paths, p)
		}
		out[i] = n
	}
	slices.Sort(out)
	return out
}

// reaches reports whether commit to is from or one of its ancestors.
func (s *Snapshot) reaches(from, to int) bool {
	seen := make([]bool, len(s.commits))
	stack := []int{from}
	seen[from] = true
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == to {
			return true
		}
		for _, p := range s.commits[n].parents {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return false
}

// reachable returns a snapshot of the commits head reaches, renumbered;
// paths no commit changes any more are dropped.
func (s *Snapshot) reachable(head int) *Snapshot {
	keep := make([]int, len(s.commits)) // new number + 1; 0 drops
	stack := []int{head}
	keep[head] = 1
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range s.commits[n].parents {
			if keep[p] == 0 {
				keep[p] = 1
				stack = append(stack, p)
			}
		}
	}
	next := 0
	for i := range keep {
		if keep[i] != 0 {
			next++
			keep[i] = next
		}
	}
	ns := &Snapshot{prefix: s.prefix, key: s.key, tip: s.tip, nums: make(map[string]int, next), commits: make([]commit, 0, next),
		pathNum: map[string]int32{}}
	for i, c := range s.commits {
		if keep[i] == 0 {
			continue
		}
		parents := make([]int, len(c.parents))
		for j, p := range c.parents {
			parents[j] = keep[p] - 1
		}
		changed := make([][]int32, len(c.changed))
		for j, l := range c.changed {
			names := make([]string, len(l))
			for k, pn := range l {
				names[k] = s.paths[pn]
			}
			changed[j] = ns.pathList(names)
		}
		c.parents, c.changed = parents, changed
		ns.nums[c.hash] = len(ns.commits)
		ns.commits = append(ns.commits, c)
	}
	return ns
}

// trailerValues returns the values of the message's "key: value" lines,
// trimmed, as gitstore's History matches a Follow trailer.
func trailerValues(msg, key string) []string {
	var out []string
	for line := range strings.SplitSeq(msg, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), key) {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// Lookup implements gitstore.HistoryIndex.
func (s *Snapshot) Lookup(hash string) (int, bool) {
	n, ok := s.nums[hash]
	return n, ok
}

// Commit implements gitstore.HistoryIndex.
func (s *Snapshot) Commit(n int) (string, int64, []int) {
	c := &s.commits[n]
	return c.hash, c.when, c.parents
}

// Changed implements gitstore.HistoryIndex.
func (s *Snapshot) Changed(n, i int, path string) (bool, bool) {
	if s.prefix != "" && path != s.prefix && !strings.HasPrefix(path, s.prefix+"/") {
		return false, false
	}
	l := s.commits[n].changed
	if i >= len(l) {
		return false, false
	}
	pn, ok := s.pathNum[path]
	if !ok {
		return false, true // no commit changed it
	}
	_, found := slices.BinarySearch(l[i], pn)
	return found, true
}

// Trailer implements gitstore.HistoryIndex.
func (s *Snapshot) Trailer(n int, key, value string) (bool, bool) {
	if !strings.EqualFold(key, s.key) {
		return false, false
	}
	return slices.Contains(s.commits[n].trailers, value), true
}
