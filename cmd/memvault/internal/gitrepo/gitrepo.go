package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// OpenStore opens the repository that holds the vault folder dir, or
// would hold it: a vault that does not exist yet is created by its first
// write. The error wraps gitstore.ErrNotRepository when there is none.
func OpenStore(ctx context.Context, dir string) (*gitstore.Store, error) {
	for {
		if _, err := os.Lstat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	return gitstore.Open(ctx, dir)
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
// the domain's history.Repo and vault.DoctorRepo, and is the one place
// vault paths and repository paths are mapped.
type Repo struct {
	store *gitstore.Store
	// dir is the vault's folder as the caller spells it; prefix is the
	// same folder relative to the repository root, with slashes ("" at
	// the root).
	dir, prefix string
}

var (
	_ history.Repo     = (*Repo)(nil)
	_ vault.DoctorRepo = (*Repo)(nil)
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
		Rev: opts.Rev, Follow: opts.Follow, NoRenames: opts.NoRenames, Limit: opts.Limit})
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
		var kind history.ChangeKind
		switch fc.Kind {
		case gitstore.Added:
			kind = history.FileAdded
		case gitstore.Modified:
			kind = history.FileModified
		case gitstore.Deleted:
			kind = history.FileDeleted
		case gitstore.Renamed:
			kind = history.FileRenamed
		default:
			return nil, fmt.Errorf("diff %s..%s: %s: unknown change %v", base, head, fc.Path, fc.Kind)
		}
		out = append(out, history.FileChange{Path: rel, OldPath: g.inVault(fc.OldPath), Kind: kind, Old: fc.Old, New: fc.New})
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
		When: c.When, CommitTime: c.CommitTime, Message: c.Message}
}

// notFound makes gitstore's not-found errors history's too.
func notFound(err error) error {
	if errors.Is(err, gitstore.ErrNotFound) {
		return fmt.Errorf("%w: %w", history.ErrNotFound, err)
	}
	return err
}

// State implements vault.DoctorRepo.
func (g *Repo) State(ctx context.Context) (vault.RepoState, error) {
	st, err := g.store.State(ctx)
	if err != nil {
		return vault.RepoState{}, err
	}
	out := vault.RepoState{Root: g.store.Root(), Branch: st.Branch, Head: st.Head, Detached: st.Detached, Unborn: st.Unborn,
		Operation: st.Operation, RefLock: st.RefLock}
	if st.IndexLocked {
		out.IndexLock = filepath.Join(g.store.GitDir(), "index.lock")
	}
	for _, l := range st.Stale {
		if out.StaleLocks == nil {
			out.StaleLocks = map[string]string{}
		}
		out.StaleLocks[l.Path] = l.Owner
	}
	return out, nil
}

// ClearStaleLocks implements vault.DoctorRepo.
func (g *Repo) ClearStaleLocks(ctx context.Context) ([]string, error) {
	cleared, err := g.store.ClearStaleLocks(ctx)
	paths := make([]string, len(cleared))
	for i, l := range cleared {
		paths[i] = l.Path
	}
	return paths, err
}

// Changed implements vault.DoctorRepo.
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

// ReadHead implements vault.DoctorRepo.
func (g *Repo) ReadHead(ctx context.Context, rel string) ([]byte, error) {
	data, err := g.ReadFile(ctx, "", rel)
	if errors.Is(err, history.ErrNotFound) {
		return nil, nil
	}
	return data, err
}
