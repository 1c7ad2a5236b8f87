package gitstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/memvault/memvault/filechange"
)

// ErrNotAncestor means WalkPathChanges's stop commit is not on the
// first-parent line of its head (history was rewritten). It sits here
// rather than in errors.go because only this walk returns it.
var ErrNotAncestor = kindErr("invalid", "not an ancestor on the first-parent line")

// PathChange is one file a commit changed under the walked paths. OldBlob
// and NewBlob are blob ids ("" when absent; NewBlob is "" for a work-tree
// change, whose content is in the file).
type PathChange struct {
	Kind             filechange.Kind
	Path, OldPath    string
	OldBlob, NewBlob string
}

// PathCommit is one commit of WalkPathChanges.
type PathCommit struct {
	Hash, Subject string
	// Time is the committer time.
	Time    time.Time
	Changes []PathChange
}

// watchNode is one folder of the set of watched paths: whole means
// everything under it is watched.
type watchNode struct {
	whole    bool
	children map[string]*watchNode
	names    []string // the children's names, sorted
}

func newWatch(prefixes []string) *watchNode {
	root := &watchNode{}
	for _, p := range prefixes {
		n := root
		for p != "" && !n.whole {
			var comp string
			comp, p, _ = strings.Cut(p, "/")
			if n.children == nil {
				n.children = map[string]*watchNode{}
			}
			c, ok := n.children[comp]
			if !ok {
				c = &watchNode{}
				n.children[comp] = c
			}
			n = c
		}
		n.whole, n.children = true, nil
	}
	root.sortNames()
	return root
}

func (n *watchNode) sortNames() {
	n.names = n.names[:0]
	for name, c := range n.children {
		n.names = append(n.names, name)
		c.sortNames()
	}
	sort.Strings(n.names)
}

// WalkPathChanges calls fn for each commit on head's first-parent line,
// newest first, down to but not including stop ("" for the root), with
// the files under prefixes (files or folders, repository-relative; ""
// is everything) that it changed against its first parent. Only the
// subtrees on the way to a watched path are read, and a subtree whose id
// did not change is skipped, so the cost follows the number of commits
// and the folders they touched on watched paths, not the size of the
// tree. A watched file the commit deleted is paired, as git's rename
// detection does (same content, else at least 50% similar), with a file
// the commit added anywhere, and reported as Renamed with its new path.
// The store's lock is not held while fn runs, so fn may call ReadBlob.
// A stop not on the line gives ErrNotAncestor after the walk reached the
// root.
func (s *Store) WalkPathChanges(ctx context.Context, head, stop string, prefixes []string, fn func(PathCommit) error) error {
	watch := newWatch(prefixes)
	s.mu.Lock()
	err := s.begin(ctx)
	var cur plumbing.Hash
	if err == nil {
		cur, err = s.resolve(head)
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for n := 0; !cur.IsZero(); n++ {
		if stop != "" && cur.String() == stop {
			return nil
		}
		if n == minCLIWalk && !s.NoGitCLIReads {
			// A long walk: the rest through git (pathchanges_cli.go).
			if err := s.walkPathChangesCLI(ctx, cur, stop, watch, fn); !errors.Is(err, errCLIWalk) {
				return err
			}
		}
		pc, parent, err := s.pathCommit(ctx, cur, watch)
		if err != nil {
			return err
		}
		if err := fn(pc); err != nil {
			return err
		}
		cur = parent
	}
	if stop != "" {
		return fmt.Errorf("walk to %s: %w", stop, ErrNotAncestor)
	}
	return nil
}

// pathCommit reads one commit's changes under watch, and its first parent.
func (s *Store) pathCommit(ctx context.Context, h plumbing.Hash, watch *watchNode) (PathCommit, plumbing.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return PathCommit{}, plumbing.ZeroHash, err
	}
	c, err := s.getCommit(h)
	if err != nil {
		return PathCommit{}, plumbing.ZeroHash, err
	}
	var parent, parentTree plumbing.Hash
	if len(c.ParentHashes) > 0 {
		parent = c.ParentHashes[0]
		pc, err := s.getCommit(parent)
		if err != nil {
			return PathCommit{}, plumbing.ZeroHash, err
		}
		parentTree = pc.TreeHash
	}
	ds, err := s.diffWatched(ctx, parentTree, c.TreeHash, "", watch, nil)
	if err != nil {
		return PathCommit{}, plumbing.ZeroHash, err
	}
	out := PathCommit{Hash: h.String(), Subject: subject(c.Message), Time: c.Committer.When}
	var all []treeDiff // the whole commit's changes, read once for renames
	for _, d := range ds {
		ch := PathChange{Kind: d.kind, Path: d.path, OldPath: d.oldPath}
		if !d.oldHash.IsZero() {
			ch.OldBlob = d.oldHash.String()
		}
		if !d.newHash.IsZero() {
			ch.NewBlob = d.newHash.String()
		}
		if d.kind == filechange.Deleted {
			if all == nil {
				if all, err = s.diffTree(ctx, parentTree, c.TreeHash, "", nil); err != nil {
					return PathCommit{}, plumbing.ZeroHash, err
				}
				if all, err = s.pairRenames(all); err != nil {
					return PathCommit{}, plumbing.ZeroHash, err
				}
			}
			for _, a := range all {
				if a.kind == filechange.Renamed && a.oldPath == d.path {
					ch.Kind, ch.Path, ch.NewBlob = filechange.Renamed, a.path, a.newHash.String()
					break
				}
			}
		}
		out.Changes = append(out.Changes, ch)
	}
	return out, parent, nil
}

