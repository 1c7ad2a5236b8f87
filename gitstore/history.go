package gitstore

import (
	"container/heap"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/memvault/memvault/filechange"
)

// HistoryOptions selects and shapes a History walk. The zero value walks
// from HEAD, follows renames and returns every commit.
type HistoryOptions struct {
	// Rev is where the walk starts; "" means HEAD.
	Rev string
	// Follow is a trailer line such as "Memory-Id: 01J...". A commit whose
	// message has that trailer is included even if the path did not change,
	// and when such a commit adds the path, the path it came from is followed
	// whatever the similarity.
	Follow string
	// Match, if set, works like Follow with a predicate on the full message.
	Match func(message string) bool
	// NoRenames stops at the commit that added the path instead of looking
	// for the file it was renamed from.
	NoRenames bool
	// Limit caps the number of commits returned; 0 means no limit.
	Limit int
	// FullHistory follows every parent of a merge, as `git log
	// --full-history` does: a merge that kept one parent's version is
	// still left out, but the other side's commits that changed the path
	// are listed too (an edit the merge's rules outranked, say).
	FullHistory bool
	// Index, when set, answers for the commits it holds what the walk
	// would otherwise read from each commit and its trees, so that only
	// the commits where the path changed (or that carry the Follow
	// trailer) are read. The result is the same with or without it. It
	// is not used with Match.
	Index HistoryIndex
}

// HistoryIndex holds, for a set of commits closed under their parents,
// what History asks of each commit: its parents and commit time, which
// paths differ from each parent, and some trailers of its message.
// Commits are numbered by the index.
type HistoryIndex interface {
	// Lookup returns the number of the commit with this id, false when
	// the index does not hold it.
	Lookup(hash string) (int, bool)
	// Commit returns commit n's id, its committer time in Unix seconds
	// and its parents' numbers, first parent first.
	Commit(n int) (hash string, when int64, parents []int)
	// Changed reports whether the entry at path (file, folder or
	// submodule, with its mode; absent on both sides is the same) differs
	// between commit n and its i-th parent; for a root commit, i is 0
	// and the entry is compared with nothing. ok is false when the index
	// does not cover path.
	Changed(n, i int, path string) (changed, ok bool)
	// Trailer reports whether commit n's message has a line "key: value"
	// (key compared case-insensitively, both trimmed); ok is false when
	// the index does not record key.
	Trailer(n int, key, value string) (has, ok bool)
}

// CommitInfo is one commit in a path's history.
type CommitInfo struct {
	Hash       string
	Author     Signature
	When       time.Time // author time
	Committer  Signature
	CommitTime time.Time
	Message    string
	Path       string // the path (repository-relative) at this commit
	OldPath    string // the path in the parent, when this commit renamed it
	Deleted    bool   // this commit deleted the path
	// Parents are the commit's parents' ids, first parent first: more
	// than one for a merge.
	Parents []string
}

// History lists the commits reachable from opts.Rev that changed path (a
// file or a directory, absolute or repository-relative), newest first by
// commit time, following renames. Merges are simplified as `git log -- path`
// does: a merge that kept one parent's version is skipped and only that
// parent is followed. It compares the entry ids at the path in each commit
// and its parents, so the cost grows with the number of commits and of the
// distinct trees on the path, not with the size of the repository.
func (s *Store) History(ctx context.Context, path string, opts HistoryOptions) ([]CommitInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	rel, err := s.rel(path)
	if err != nil {
		return nil, err
	}
	start, err := s.resolve(opts.Rev)
	if err != nil {
		return nil, err
	}
	match := opts.Match
	if opts.Follow != "" {
		key, val, ok := strings.Cut(opts.Follow, ":")
		if !ok {
			return nil, fmt.Errorf("history: Follow %q is not a trailer (Key: value)", opts.Follow)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		prev := match
		match = func(msg string) bool {
			return hasTrailer(msg, key, val) || (prev != nil && prev(msg))
		}
	}
	w := &historyWalk{s: s, ctx: ctx, opts: opts, match: match, seen: make(map[plumbing.Hash]bool)}
	if opts.Index != nil && opts.Match == nil {
		w.index, w.seenNode = opts.Index, make(map[int]bool)
		if opts.Follow != "" {
			k, v, _ := strings.Cut(opts.Follow, ":")
			w.followKey, w.followVal = strings.TrimSpace(k), strings.TrimSpace(v)
		}
	}
	if err := w.push(start, rel); err != nil {
		return nil, err
	}
	for w.queue.Len() > 0 {
		if opts.Limit > 0 && len(w.out) >= opts.Limit {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it := heap.Pop(&w.queue).(walkItem)
		if err := w.visit(it); err != nil {
			return nil, err
		}
	}
	return w.out, nil
}

// hasTrailer reports whether a message has a "key: value" line (key
// compared case-insensitively, as git does for trailers).
func hasTrailer(msg, key, val string) bool {
	for line := range strings.SplitSeq(msg, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), key) && strings.TrimSpace(v) == val {
			return true
		}
	}
	return false
}

