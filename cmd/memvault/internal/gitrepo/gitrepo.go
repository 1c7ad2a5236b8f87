package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/histindex"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/doctor"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/history"
)

// OpenStore opens the repository that holds the vault folder dir, or
// would hold it: a vault that does not exist yet is created by its first
// write. The error wraps gitstore.ErrNotRepository when there is none.
//
// A vault folder reached through a symbolic link must resolve into the
// repository its own path is in: a `.memory` link committed in one
// repository and pointing into another would otherwise send that
// repository the writes. Such a vault is refused with an error wrapping
// ErrForeignRepository that names both. A link from outside any
// repository (~/.memvault linked into a dotfiles repository) is not
// concerned.
func OpenStore(ctx context.Context, dir string) (*gitstore.Store, error) {
	vaultDir := dir
	for {
		if _, err := os.Lstat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	store, err := gitstore.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := checkHomeRepository(vaultDir, dir, store); err != nil {
		store.Close()
		return nil, err
	}
	return store, nil
}

// ErrForeignRepository means a vault's folder resolves, through a
// symbolic link, into a repository other than the one its path is in.
var ErrForeignRepository = fault.New(fault.Invalid, "the vault resolves into another repository")

// checkHomeRepository refuses store when it is not the repository that
// holds the vault's own path. existing is the vault folder, or the
// nearest folder above it that exists (what store was opened from). The
// home repository is found by walking up the path as written, starting
// above existing when existing is itself a symbolic link, so the link's
// target cannot choose it.
func checkHomeRepository(vaultDir, existing string, store *gitstore.Store) error {
	abs, err := filepath.Abs(existing)
	if err != nil {
		return err
	}
	start := abs
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		start = filepath.Dir(abs)
	}
	home, err := gitstore.Find(start)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil
	}
	if err != nil {
		return err
	}
	if sameFile(home.GitDir, store.GitDir()) {
		return nil
	}
	resolved := abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		resolved = r
	}
	return fmt.Errorf("%w: the vault %s is in the repository %s, but resolves through a symbolic link to %s, in the repository %s; "+
		"memvault does not write into another repository: replace the link by a folder, or pass --vault %s",
		ErrForeignRepository, vaultDir, home.Root, resolved, store.Root(), resolved)
}

// sameFile reports whether two paths name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// Open opens the repository around the vault at dir. The error wraps
// gitstore.ErrNotRepository when there is none.
func Open(ctx context.Context, dir string) (*Repo, error) {
	store, err := OpenStore(ctx, dir)
	if err != nil {
		return nil, err
	}
	g, err := New(store, dir)
	if err != nil {
		store.Close()
		return nil, err
	}
	return g, nil
}

// Repo is the repository that holds a vault: it adapts gitstore.Store to
// the domain's history.Repo and doctor.Repo, and is the one place
// vault paths and repository paths are mapped.
type Repo struct {
	store *gitstore.Store
	// dir is the vault's folder as the caller spells it; prefix is the
	// same folder relative to the repository root, with slashes ("" at
	// the root).
	dir, prefix string

	// hist is the history index Log walks with (historyIndex), loaded
	// from the git folder on first use; noHist turns it off (tests
	// compare both walks).
	histOnce sync.Once
	hist     *histindex.Index
	noHist   bool
}

var (
	_ history.Repo = (*Repo)(nil)
	_ doctor.Repo  = (*Repo)(nil)
)

// New wraps an open store for the vault at dir. The error wraps
// gitstore.ErrOutsideWorkTree when the vault is not in the store's work
// tree.
func New(store *gitstore.Store, dir string) (*Repo, error) {
	prefix, err := store.Rel(dir)
	if err != nil {
		return nil, fmt.Errorf("vault %s is outside the repository %s: %w", dir, store.Root(), err)
	}
	return &Repo{store: store, dir: dir, prefix: prefix}, nil
}

// Close releases the repository.
func (g *Repo) Close() error { return g.store.Close() }

// Store is the repository's store.
func (g *Repo) Store() *gitstore.Store { return g.store }

// Prefix is the vault's folder relative to the top of the work tree,
// slash-separated ("" at the top).
func (g *Repo) Prefix() string { return g.prefix }

// Dir is the vault's folder.
func (g *Repo) Dir() string { return g.dir }

