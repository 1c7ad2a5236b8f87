package gitrepo

import (
	"context"
	"sync"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/review"
	"github.com/memvault/memvault/vault/staleness"
)

// Review is the review of v from its repository (review.Gather): the
// staleness of every memory with refs (c's tracker) and the clone's
// access record.
func (c *Checker) Review(ctx context.Context, v *vault.Vault, now time.Time, days int) (review.Report, error) {
	return review.Gather(ctx, v, review.Sources{Staleness: c, Access: c.repo.AccessLog()}, now, days)
}

// ReviewVault is the CLI's review of the vault v: from its repository
// when it is in one, else without staleness and access records.
func ReviewVault(ctx context.Context, v *vault.Vault, now time.Time, days int) (review.Report, error) {
	g, err := Open(ctx, v.Dir())
	if err != nil {
		return review.Gather(ctx, v, review.Sources{}, now, days)
	}
	defer g.Close()
	return g.Checker().Review(ctx, v, now, days)
}

// Served is what a server keeps of one vault's repository for its life:
// the staleness tracker, made on first use, and the access log. A nil
// *Served is a vault outside git: no staleness, no access record, a
// review without them.
type Served struct {
	store *gitstore.Store
	dir   string

	mu      sync.Mutex
	checker *Checker
}

// NewServed returns the Served of the vault at dir in store.
func NewServed(store *gitstore.Store, dir string) *Served { return &Served{store: store, dir: dir} }

// Checker returns the server's tracker, making it on first use: a
// LiveChecker, which keeps the referenced code's uncommitted state
// between answers.
func (s *Served) Checker() (*Checker, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checker == nil {
		g, err := New(s.store, s.dir)
		if err != nil {
			return nil, err
		}
		s.checker = g.LiveChecker()
	}
	return s.checker, nil
}

// Close stops the tracker's watcher, if it was made. A nil *Served has
// nothing to close.
func (s *Served) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checker != nil {
		s.checker.Close()
	}
}

// Staleness is Checker.CheckAt over v at head, the HEAD the server read
// for this call ("": read it).
func (s *Served) Staleness(ctx context.Context, head string, v *vault.Vault, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	if s == nil {
		return nil, nil
	}
	c, err := s.Checker()
	if err != nil {
		return nil, err
	}
	return c.CheckAt(ctx, head, v.All, ms)
}

// PrepareStaleness is Checker.Prepare with the server's tracker, once it
// is made: recall calls it before it searches.
func (s *Served) PrepareStaleness(ctx context.Context) context.Context {
	if s == nil {
		return ctx
	}
	s.mu.Lock()
	c := s.checker
	s.mu.Unlock()
	if c == nil {
		return ctx
	}
	return c.Prepare(ctx)
}

// RecordAccess appends ids to the vault's access log.
func (s *Served) RecordAccess(ctx context.Context, at time.Time, ids []string) error {
	if s == nil {
		return nil
	}
	c, err := s.Checker()
	if err != nil {
		return err
	}
	return c.repo.AccessLog().Record(ctx, at, ids)
}

// Review is Checker.Review with the server's tracker.
func (s *Served) Review(ctx context.Context, v *vault.Vault, now time.Time, days int) (review.Report, error) {
	if s == nil {
		return review.Gather(ctx, v, review.Sources{}, now, days)
	}
	c, err := s.Checker()
	if err != nil {
		return review.Report{}, err
	}
	return c.Review(ctx, v, now, days)
}
