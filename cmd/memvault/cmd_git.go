package main

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
)

// This file holds what the git-aware commands (update, forget, restore,
// history, why, diff, doctor, recall --at/--as-of) share: opening the vault
// with its repository, mapping vault paths to repository paths, and reading
// the vault as recorded at a revision.

// openGitVault opens the vault for a write with its repository as the
// committer, like openWritableVault, but commits at the Main clock (so a
// commit's time and the updated_at it writes agree, and tests can pin both)
// and finishes a pending journal only when recover is set: doctor wants to
// see the journal before it is gone.
func (m *Main) openGitVault(ctx context.Context, recover bool) (*vault.Vault, *gitstore.Store, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, nil, err
	}
	store, err := openGit(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil, nil, notRepository(dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open git repository: %w", err)
	}
	store.Now = m.Now
	author, err := parseAuthor(m.Getenv("MEMVAULT_AUTHOR"))
	if err != nil {
		store.Close()
		return nil, nil, usageError{err}
	}
	v, err := vault.Open(ctx, dir, vault.Options{Now: m.Now, Client: "cli",
		Committer: gitCommitter{store: store, author: author, logger: m.logger}})
	if err != nil {
		store.Close()
		return nil, nil, fmt.Errorf("open vault %s: %w", dir, err)
	}
	if recover {
		if done, err := v.Recover(ctx); err != nil {
			m.logger.Warn("could not finish an interrupted write; see memvault doctor", "err", err)
		} else if len(done) > 0 {
			m.logger.Warn("committed the files of an interrupted write", "paths", done)
		}
	}
	return v, store, nil
}

// gitView is the repository that holds the vault, opened for reading.
type gitView struct {
	store *gitstore.Store
	// dir is the vault's absolute folder; prefix is the same folder
	// relative to the repository root, with slashes ("" at the root).
	dir, prefix string
}

// openGitView opens the repository around the vault. It returns an error
// wrapping gitstore.ErrNotRepository when there is none.
func (m *Main) openGitView(ctx context.Context) (*gitView, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, err
	}
	store, err := openGit(ctx, dir)
	if err != nil {
		return nil, err
	}
	g, err := viewOf(store, dir)
	if err != nil {
		store.Close()
		return nil, err
	}
	return g, nil
}

// viewOf wraps an open store for the vault at dir.
func viewOf(store *gitstore.Store, dir string) (*gitView, error) {
	real, err := resolveExisting(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(store.Root(), real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("vault %s is outside the repository %s", dir, store.Root())
	}
	prefix := filepath.ToSlash(rel)
	if prefix == "." {
		prefix = ""
	}
	return &gitView{store: store, dir: dir, prefix: prefix}, nil
}

// needGitView is openGitView for commands that make no sense without git.
func (m *Main) needGitView(ctx context.Context, what string) (*gitView, error) {
	g, err := m.openGitView(ctx)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil, usagef("%s needs the vault to be in a git repository; this one is not", what)
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository: %w", err)
	}
	return g, nil
}

// Close releases the repository.
func (g *gitView) Close() error { return g.store.Close() }

// vaultRel turns a repository-relative path into a vault-relative one,
// reporting false for paths outside the vault.
func (g *gitView) vaultRel(repoRel string) (string, bool) {
	if g.prefix == "" {
		return repoRel, true
	}
	rest, ok := strings.CutPrefix(repoRel, g.prefix+"/")
	return rest, ok
}

// repoRel turns a vault-relative path into a repository-relative one.
func (g *gitView) repoRel(vaultRel string) string {
	if g.prefix == "" {
		return vaultRel
	}
	return g.prefix + "/" + vaultRel
}