// Past returns a reader of the vault's past whose snapshots use the clock
// now (nil: the real one).
func (g *Repo) Past(now func() time.Time) *history.Reader {
	r := history.New(g, g.dir)
	r.Now = now
	return r
}

// vaultRel turns a repository-relative path into a vault-relative one,
// reporting false for paths outside the vault.
func (g *Repo) vaultRel(repoRel string) (string, bool) {
	if g.prefix == "" {
		return repoRel, true
	}
	rest, ok := strings.CutPrefix(repoRel, g.prefix+"/")
	return rest, ok
}

// repoRel turns a vault-relative path ("" for the vault folder) into a
// repository-relative one.
func (g *Repo) repoRel(vaultRel string) string {
	switch {
	case g.prefix == "":
		return vaultRel
	case vaultRel == "":
		return g.prefix
	}
	return g.prefix + "/" + vaultRel
}

// inVault is vaultRel with "" for paths outside the vault.
func (g *Repo) inVault(repoRel string) string {
	rel, _ := g.vaultRel(repoRel)
	return rel
}

// Log implements history.Repo.
func (g *Repo) Log(ctx context.Context, path string, opts history.LogOptions) ([]history.LogEntry, error) {
	cs, err := g.store.History(ctx, g.repoRel(path), gitstore.HistoryOptions{
		Rev: opts.Rev, Follow: opts.Follow, NoRenames: opts.NoRenames, Limit: opts.Limit, FullHistory: opts.FullHistory,
		Index: g.historyIndex(ctx, opts)})
	if err != nil {
		return nil, notFound(err)
	}
	out := make([]history.LogEntry, len(cs))
	for i, c := range cs {
		out[i] = history.LogEntry{Commit: commitOf(c), Path: g.inVault(c.Path), OldPath: g.inVault(c.OldPath), Deleted: c.Deleted}
	}
	return out, nil
}

// ReadFile implements history.Repo.
func (g *Repo) ReadFile(ctx context.Context, rev, path string) ([]byte, error) {
	data, err := g.store.ReadFile(ctx, rev, g.repoRel(path))
	return data, notFound(err)
}

// Walk implements history.Repo.
func (g *Repo) Walk(ctx context.Context, rev string, fn func(path string, data []byte) error) error {
	return notFound(g.store.WalkTree(ctx, rev, g.repoRel(""), func(p string, data []byte) error {
		if rel, ok := g.vaultRel(p); ok {
			return fn(rel, data)
		}
		return nil
	}))
}

// Diff implements history.Repo.
func (g *Repo) Diff(ctx context.Context, base, head string) ([]history.FileChange, error) {
	fcs, err := g.store.DiffTrees(ctx, base, head, g.repoRel(""))
	if err != nil {
		return nil, notFound(err)
	}
	out := make([]history.FileChange, 0, len(fcs))
	for _, fc := range fcs {
		rel, ok := g.vaultRel(fc.Path)
		if !ok {
			continue // DiffTrees is limited to the vault; never here
		}
		out = append(out, history.FileChange{Path: rel, OldPath: g.inVault(fc.OldPath), Kind: fc.Kind, Old: fc.Old, New: fc.New})
	}
	return out, nil
}

// Resolve implements history.Repo.
func (g *Repo) Resolve(ctx context.Context, rev string) (history.Commit, error) {
	c, err := g.store.ReadCommit(ctx, rev)
	if err != nil {
		return history.Commit{}, notFound(err)
	}
	return commitOf(c), nil
}

// ResolveTime implements history.Repo.
func (g *Repo) ResolveTime(ctx context.Context, t time.Time) (string, error) {
	h, err := g.store.ResolveTime(ctx, t)
	return h, notFound(err)
}

func commitOf(c gitstore.CommitInfo) history.Commit {
	return history.Commit{Hash: c.Hash, Author: history.Signature{Name: c.Author.Name, Email: c.Author.Email},
		When: c.When, CommitTime: c.CommitTime, Message: c.Message, Parents: c.Parents}
}

// MergeBase implements history.Repo.
func (g *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	h, err := g.store.MergeBase(ctx, a, b)
	return h, notFound(err)
}

// notFound makes gitstore's not-found errors history's too.
func notFound(err error) error {
	if errors.Is(err, gitstore.ErrNotFound) {
		return fmt.Errorf("%w: %w", history.ErrNotFound, err)
	}
	return err
}

