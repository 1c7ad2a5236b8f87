package webui

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/review"
	"github.com/memvault/memvault/vault/staleness"
)

// Source is the vault the pages show, kept current by its owner (memvault
// serve's and memvault ui's served vault follows the files and HEAD).
type Source interface {
	// Ready returns the vault, up to date with what other processes
	// committed.
	Ready(ctx context.Context) (*vault.Vault, error)
	// Staleness says which of ms may no longer match their code.
	Staleness(ctx context.Context, ms []*vault.Memory) (map[string]staleness.Staleness, error)
	// Review builds the review report of v at now.
	Review(ctx context.Context, v *vault.Vault, now time.Time, days int) (review.Report, error)
	// Repo reads the vault's repository; nil outside git.
	Repo(ctx context.Context) (history.Repo, error)
	// NoteOwnCommit records a commit a write of the pages made.
	NoteOwnCommit(hash string)
}

// Local is a Source over a vault folder opened once, for tests and
// tools that need the pages without a server (the browser tests):
// NewLocal, then New(Config{Source: local}).Handler(). It does not follow
// the files; writes are not committed (no committer).
type Local struct {
	v      *vault.Vault
	repo   *gitrepo.Repo // nil outside git
	served *gitrepo.Served
}

// NewLocal opens the vault at dir (in a git repository) at the clock now.
func NewLocal(ctx context.Context, dir string, now func() time.Time) (*Local, error) {
	v, err := vault.Open(ctx, dir, vault.Options{Now: now, Client: "web", IndexCache: true})
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", dir, err)
	}
	l := &Local{v: v}
	if g, err := gitrepo.Open(ctx, dir); err == nil {
		l.repo, l.served = g, gitrepo.NewServed(g.Store(), dir)
	}
	return l, nil
}

// Close releases the repository.
func (l *Local) Close() {
	l.served.Close()
	if l.repo != nil {
		l.repo.Close()
	}
}

// Ready implements Source.
func (l *Local) Ready(context.Context) (*vault.Vault, error) { return l.v, nil }

// Staleness implements Source.
func (l *Local) Staleness(ctx context.Context, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	return l.served.Staleness(ctx, "", l.v, ms)
}

// Review implements Source.
func (l *Local) Review(ctx context.Context, v *vault.Vault, now time.Time, days int) (review.Report, error) {
	return l.served.Review(ctx, v, now, days)
}

// Repo implements Source.
func (l *Local) Repo(context.Context) (history.Repo, error) {
	if l.repo == nil {
		return nil, nil
	}
	return l.repo, nil
}

// NoteOwnCommit implements Source.
func (*Local) NoteOwnCommit(string) {}

// Open returns the read-only pages of the vault at dir (NewLocal and New
// together), for tests and tools such as the browser tests: serve the
// handler with httptest.NewServer, crawl from /. close releases the
// repository.
func Open(ctx context.Context, dir string, now func() time.Time) (h http.Handler, close func(), err error) {
	src, err := NewLocal(ctx, dir, now)
	if err != nil {
		return nil, nil, err
	}
	s, err := New(Config{Source: src, Now: now, Dir: dir})
	if err != nil {
		src.Close()
		return nil, nil, err
	}
	return s.Handler(), src.Close, nil
}