// readMemory reads and parses a vault-relative file at a revision; it
// returns nil, nil when the file is not there.
func (g *gitView) readMemory(ctx context.Context, rev, vaultRel string, modTime time.Time) (*vault.Memory, []byte, error) {
	data, err := g.store.ReadFile(ctx, rev, g.repoRel(vaultRel))
	if errors.Is(err, gitstore.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	mem, _ := vault.ParseMemory(vaultRel, data, modTime)
	return mem, data, nil
}

// commitTime returns when rev was committed.
func (g *gitView) commitTime(ctx context.Context, rev string) (time.Time, error) {
	// The root tree changes with every non-empty commit, so the first
	// commit of the root's history is rev itself.
	cs, err := g.store.History(ctx, g.store.Root(), gitstore.HistoryOptions{Rev: rev, Limit: 1, NoRenames: true})
	if err != nil {
		return time.Time{}, err
	}
	if len(cs) == 0 {
		return time.Time{}, fmt.Errorf("commit %s: %w", rev, gitstore.ErrNotFound)
	}
	return cs[0].CommitTime, nil
}

// snapshot reads the vault as recorded at commit rev, from git objects
// only: the work tree is never looked at. Files without dates take
// modTime.
func (g *gitView) snapshot(ctx context.Context, rev string, modTime time.Time, now func() time.Time) (*vault.Vault, error) {
	var files []vault.File
	err := g.store.WalkTree(ctx, rev, g.dir, func(p string, data []byte) error {
		rel, ok := g.vaultRel(p)
		if ok && vault.IsMemoryPath(rel) {
			files = append(files, vault.File{Rel: rel, Data: data, ModTime: modTime})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the vault at %s: %w", shortHash(rev), err)
	}
	return vault.OpenSnapshot(ctx, g.dir+"@"+shortHash(rev), files, vault.Options{Now: now})
}

// recallVault picks the vault a recall reads. Without --at and --as-of it
// is the work tree. With --at COMMIT it is the vault as recorded at that
// commit. With --as-of in a git repository it is the vault as recorded at
// that instant (the newest commit at or before it), so the answer is what
// we believed then; outside git, --as-of only moves valid time (the caller
// sets Query.AsOf) over the work tree.
func (m *Main) recallVault(ctx context.Context, at string, asOf time.Time) (*vault.Vault, error) {
	if at == "" && asOf.IsZero() {
		return m.openVault(ctx)
	}
	g, err := m.openGitView(ctx)
	if errors.Is(err, gitstore.ErrNotRepository) {
		if at != "" {
			return nil, usagef("--at %s: the vault is not in a git repository", at)
		}
		return m.openVault(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository: %w", err)
	}
	defer g.Close()
	var rev string
	if at != "" {
		if rev, err = g.store.Resolve(ctx, at); errors.Is(err, gitstore.ErrNotFound) {
			return nil, usagef("--at %s: no such commit", at)
		} else if err != nil {
			return nil, err
		}
	} else {
		st, err := g.store.State(ctx)
		if err != nil {
			return nil, err
		}
		if st.Unborn {
			// Nothing is recorded yet: valid time over the work tree is
			// the best answer there is.
			fmt.Fprintf(m.Stderr, "memvault: no commits yet; --as-of applies to valid time only\n")
			return m.openVault(ctx)
		}
		rev, err = g.store.ResolveTime(ctx, asOf)
		if errors.Is(err, gitstore.ErrNotFound) {
			fmt.Fprintf(m.Stderr, "memvault: nothing was recorded at or before %s\n", asOf.Format(time.RFC3339))
			return vault.OpenSnapshot(ctx, g.dir+"@empty", nil, vault.Options{Now: m.Now})
		}
		if err != nil {
			return nil, err
		}
	}
	when, err := g.commitTime(ctx, rev)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(m.Stderr, "memvault: reading the vault as recorded at %s (%s)\n", shortHash(rev), when.UTC().Format(time.RFC3339))
	v, err := g.snapshot(ctx, rev, when, m.Now)
	if err == nil && v.Stats().Total == 0 {
		fmt.Fprintf(m.Stderr, "memvault: %s has no committed memories in %s\n", shortHash(rev), g.dir)
	}
	return v, err
}

// resolveExisting resolves symlinks in the longest existing prefix of p,
// so a vault path compares with the repository root (which has them
// resolved) even when the vault folder does not exist yet.
func resolveExisting(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest), nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// shortHash abbreviates a commit id for people.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