// State implements doctor.Repo.
func (g *Repo) State(ctx context.Context) (doctor.RepoState, error) {
	st, err := g.store.State(ctx)
	if err != nil {
		return doctor.RepoState{}, err
	}
	out := doctor.RepoState{Root: g.store.Root(), Branch: st.Branch, Head: st.Head, Detached: st.Detached, Unborn: st.Unborn,
		Operation: st.Operation, RefLock: st.RefLock}
	if st.IndexLocked {
		out.IndexLock = filepath.Join(g.store.GitDir(), "index.lock")
	}
	if st.Operation != "" {
		if err := g.unmerged(ctx, &out); err != nil {
			return doctor.RepoState{}, err
		}
	}
	for _, l := range st.Stale {
		if out.StaleLocks == nil {
			out.StaleLocks = map[string]string{}
		}
		out.StaleLocks[l.Path] = l.Owner
	}
	return out, nil
}

// ClearStaleLocks implements doctor.Repo.
func (g *Repo) ClearStaleLocks(ctx context.Context) ([]string, error) {
	cleared, err := g.store.ClearStaleLocks(ctx)
	paths := make([]string, len(cleared))
	for i, l := range cleared {
		paths[i] = l.Path
	}
	return paths, err
}

// Changed implements doctor.Repo.
func (g *Repo) Changed(ctx context.Context) ([]string, error) {
	paths, err := g.store.Dirty(ctx, g.dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if rel, err := filepath.Rel(g.dir, p); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out, nil
}

// ReadHead implements doctor.Repo.
func (g *Repo) ReadHead(ctx context.Context, rel string) ([]byte, error) {
	data, err := g.ReadFile(ctx, "", rel)
	if errors.Is(err, history.ErrNotFound) {
		return nil, nil
	}
	return data, err
}

// Tracker implements vault.Tracker for the vault at a folder: it opens
// the repository around it when asked (the vault asks only when two files
// carry one id) and reads which files the index holds. Outside a
// repository nothing is tracked.
type Tracker struct {
	// Dir is the vault's folder.
	Dir string
}

var _ vault.Tracker = Tracker{}

// Tracked implements vault.Tracker.
func (t Tracker) Tracked(ctx context.Context, rels []string) (map[string]bool, error) {
	store, err := OpenStore(ctx, t.Dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer store.Close()
	abs := make([]string, len(rels))
	for i, rel := range rels {
		abs[i] = filepath.Join(t.Dir, filepath.FromSlash(rel))
	}
	tracked, err := store.Tracked(ctx, abs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(tracked))
	for i, rel := range rels {
		if tracked[abs[i]] {
			out[rel] = true
		}
	}
	return out, nil
}

// ChangedFiles lists the vault-relative paths (both sides of a rename)
// that differ between two commits.
func ChangedFiles(ctx context.Context, store *gitstore.Store, dir, from, to string) ([]string, error) {
	changes, err := store.DiffTrees(ctx, from, to, dir)
	if err != nil {
		return nil, err
	}
	var rels []string
	for _, c := range changes {
		for _, p := range []string{c.OldPath, c.Path} {
			if p == "" {
				continue
			}
			rel, err := filepath.Rel(dir, filepath.Join(store.Root(), filepath.FromSlash(p)))
			if err != nil || !filepath.IsLocal(rel) {
				// DiffTrees is limited to dir, so this means the two
				// spell the work tree differently (a symlink): let the
				// caller reload instead of missing a file.
				return nil, fmt.Errorf("changed file %s is not under %s", p, dir)
			}
			rels = append(rels, filepath.ToSlash(rel))
		}
	}
	return rels, nil
}

// Lock takes the write lock of the repository that holds the vault at dir
// (gitstore.Store.LockContext), the one every memvault write holds around
// its commit, and returns the holder's context, with which memvault takes
// it again at once; unlock releases it and the repository.
func Lock(ctx context.Context, dir string) (held context.Context, unlock func(), err error) {
	s, err := OpenStore(ctx, dir)
	if err != nil {
		return ctx, nil, err
	}
	held, release, err := s.LockContext(ctx)
	if err != nil {
		s.Close()
		return ctx, nil, err
	}
	return held, func() { release(); s.Close() }, nil
}
