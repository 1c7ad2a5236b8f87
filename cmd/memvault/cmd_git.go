package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/memlimit"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/load"
)

// This file holds what the git-aware commands (update, forget, restore,
// history, why, diff, doctor, recall --at/--as-of) share: opening the vault
// with its repository, and picking the vault a recall reads.

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
	return m.openGitVaultAt(ctx, dir, recover)
}

// openGitVaultAt is openGitVault for the vault at dir.
func (m *Main) openGitVaultAt(ctx context.Context, dir string, recover bool) (*vault.Vault, *gitstore.Store, error) {
	return m.openGitVaultWith(ctx, dir, recover, false)
}

// openGitVaultWith is openGitVaultAt, opening the vault with headers only
// when headersOnly is set: enough to add a memory (see
// vault.Options.HeadersOnly), with the headers cached in the repository's
// git directory between processes.
func (m *Main) openGitVaultWith(ctx context.Context, dir string, recover, headersOnly bool) (*vault.Vault, *gitstore.Store, error) {
	store, err := openGit(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil, nil, notRepository(dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open git repository: %w", err)
	}
	store.Now = m.Now
	author, err := gitrepo.ParseAuthor(m.Getenv("MEMVAULT_AUTHOR"))
	if err != nil {
		store.Close()
		return nil, nil, usageError{err}
	}
	opts := vault.Options{Now: m.Now, Client: "cli", Tracker: gitrepo.Tracker{Dir: dir}, Committed: gitrepo.HeadFiles{Dir: dir, Store: store}, LastGood: gitrepo.HeadFiles{Dir: dir, Store: store}, Proposer: gitrepo.Proposer{Store: store}, Operations: store, IndexCache: true,
		Committer: gitrepo.Committer{Store: store, Author: author, Logger: m.logger, AllowDetached: m.allowDetached}, CopyIndexCache: m.serving}
	if headersOnly {
		opts.HeadersOnly = true
		opts.HeaderCache = filepath.Join(store.GitDir(), "memvault", load.HeaderCacheName(dir))
	}
	v, err := vault.Open(ctx, dir, opts)
	if err != nil {
		store.Close()
		return nil, nil, fmt.Errorf("open vault %s: %w", dir, err)
	}
	memlimit.Fit()
	if recover {
		if done, err := v.Recover(ctx); err != nil {
			m.logger.Warn("could not finish an interrupted write; see memvault doctor", "err", err)
		} else if len(done) > 0 {
			m.logger.Warn("committed the files of an interrupted write", "paths", done)
		}
	}
	return v, store, nil
}

// openRepo opens the repository around the vault for reading its past. It
// returns an error wrapping gitstore.ErrNotRepository when there is none.
func (m *Main) openRepo(ctx context.Context) (*gitRepo, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, err
	}
	return openRepoAt(ctx, dir)
}

// needRepo is openRepo for commands that make no sense without git.
func (m *Main) needRepo(ctx context.Context, what string) (*gitRepo, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, err
	}
	return needRepoAt(ctx, dir, what)
}

// recallVault picks the vault a recall reads. Without --at and --as-of it
// is the work tree. With --at COMMIT it is the vault as recorded at that
// commit. With --as-of in a git repository it is the vault as recorded at
// that instant (the newest commit at or before it), so the answer is what
// we believed then; outside git, --as-of only moves valid time (the caller
// sets Query.AsOf) over the work tree. What it read goes to stderr.
func (m *Main) recallVault(ctx context.Context, at string, asOf time.Time) (*vault.Vault, error) {
	if at == "" && asOf.IsZero() {
		return m.openVault(ctx)
	}
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, err
	}
	return m.pastVault(ctx, dir, at, asOf, func(note string) { fmt.Fprintf(m.Stderr, "memvault: %s\n", note) })
}

// pastVault reads the vault at dir as recorded at commit at, or at the
// instant asOf, and tells say what it read. Where there is no past to read
// (no repository, or no commit yet) it is the work tree, for valid time.
func (m *Main) pastVault(ctx context.Context, dir, at string, asOf time.Time, say func(note string)) (*vault.Vault, error) {
	g, err := openRepoAt(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		if at != "" {
			return nil, usagef("--at %s: the vault is not in a git repository", at)
		}
		return m.openVaultAt(ctx, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open git repository: %w", err)
	}
	defer g.Close()
	past := g.past(m.Now)
	var snap *history.Snapshot
	if at != "" {
		snap, err = past.At(ctx, at)
		var re *history.RevisionError
		if errors.As(err, &re) {
			return nil, usagef("--at %s: no such commit", at)
		}
	} else {
		snap, err = past.AsOf(ctx, asOf)
	}
	if err != nil {
		return nil, err
	}
	for _, note := range clitext.SnapshotNotes(snap, dir) {
		say(note)
	}
	if snap.Unborn {
		return m.openVaultAt(ctx, dir)
	}
	return snap.Vault, nil
}

// shortHash abbreviates a commit id for people.
func shortHash(h string) string { return history.ShortHash(h) }