type historyWalk struct {
	s     *Store
	ctx   context.Context
	opts  HistoryOptions
	match func(string) bool
	seen  map[plumbing.Hash]bool
	queue walkQueue
	seq   int
	out   []CommitInfo

	// index, when set, stands in for the commits it holds: they are
	// queued by number (seenNode) and read only where the path changed.
	index                HistoryIndex
	seenNode             map[int]bool
	followKey, followVal string
}

func (w *historyWalk) push(h plumbing.Hash, path string) error {
	if w.seen[h] {
		return nil
	}
	if w.index != nil {
		if n, ok := w.index.Lookup(h.String()); ok {
			w.pushNode(n, path)
			return nil
		}
	}
	c, err := w.s.getCommit(h)
	if err != nil {
		return err
	}
	w.seq++
	heap.Push(&w.queue, walkItem{commit: c, when: c.Committer.When.Unix(), node: -1, path: path, seq: w.seq})
	return nil
}

// pushNode queues the index's commit n.
func (w *historyWalk) pushNode(n int, path string) {
	if w.seenNode[n] {
		return
	}
	_, when, _ := w.index.Commit(n)
	w.seq++
	heap.Push(&w.queue, walkItem{when: when, node: n, path: path, seq: w.seq})
}

// visitNode does what visit does for the index's commit n where the
// answer needs nothing but the index: it reports false, having changed
// nothing, when the commit must be read (it changed the path, carries the
// trailer, or the index cannot tell).
func (w *historyWalk) visitNode(n int, path string) bool {
	_, _, parents := w.index.Commit(n)
	matched := false
	if w.followKey != "" && len(parents) < 2 {
		has, ok := w.index.Trailer(n, w.followKey, w.followVal)
		if !ok {
			return false
		}
		matched = has
	}
	same := -1
	for i := range max(len(parents), 1) {
		changed, ok := w.index.Changed(n, i, path)
		if !ok {
			return false
		}
		if !changed && same < 0 {
			same = i
		}
	}
	switch {
	case len(parents) == 0:
		// Listed when the path is there (it differs from nothing).
		return same == 0 && !matched
	case len(parents) > 1:
		if same < 0 {
			return false // listed
		}
		if !w.opts.FullHistory {
			w.pushNode(parents[same], path)
			return true
		}
		for _, p := range parents {
			w.pushNode(p, path)
		}
		return true
	case same == 0 && !matched:
		w.pushNode(parents[0], path)
		return true
	}
	return false
}

