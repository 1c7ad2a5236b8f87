package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/memvault/memvault/filechange"
)

// FileChange is one file that differs between two revisions. Paths are
// repository-relative. Old is nil for Added, New is nil for Deleted; OldPath
// is set for Renamed (and equals Path otherwise, except for Added).
type FileChange struct {
	Path, OldPath string
	Kind          filechange.Kind
	Old, New      []byte
}

// renameThreshold is git's default minimum similarity for a rename (50%).
const renameThreshold = 0.5

// Resolve turns a revision (branch, tag, full or abbreviated id, HEAD~2,
// main^, ...) into a full commit id. "" means HEAD. It returns ErrNotFound
// for revisions that do not name a commit, including HEAD on an unborn
// branch.
func (s *Store) Resolve(ctx context.Context, rev string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return "", err
	}
	h, err := s.resolve(rev)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

func (s *Store) resolve(rev string) (plumbing.Hash, error) {
	if rev == "" || rev == "HEAD" {
		h, err := s.readHead()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.unborn {
			return plumbing.ZeroHash, fmt.Errorf("resolve HEAD: branch %s has no commits: %w", h.branch(), ErrNotFound)
		}
		return h.hash, nil
	}
	if len(rev) == 2*len(plumbing.ZeroHash) && plumbing.IsHash(rev) {
		// A full commit id, as callers pass after resolving once: git
		// prefers the object to a ref of the same name, and going through
		// go-git would decode its own copy of the pack index first, a large
		// part of a cold ReadFile (docs/git.md, "Read paths: gitstore,
		// go-git and the git CLI").
		h := plumbing.NewHash(rev)
		if _, err := s.getCommit(h); err == nil {
			return h, nil
		}
	}
	h, err := s.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		if errors.Is(err, plumbing.ErrReferenceNotFound) || errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, fmt.Errorf("resolve %q: %w", rev, ErrNotFound)
		}
		return plumbing.ZeroHash, fmt.Errorf("resolve %q: %w: %v", rev, ErrNotFound, err)
	}
	return *h, nil
}

// resolveTree returns the root tree of a revision.
func (s *Store) resolveTree(rev string) (plumbing.Hash, error) {
	h, err := s.resolve(rev)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	c, err := s.getCommit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

// ResolveTime returns the newest commit on HEAD's first-parent line whose
// commit time is at or before t, or ErrNotFound.
func (s *Store) ResolveTime(ctx context.Context, t time.Time) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return "", err
	}
	h, err := s.resolve("")
	if err != nil {
		return "", err
	}
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		c, err := s.getCommit(h)
		if err != nil {
			return "", err
		}
		if !c.Committer.When.After(t) {
			return h.String(), nil
		}
		if len(c.ParentHashes) == 0 {
			return "", fmt.Errorf("no commit at or before %s: %w", t.Format(time.RFC3339), ErrNotFound)
		}
		h = c.ParentHashes[0]
	}
}

// ReadFile returns a file's content at a revision ("" = HEAD).
func (s *Store) ReadFile(ctx context.Context, rev, path string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rel, e, ok, err := s.entryAt(ctx, rev, path)
	if err != nil {
		return nil, err
	}
	if !ok || e.mode == modeDir || e.mode == modeGitlink {
		return nil, fmt.Errorf("read %s at %q: %w", rel, rev, ErrNotFound)
	}
	return s.readBlob(e.hash)
}

// entryAt resolves path (absolute or repository-relative) to its
// repository-relative form and its tree entry at rev. Caller holds s.mu.
func (s *Store) entryAt(ctx context.Context, rev, path string) (rel string, e treeEntry, ok bool, err error) {
	if err := s.begin(ctx); err != nil {
		return "", e, false, err
	}
	if rel, err = s.rel(path); err != nil {
		return "", e, false, err
	}
	root, err := s.resolveTree(rev)
	if err != nil {
		return "", e, false, err
	}
	e, ok, err = s.lookupPath(root, rel)
	return rel, e, ok, err
}

func (s *Store) readBlob(h plumbing.Hash) ([]byte, error) {
	data, err := s.readObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(data), nil // callers own the bytes; cached ones are shared
}

// fileRef is a file found in a tree.
type fileRef struct {
	path string
	hash plumbing.Hash
	mode uint32
}

