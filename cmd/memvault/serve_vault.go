package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/live"
	"github.com/memvault/memvault/cmd/memvault/internal/mcpserver"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/since"
	"github.com/memvault/memvault/vault/staleness"
)

// servedVault is one vault memvault serve serves, the project's or the
// user's: loaded in the background, brought up to date with the commits
// of other processes when a call needs it, followed on disk by the file
// watcher, and read in the past through git.
type servedVault struct {
	name, dir string
	logger    *slog.Logger
	now       func() time.Time

	ready chan struct{} // closed when the load ends
	v     *vault.Vault
	err   error
	store *gitstore.Store
	stop  func() // ends the watcher and the change subscription

	// head reads the repository's HEAD. Another process (the CLI, a
	// second server) that writes the vault commits, so a moved HEAD means
	// the in-memory index may be out of date.
	head func(ctx context.Context) (string, error)
	// changed lists the vault-relative files that differ between two
	// commits; nil (or an error) falls back to a whole reload.
	changed func(ctx context.Context, from, to string) ([]string, error)
	// parents reads a commit's parents: refresh skips the diff for the
	// server's own commit on the HEAD it had.
	parents func(ctx context.Context, h string) ([]string, error)
	// pastVault reads the vault as recorded at an instant (servedAsOf).
	pastVault func(ctx context.Context, at time.Time) (*vault.Vault, error)

	// pastRepo reads the served repository's past for History (the
	// store is the served one, closed with it).
	pastOnce sync.Once
	pastRepo *gitrepo.Repo
	pastErr  error

	mu   sync.Mutex
	seen string // HEAD when the index was last known current
	own  string // the last commit this server made
	// Served keeps the staleness tracker and the access log of the
	// vault's repository for the server's life (its Review, RecordAccess
	// and PrepareStaleness serve the MCP server); nil outside git.
	*gitrepo.Served
}

var (
	_ mcpserver.Loader = (*servedVault)(nil)
	_ mcpserver.Repo   = (*servedVault)(nil)
	_ history.Teller   = (*servedVault)(nil)

	_ mcpserver.Reviewer          = (*servedVault)(nil)
	_ mcpserver.AccessRecorder    = (*servedVault)(nil)
	_ mcpserver.StalenessPreparer = (*servedVault)(nil)
)

// openServedVault starts loading the vault at dir in the background and
// returns at once; calls wait for the load (Ready). changed hears of
// every change of the vault once it is loaded.
func (m *Main) openServedVault(ctx context.Context, name, dir string, logger *slog.Logger, changed func(vault.Change)) *servedVault {
	o := &servedVault{name: name, dir: dir, logger: logger, now: m.Now, ready: make(chan struct{})}
	o.head = func(ctx context.Context) (string, error) {
		if o.store == nil {
			return "", fmt.Errorf("%s vault %s: no repository open", name, dir)
		}
		return o.store.Head(ctx)
	}
	o.changed = func(ctx context.Context, from, to string) ([]string, error) {
		return gitrepo.ChangedFiles(ctx, o.store, dir, from, to)
	}
	o.parents = func(ctx context.Context, h string) ([]string, error) {
		c, err := o.store.ReadCommit(ctx, h)
		return c.Parents, err
	}
	o.pastVault = m.servedAsOf(dir, name, logger)
	go func() {
		defer close(o.ready)
		o.v, o.err = m.loadServedVault(ctx, o, changed)
	}()
	return o
}

// servedAsOf reads the vault at dir as recorded at an instant, as the
// CLI's recall --as-of does, and logs what it read.
func (m *Main) servedAsOf(dir, name string, logger *slog.Logger) func(ctx context.Context, at time.Time) (*vault.Vault, error) {
	return func(ctx context.Context, at time.Time) (*vault.Vault, error) {
		return m.pastVault(ctx, dir, "", at, func(note string) { logger.Info(note, "vault", name) })
	}
}