// diffWatched compares trees a and b (zero: empty) below the watched
// folder n, descending only into subtrees whose ids differ and that lead
// to something watched.
func (s *Store) diffWatched(ctx context.Context, a, b plumbing.Hash, prefix string, n *watchNode, out []treeDiff) ([]treeDiff, error) {
	if a == b {
		return out, nil
	}
	if n.whole {
		return s.diffTree(ctx, a, b, prefix, out)
	}
	var ta, tb *tree
	var err error
	if !a.IsZero() {
		if ta, err = s.getTree(a); err != nil {
			return nil, err
		}
	}
	if !b.IsZero() {
		if tb, err = s.getTree(b); err != nil {
			return nil, err
		}
	}
	find := func(t *tree, name string) (treeEntry, bool) {
		if t == nil {
			return treeEntry{}, false
		}
		return t.find(name)
	}
	for _, name := range n.names {
		child := n.children[name]
		ea, okA := find(ta, name)
		eb, okB := find(tb, name)
		if okA && okB && ea.hash == eb.hash && ea.mode == eb.mode {
			continue
		}
		p := joinPath(prefix, name)
		var da, db plumbing.Hash // subtrees on each side
		if okA && ea.isDir() {
			da = ea.hash
		}
		if okB && eb.isDir() {
			db = eb.hash
		}
		fileA := okA && !ea.isDir() && ea.mode != modeGitlink
		fileB := okB && !eb.isDir() && eb.mode != modeGitlink
		if child.whole {
			switch {
			case fileA && fileB:
				out = append(out, treeDiff{kind: filechange.Modified, path: p, oldPath: p, oldHash: ea.hash, newHash: eb.hash})
			case fileA:
				out = append(out, treeDiff{kind: filechange.Deleted, path: p, oldPath: p, oldHash: ea.hash})
			case fileB:
				out = append(out, treeDiff{kind: filechange.Added, path: p, newHash: eb.hash})
			}
		}
		if !da.IsZero() || !db.IsZero() {
			if out, err = s.diffWatched(ctx, da, db, p, child, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// ReadBlob returns the content of the blob with the given id; nil for "".
func (s *Store) ReadBlob(ctx context.Context, id string) ([]byte, error) {
	if id == "" {
		return nil, nil
	}
	h, err := parseHash(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	return s.readBlob(h)
}

// Exists reports which of paths (repository-relative files or folders;
// "" is the root) exist at rev.
func (s *Store) Exists(ctx context.Context, rev string, paths []string) (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	root, err := s.resolveTree(rev)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(paths))
	for _, p := range paths {
		_, ok, err := s.lookupPath(root, p)
		if err != nil {
			return nil, err
		}
		out[p] = ok
	}
	return out, nil
}

// Uncommitted lists the files under prefixes (repository-relative files
// or folders) whose work-tree content differs from HEAD: Modified,
// Deleted, or Added (untracked and not ignored). OldBlob is the HEAD
// blob; NewBlob is "" (the content is in the work tree). A file whose
// index entry matches HEAD and whose stat data matches the entry is not
// read, as git status does; a folder is scanned as Dirty does.
func (s *Store) Uncommitted(ctx context.Context, prefixes []string) ([]PathChange, error) {
	w, err := s.newWorkCheck(ctx)
	if err != nil {
		return nil, err
	}
	var out []PathChange
	seen := map[string]bool{}
	for _, p := range prefixes {
		s.mu.Lock()
		e, ok, err := s.lookupPath(w.root, p)
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		paths := []string{p}
		isDir := ok && e.isDir() || p == ""
		if !ok {
			// A folder HEAD does not have may be new in the work tree.
			fi, err := os.Lstat(s.abs(p))
			isDir = err == nil && fi.IsDir()
		}
		if isDir {
			abs, err := s.Dirty(ctx, p)
			if err != nil {
				return nil, err
			}
			paths = paths[:0]
			for _, a := range abs {
				if r, err := s.rel(a); err == nil {
					paths = append(paths, r)
				}
			}
		}
		for _, rel := range paths {
			if seen[rel] {
				continue
			}
			seen[rel] = true
			ch, changed, err := w.change(rel)
			if err != nil {
				return nil, err
			}
			if changed {
				out = append(out, ch)
			}
		}
	}
	return out, nil
}

// workCheck compares work-tree files with HEAD, read once.
type workCheck struct {
	s         *Store
	root      plumbing.Hash // HEAD's tree; zero on an unborn branch
	ix        *indexFile
	indexTime statData
}

func (s *Store) newWorkCheck(ctx context.Context) (*workCheck, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	w := &workCheck{s: s}
	h, err := s.readHead()
	if err != nil {
		return nil, err
	}
	if !h.unborn {
		c, err := s.getCommit(h.hash)
		if err != nil {
			return nil, err
		}
		w.root = c.TreeHash
	}
	index := filepath.Join(s.gitDir, "index")
	if w.ix, err = s.loadIndex(index); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(index); err == nil {
		w.indexTime = statFromInfo(fi)
	}
	return w, nil
}

// change compares one file of the work tree with HEAD.
func (w *workCheck) change(rel string) (PathChange, bool, error) {
	s := w.s
	s.mu.Lock()
	e, inHead, err := s.lookupPath(w.root, rel)
	var ie indexEntry
	var inIndex bool
	if err == nil && w.ix != nil {
		ie, inIndex = w.ix.lookup(rel)
	}
	s.mu.Unlock()
	if err != nil {
		return PathChange{}, false, err
	}
	if inHead && (e.isDir() || e.mode == modeGitlink) {
		inHead = false
	}
	ch := PathChange{Path: rel, OldPath: rel}
	if inHead {
		ch.OldBlob = e.hash.String()
		if inIndex && ie.hash() == e.hash && ie.mode() == e.mode {
			if fi, err := os.Lstat(s.abs(rel)); err == nil {
				st := statFields(fi)
				racy := st.mtimeSec > w.indexTime.mtimeSec ||
					(st.mtimeSec == w.indexTime.mtimeSec && st.mtimeNsec >= w.indexTime.mtimeNsec)
				if !racy && ie.statMatches(st) {
					return ch, false, nil
				}
			}
		}
	}
	wf, err := readWorkFile(s.abs(rel), rel, s.fileMode)
	if err != nil {
		return PathChange{}, false, err
	}
	switch {
	case !wf.exists && !inHead:
		return ch, false, nil
	case !wf.exists:
		ch.Kind = filechange.Deleted
	case !inHead:
		ch.Kind, ch.OldPath = filechange.Added, ""
	case blobHash(wf.data) != e.hash:
		ch.Kind = filechange.Modified
	default:
		return ch, false, nil
	}
	return ch, true, nil
}

// ReadWorkFile returns a repository-relative file's content in the work
// tree.
func (s *Store) ReadWorkFile(_ context.Context, path string) ([]byte, error) {
	rel, err := s.rel(path)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(s.abs(rel))
}