func (w *historyWalk) visit(it walkItem) error {
	c := it.commit
	if it.node >= 0 {
		if w.seenNode[it.node] {
			return nil
		}
		w.seenNode[it.node] = true
		if w.visitNode(it.node, it.path) {
			return nil
		}
		hash, _, _ := w.index.Commit(it.node)
		var err error
		if c, err = w.s.getCommit(plumbing.NewHash(hash)); err != nil {
			return err
		}
	} else {
		if w.seen[c.Hash] {
			return nil
		}
		w.seen[c.Hash] = true
	}
	cur, curOK, err := w.s.lookupPath(c.TreeHash, it.path)
	if err != nil {
		return err
	}
	matched := w.match != nil && w.match(c.Message)
	if len(c.ParentHashes) == 0 {
		if curOK || matched {
			w.add(c, it.path, "", false)
		}
		return nil
	}
	type parentState struct {
		commit *object.Commit
		entry  treeEntry
		ok     bool
	}
	parents := make([]parentState, len(c.ParentHashes))
	same := -1
	for i, ph := range c.ParentHashes {
		pc, err := w.s.getCommit(ph)
		if err != nil {
			return err
		}
		pe, pok, err := w.s.lookupPath(pc.TreeHash, it.path)
		if err != nil {
			return err
		}
		parents[i] = parentState{pc, pe, pok}
		if same < 0 && pok == curOK && (!curOK || (pe.hash == cur.hash && pe.mode == cur.mode)) {
			same = i
		}
	}
	if len(parents) > 1 {
		if same >= 0 && !w.opts.FullHistory {
			return w.push(parents[same].commit.Hash, it.path)
		}
		if same < 0 {
			w.add(c, it.path, "", false)
		}
		for _, p := range parents {
			if err := w.push(p.commit.Hash, it.path); err != nil {
				return err
			}
		}
		return nil
	}
	p := parents[0]
	if same == 0 && !matched {
		return w.push(p.commit.Hash, it.path)
	}
	path, oldPath := it.path, ""
	switch {
	case curOK && !p.ok && !w.opts.NoRenames:
		src, err := w.s.renameSource(w.ctx, p.commit.TreeHash, c.TreeHash, cur, matched)
		if err != nil {
			return err
		}
		oldPath = src
	case !curOK && !p.ok && matched:
		// The trailer names this commit but the path is not in it: follow
		// the one file the commit changed, if there is exactly one.
		ds, err := w.s.diffTree(w.ctx, p.commit.TreeHash, c.TreeHash, "", nil)
		if err != nil {
			return err
		}
		if len(ds) == 1 && ds[0].kind != filechange.Deleted {
			path = ds[0].path
		}
	}
	w.add(c, path, oldPath, !curOK && p.ok)
	next := path
	if oldPath != "" {
		next = oldPath
	}
	return w.push(p.commit.Hash, next)
}

func (w *historyWalk) add(c *object.Commit, path, oldPath string, deleted bool) {
	ci := commitInfo(c)
	ci.Path, ci.OldPath, ci.Deleted = path, oldPath, deleted
	w.out = append(w.out, ci)
}

// renameSource finds the file a commit renamed to the entry cur: a deleted
// file with the same content, else the most similar deleted file (at least
// 50% similar, or any similarity when the commit matched the Follow trailer).
// It returns "" when there is none.
func (s *Store) renameSource(ctx context.Context, parentTree, tree plumbing.Hash, cur treeEntry, matched bool) (string, error) {
	if cur.mode == modeDir || cur.mode == modeGitlink {
		return "", nil
	}
	ds, err := s.diffTree(ctx, parentTree, tree, "", nil)
	if err != nil {
		return "", err
	}
	var dels []treeDiff
	for _, d := range ds {
		if d.kind == filechange.Deleted {
			if d.oldHash == cur.hash {
				return d.path, nil
			}
			dels = append(dels, d)
		}
	}
	if len(dels) == 0 || len(dels) > maxRenameCandidates {
		return "", nil
	}
	nb, err := s.readBlob(cur.hash)
	if err != nil {
		return "", err
	}
	best, bestScore := "", -1.0
	for _, d := range dels {
		ob, err := s.readBlob(d.oldHash)
		if err != nil {
			return "", err
		}
		if sc := similarity(ob, nb); sc > bestScore {
			best, bestScore = d.path, sc
		}
	}
	if bestScore >= renameThreshold || (matched && bestScore >= 0) {
		return best, nil
	}
	return "", nil
}

// walkItem is a commit waiting to be visited, with the path tracked on the
// line of history that reached it.
type walkItem struct {
	commit *object.Commit // nil for an index's commit
	when   int64          // committer time, Unix seconds
	node   int            // the index's number, -1 for none
	path   string
	seq    int
}

// walkQueue orders commits newest first by commit time, then by discovery.
type walkQueue []walkItem

func (q walkQueue) Len() int { return len(q) }
func (q walkQueue) Less(i, j int) bool {
	if q[i].when != q[j].when {
		return q[i].when > q[j].when
	}
	return q[i].seq < q[j].seq
}
func (q walkQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *walkQueue) Push(x any)   { *q = append(*q, x.(walkItem)) }
func (q *walkQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