// loadServedVault opens o's vault and starts following it.
func (m *Main) loadServedVault(ctx context.Context, o *servedVault, changed func(vault.Change)) (*vault.Vault, error) {
	// HEAD before the load: a commit that lands while the vault loads
	// moves it, and the first call reloads.
	if probe, err := openGit(ctx, o.dir); err == nil {
		if st, err := probe.State(ctx); err == nil {
			o.noteHead(st.Head)
		}
		probe.Close()
	}
	var unsubscribe func()
	v, stopLive, err := live.Start(ctx, o.dir, o.logger.With("scope", o.name), func() (*vault.Vault, error) {
		v, s, err := m.openGitVaultAt(ctx, o.dir, true)
		if err != nil {
			return nil, err
		}
		if o.store = s; s != nil {
			o.Served = gitrepo.NewServed(s, o.dir)
		}
		unsubscribe = v.Subscribe(changed) // before the batches of the load's changes
		o.logger.Info("vault loaded", "vault", v.Dir(), "scope", o.name, "memories", v.Len())
		return v, nil
	})
	if err != nil {
		o.logger.Error("open vault", "vault", o.dir, "err", err)
		return nil, err
	}
	o.stop = func() { stopLive(); unsubscribe() }
	return v, nil
}

// close waits for the load and releases the repository.
func (o *servedVault) close() {
	<-o.ready
	if o.stop != nil {
		o.stop()
	}
	o.Served.Close()
	if o.store != nil {
		o.store.Close()
	}
}

// Ready waits for the vault and brings it up to date.
func (o *servedVault) Ready(ctx context.Context) (*vault.Vault, error) {
	select {
	case <-o.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the vault to load: %w", ctx.Err())
	}
	if o.err != nil {
		return nil, fmt.Errorf("the vault could not be opened: %w", o.err)
	}
	o.refresh(ctx, o.v)
	return o.v, nil
}

// Loaded reports the load without waiting.
func (o *servedVault) Loaded() (*vault.Vault, bool, error) {
	select {
	case <-o.ready:
		return o.v, true, o.err
	default:
		return nil, false, nil
	}
}

// Head reads the repository's HEAD.
func (o *servedVault) Head(ctx context.Context) (string, error) { return o.head(ctx) }

// History tells a memory's story. Once the vault is loaded it reads the
// served repository, whose history index (gitrepo) stays in memory for
// the server's life; before, it opens the repository for the call.
func (o *servedVault) History(ctx context.Context, id string, cur *vault.Memory) (*history.Story, error) {
	if _, loaded, _ := o.Loaded(); loaded && o.store != nil {
		o.pastOnce.Do(func() { o.pastRepo, o.pastErr = gitrepo.New(o.store, o.dir) })
		if o.pastErr == nil {
			return o.pastRepo.Past(o.now).History(ctx, id, cur)
		}
	}
	g, err := needRepoAt(ctx, o.dir, "memory_history")
	if err != nil {
		return nil, err
	}
	defer g.Close()
	return g.past(o.now).History(ctx, id, cur)
}

// AsOf reads the vault as recorded at an instant, as the CLI's recall
// --as-of does, and logs what it read.
func (o *servedVault) AsOf(ctx context.Context, at time.Time) (*vault.Vault, error) {
	return o.pastVault(ctx, at)
}

// Staleness says which of ms may no longer match the code their refs
// name, from a tracker kept for the server's life and updated from the
// new commits when HEAD moves.
func (o *servedVault) Staleness(ctx context.Context, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	if o.v == nil {
		return nil, nil
	}
	o.mu.Lock() // seen: the HEAD refresh read at the start of this call
	head := o.seen
	o.mu.Unlock()
	return o.Served.Staleness(ctx, head, o.v, ms)
}

// CatchUp tells what changed since client's last session and moves its
// point (memory://context).
func (o *servedVault) CatchUp(ctx context.Context, client string) (since.Report, error) {
	c, err := o.staleChecker()
	if c == nil {
		return since.Report{First: true}, err
	}
	return c.Repo().CatchUp(ctx, gitrepo.CatchUp{Client: client, Now: o.now(), Advance: true, Checker: c, All: o.v.All})
}