// listFiles collects the regular files and symlinks below a tree, with their
// repository-relative paths.
func (s *Store) listFiles(ctx context.Context, h plumbing.Hash, prefix string, out []fileRef) ([]fileRef, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := s.getTree(h)
	if err != nil {
		return nil, err
	}
	for _, e := range t.entries {
		p := joinPath(prefix, e.name)
		switch e.mode {
		case modeDir:
			if out, err = s.listFiles(ctx, e.hash, p, out); err != nil {
				return nil, err
			}
		case modeGitlink:
		default:
			out = append(out, fileRef{p, e.hash, e.mode})
		}
	}
	return out, nil
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// WalkTree calls fn for every regular file under dir at rev ("" = HEAD), in
// git's path order, with the repository-relative path and the content, read
// from git objects only. A missing dir yields no calls. fn may call other
// Store methods; an error from fn stops the walk and is returned.
func (s *Store) WalkTree(ctx context.Context, rev, dir string, fn func(path string, data []byte) error) error {
	s.mu.Lock()
	files, err := s.walkList(ctx, rev, dir)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.mode != modeFile && f.mode != modeExec {
			continue
		}
		s.mu.Lock()
		var data []byte
		if err = s.begin(ctx); err == nil {
			data, err = s.readBlob(f.hash)
		}
		s.mu.Unlock()
		if err != nil {
			return err
		}
		if err := fn(f.path, data); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) walkList(ctx context.Context, rev, dir string) ([]fileRef, error) {
	rel, e, ok, err := s.entryAt(ctx, rev, dir)
	if err != nil || !ok {
		return nil, err
	}
	if e.mode != modeDir {
		return []fileRef{{rel, e.hash, e.mode}}, nil
	}
	return s.listFiles(ctx, e.hash, rel, nil)
}

// DiffTrees lists the files under dir that differ between two revisions,
// sorted by path. base "" means the empty tree (everything is Added); head ""
// means HEAD. A delete and an add of identical or similar (>= 50%) content
// are reported as one Renamed change.
func (s *Store) DiffTrees(ctx context.Context, base, head, dir string) ([]FileChange, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	rel, err := s.rel(dir)
	if err != nil {
		return nil, err
	}
	subtree := func(rev string) (plumbing.Hash, error) {
		root, err := s.resolveTree(rev)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		e, ok, err := s.lookupPath(root, rel)
		if err != nil || !ok || e.mode != modeDir {
			return plumbing.ZeroHash, err
		}
		return e.hash, nil
	}
	var a, b plumbing.Hash
	if base != "" {
		if a, err = subtree(base); err != nil {
			return nil, err
		}
	}
	if b, err = subtree(head); err != nil {
		return nil, err
	}
	raw, err := s.diffTree(ctx, a, b, rel, nil)
	if err != nil {
		return nil, err
	}
	raw, err = s.pairRenames(raw)
	if err != nil {
		return nil, err
	}
	return s.fileChanges(raw)
}

// fileChanges reads the blobs of ds into FileChanges, in ds's order.
func (s *Store) fileChanges(ds []treeDiff) ([]FileChange, error) {
	out := make([]FileChange, 0, len(ds))
	for _, d := range ds {
		fc := FileChange{Path: d.path, OldPath: d.oldPath, Kind: d.kind}
		var err error
		if d.kind != filechange.Added {
			if fc.Old, err = s.readBlob(d.oldHash); err != nil {
				return nil, err
			}
		}
		if d.kind != filechange.Deleted {
			if fc.New, err = s.readBlob(d.newHash); err != nil {
				return nil, err
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// treeDiff is one changed file found by diffTree.
type treeDiff struct {
	kind             filechange.Kind
	path, oldPath    string
	oldHash, newHash plumbing.Hash
}

// diffTree compares two trees (zero: empty), descending only into subtrees
// whose ids differ. Gitlinks are ignored.
func (s *Store) diffTree(ctx context.Context, a, b plumbing.Hash, prefix string, out []treeDiff) ([]treeDiff, error) {
	if a == b {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var ea, eb []treeEntry
	if !a.IsZero() {
		t, err := s.getTree(a)
		if err != nil {
			return nil, err
		}
		ea = t.entries
	}
	if !b.IsZero() {
		t, err := s.getTree(b)
		if err != nil {
			return nil, err
		}
		eb = t.entries
	}
	var err error
	side := func(e treeEntry, added bool) error {
		p := joinPath(prefix, e.name)
		switch {
		case e.mode == modeGitlink:
		case e.isDir() && added:
			out, err = s.diffTree(ctx, plumbing.ZeroHash, e.hash, p, out)
		case e.isDir():
			out, err = s.diffTree(ctx, e.hash, plumbing.ZeroHash, p, out)
		case added:
			out = append(out, treeDiff{kind: filechange.Added, path: p, newHash: e.hash})
		default:
			out = append(out, treeDiff{kind: filechange.Deleted, path: p, oldPath: p, oldHash: e.hash})
		}
		return err
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
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
			err = side(ea[i], false)
			i++
		case c > 0:
			err = side(eb[j], true)
			j++
		default:
			x, y := ea[i], eb[j]
			i++
			j++
			if x.hash == y.hash && x.mode == y.mode {
				continue
			}
			p := joinPath(prefix, x.name)
			switch {
			case x.isDir():
				out, err = s.diffTree(ctx, x.hash, y.hash, p, out)
			case x.mode == modeGitlink || y.mode == modeGitlink:
			default:
				out = append(out, treeDiff{kind: filechange.Modified, path: p, oldPath: p, oldHash: x.hash, newHash: y.hash})
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxRenameCandidates bounds the similarity matrix; beyond it only exact
// renames are detected, as git does with diff.renameLimit.
const maxRenameCandidates = 200

// pairRenames turns delete+add pairs with identical or similar content into
// renames, best matches first, and sorts the result by path.
func (s *Store) pairRenames(ds []treeDiff) ([]treeDiff, error) {
	var adds, dels []int
	for i, d := range ds {
		switch d.kind {
		case filechange.Added:
			adds = append(adds, i)
		case filechange.Deleted:
			dels = append(dels, i)
		}
	}
	used := make(map[int]bool)
	rename := func(ai, di int) {
		ds[ai].kind, ds[ai].oldPath, ds[ai].oldHash = filechange.Renamed, ds[di].path, ds[di].oldHash
		used[ai], used[di] = true, true
	}
	if len(adds) > 0 && len(dels) > 0 {
		byHash := make(map[plumbing.Hash][]int)
		for _, di := range dels {
			byHash[ds[di].oldHash] = append(byHash[ds[di].oldHash], di)
		}
		for _, ai := range adds {
			for _, di := range byHash[ds[ai].newHash] {
				if !used[di] {
					rename(ai, di)
					break
				}
			}
		}
		var ra, rd []int
		for _, ai := range adds {
			if !used[ai] {
				ra = append(ra, ai)
			}
		}
		for _, di := range dels {
			if !used[di] {
				rd = append(rd, di)
			}
		}
		if len(ra) > 0 && len(rd) > 0 && len(ra) <= maxRenameCandidates && len(rd) <= maxRenameCandidates {
			type pair struct {
				a, d  int
				score float64
			}
			var pairs []pair
			content := make(map[plumbing.Hash][]byte)
			load := func(h plumbing.Hash) ([]byte, error) {
				if b, ok := content[h]; ok {
					return b, nil
				}
				b, err := s.readBlob(h)
				content[h] = b
				return b, err
			}
			for _, ai := range ra {
				nb, err := load(ds[ai].newHash)
				if err != nil {
					return nil, err
				}
				for _, di := range rd {
					ob, err := load(ds[di].oldHash)
					if err != nil {
						return nil, err
					}
					if sc := similarity(ob, nb); sc >= renameThreshold {
						pairs = append(pairs, pair{ai, di, sc})
					}
				}
			}
			sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].score > pairs[j].score })
			for _, p := range pairs {
				if !used[p.a] && !used[p.d] {
					rename(p.a, p.d)
				}
			}
		}
	}
	out := make([]treeDiff, 0, len(ds))
	for i, d := range ds {
		if d.kind == filechange.Deleted && used[i] {
			continue
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// similarity estimates how much of two texts is shared, as git's rename
// detection does: bytes of common lines over the larger size.
func similarity(a, b []byte) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	counts := make(map[string]int)
	for line := range strings.SplitSeq(string(a), "\n") {
		counts[line]++
	}
	common := 0
	for line := range strings.SplitSeq(string(b), "\n") {
		if counts[line] > 0 {
			counts[line]--
			common += len(line) + 1
		}
	}
	return float64(min(common, max(len(a), len(b)))) / float64(max(len(a), len(b)))
}