// PassOwnWrite moves client's last-seen point over its own write.
func (o *servedVault) PassOwnWrite(ctx context.Context, client, commit string) error {
	c, err := o.staleChecker()
	if c == nil {
		return err
	}
	return c.Repo().PassOwnWrite(ctx, client, commit)
}

// staleChecker is the server's staleness checker (o.Served's, made on first
// use); nil before the vault is loaded or outside git.
func (o *servedVault) staleChecker() (*gitrepo.Checker, error) {
	if o.Served == nil || o.v == nil {
		return nil, nil
	}
	return o.Served.Checker()
}

// noteHead records h as a HEAD the index is current with.
func (o *servedVault) noteHead(h string) {
	o.mu.Lock()
	o.seen = h
	o.mu.Unlock()
}

// NoteOwnCommit records a commit this server made: its HEAD needs no
// reload.
func (o *servedVault) NoteOwnCommit(h string) {
	if h == "" {
		return
	}
	o.mu.Lock()
	o.own = h
	o.mu.Unlock()
}

// refresh brings the index up to date when HEAD moved because of someone
// else's commit. It re-reads just the files the commits between the last
// HEAD seen and the new one touched, so a second server's write costs a
// few file reads, not a reload; our own files in that range read back
// unchanged and cost nothing more. Changes that are not committed (hand
// edits, transient memories written by another process) are not seen
// until then, or until the file watcher reports them.
func (o *servedVault) refresh(ctx context.Context, v *vault.Vault) {
	if o.head == nil {
		return
	}
	h, err := o.head(ctx)
	if err != nil {
		o.logger.Warn("read HEAD", "vault", o.name, "err", err)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if h == o.seen {
		return
	}
	from := o.seen
	o.seen = h
	start := time.Now()
	if o.changed != nil && from != "" && h != "" {
		if h == o.own && o.parents != nil {
			// Our own commit on the HEAD we had changed only files this
			// vault wrote: diffing a large vault's folder trees for them
			// was a part of every write (docs/git.md, "Figures behind
			// the code's comments").
			if ps, err := o.parents(ctx, h); err == nil && len(ps) == 1 && ps[0] == from {
				return
			}
		}
		rels, err := o.changed(ctx, from, h)
		if err == nil && len(rels) <= maxDiffRefresh {
			ids, err := v.SyncFiles(ctx, rels)
			if err == nil {
				if len(ids) > 0 {
					o.logger.Info("refreshed the vault: HEAD moved", "vault", o.name, "head", shortHash(h),
						"files", len(rels), "memories", len(ids), "duration", time.Since(start).Round(time.Microsecond))
				}
				return
			}
		}
		if err != nil {
			o.logger.Warn("diff since the last HEAD; reloading the vault", "vault", o.name, "from", shortHash(from), "to", shortHash(h), "err", err)
		}
	} else if h == o.own {
		return
	}
	// SyncAll, not Reload: it waits for this process's write in progress,
	// so a state read before that write cannot be installed after it.
	if err := v.SyncAll(ctx); err != nil {
		o.logger.Warn("reload the vault after HEAD moved", "vault", o.name, "head", h, "err", err)
		return
	}
	o.logger.Info("reloaded the vault: HEAD moved", "vault", o.name, "head", shortHash(h), "duration", time.Since(start).Round(time.Microsecond))
}

// maxDiffRefresh is how many changed files refresh re-reads one by one;
// past it (a pull of a large branch) one reload is cheaper.
const maxDiffRefresh = 2000

// GitObjects counts the repository's object store for memory_stats.
func (o *servedVault) GitObjects() *view.GitObjects {
	if o.store == nil {
		return nil
	}
	return gitObjectsOf(o.store)
}

// gitObjectsOf counts store's objects for both doors' stats; nil when it
// cannot.
func gitObjectsOf(store *gitstore.Store) *view.GitObjects {
	st, err := store.ObjectStats()
	if err != nil {
		return nil
	}
	return &view.GitObjects{Loose: st.Loose, LooseBytes: st.LooseBytes, Packs: st.Packs, PackBytes: st.PackBytes, GCAuto: st.GCAuto}
}
