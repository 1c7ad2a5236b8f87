package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/memvault/memvault/vault"
)

// Names of the vaults one server serves, as tool results report them in
// their vault field.
const (
	projectScope = vault.ProjectVault
	userScope    = vault.UserVault
)

// vaultSlot is one vault the server serves, the project's or the user's,
// with what the tools need around it: the background load, the git HEAD
// it is current with, its history and its past states.
type vaultSlot struct {
	name   string // projectScope or userScope
	dir    string // the vault folder
	loader *vaultLoader
	logger *slog.Logger
	// head reads the repository's HEAD; nil never reloads. Another
	// process (the CLI, a second server) that writes the vault commits,
	// so a moved HEAD means the in-memory index may be out of date.
	head func(ctx context.Context) (string, error)
	// changed lists the vault-relative files that differ between two
	// commits; nil (or an error) falls back to a whole reload.
	changed func(ctx context.Context, from, to string) ([]string, error)
	// history reads a memory's commits; nil when there is no git.
	history historyFunc
	// asOf returns the vault as recorded at an instant (git-aware, like
	// the CLI's recall --as-of); nil means valid time only.
	asOf func(ctx context.Context, at time.Time) (*vault.Vault, error)

	mu   sync.Mutex
	seen string // HEAD when the index was last known current
	own  string // the last commit this server made
}

// noteHead records h as a HEAD the index is current with.
func (s *vaultSlot) noteHead(h string) {
	s.mu.Lock()
	s.seen = h
	s.mu.Unlock()
}

// noteOwnCommit records a commit this server made: its HEAD needs no
// reload.
func (s *vaultSlot) noteOwnCommit(h string) {
	if h == "" {
		return
	}
	s.mu.Lock()
	s.own = h
	s.mu.Unlock()
}

// ready waits for the vault and brings it up to date.
func (s *vaultSlot) ready(ctx context.Context) (*vault.Vault, error) {
	v, err := s.loader.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s vault %s: %w", s.name, s.dir, err)
	}
	s.refresh(ctx, v)
	return v, nil
}

// refresh brings the index up to date when HEAD moved because of someone
// else's commit. It re-reads just the files the commits between the last
// HEAD seen and the new one touched, so a second server's write costs a
// few file reads, not a reload; our own files in that range read back
// unchanged and cost nothing more. Changes that are not committed (hand
// edits, transient memories written by another process) are not seen
// until then, or until the file watcher reports them.
func (s *vaultSlot) refresh(ctx context.Context, v *vault.Vault) {
	if s.head == nil {
		return
	}
	h, err := s.head(ctx)
	if err != nil {
		s.logger.Warn("read HEAD", "vault", s.name, "err", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h == s.seen {
		return
	}
	from := s.seen
	s.seen = h
	start := time.Now()
	if s.changed != nil && from != "" && h != "" {
		rels, err := s.changed(ctx, from, h)
		if err == nil && len(rels) <= maxDiffRefresh {
			ids, err := v.SyncFiles(ctx, rels)
			if err == nil {
				if len(ids) > 0 {
					s.logger.Info("refreshed the vault: HEAD moved", "vault", s.name, "head", shortHash(h),
						"files", len(rels), "memories", len(ids), "duration", time.Since(start).Round(time.Microsecond))
				}
				return
			}
		}
		if err != nil {
			s.logger.Warn("diff since the last HEAD; reloading the vault", "vault", s.name, "from", shortHash(from), "to", shortHash(h), "err", err)
		}
	} else if h == s.own {
		return
	}
	// SyncAll, not Reload: it waits for this process's write in progress,
	// so a state read before that write cannot be installed after it.
	if err := v.SyncAll(ctx); err != nil {
		s.logger.Warn("reload the vault after HEAD moved", "vault", s.name, "head", h, "err", err)
		return
	}
	s.logger.Info("reloaded the vault: HEAD moved", "vault", s.name, "head", shortHash(h), "duration", time.Since(start).Round(time.Microsecond))
}

// maxDiffRefresh is how many changed files refresh re-reads one by one;
// past it (a pull of a large branch) one reload is cheaper.
const maxDiffRefresh = 2000

// vaultLoader hands out the vault once it is loaded, so the server can
// answer initialize at once while a large vault is still being indexed:
// the first tool call waits for it.
type vaultLoader struct {
	ready chan struct{}
	v     *vault.Vault
	err   error
}

// loadVault runs open in the background.
func loadVault(open func() (*vault.Vault, error)) *vaultLoader {
	l := &vaultLoader{ready: make(chan struct{})}
	go func() {
		defer close(l.ready)
		l.v, l.err = open()
	}()
	return l
}

// loadedVault wraps a vault that is already open.
func loadedVault(v *vault.Vault) *vaultLoader {
	l := &vaultLoader{ready: make(chan struct{}), v: v}
	close(l.ready)
	return l
}

// get waits for the vault.
func (l *vaultLoader) get(ctx context.Context) (*vault.Vault, error) {
	select {
	case <-l.ready:
		if l.err != nil {
			return nil, fmt.Errorf("the vault could not be opened: %w", l.err)
		}
		return l.v, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the vault to load: %w", ctx.Err())
	}
}

// loaded returns the vault if it finished loading, without waiting.
func (l *vaultLoader) loaded() *vault.Vault {
	select {
	case <-l.ready:
		return l.v
	default:
		return nil
	}
}

// openVaults is what one tool call works on: the set of the project
// vault and, when configured, the user vault, both loaded and current,
// with the slots that serve them.
type openVaults struct {
	*vault.Set
	slots []*vaultSlot // project first
}

// slot returns the slot of the vault called name.
func (o *openVaults) slot(name string) *vaultSlot {
	for _, s := range o.slots {
		if s.name == name {
			return s
		}
	}
	return nil
}

// each lists the open vaults with their slots, project first.
func (o *openVaults) each() []vaultPair {
	var out []vaultPair
	for _, m := range o.Members() {
		out = append(out, vaultPair{o.slot(m.Name), m.Vault})
	}
	return out
}

// vaultPair is one open vault with its slot.
type vaultPair struct {
	slot *vaultSlot
	v    *vault.Vault
}

// find returns the vault holding id, project first.
func (o *openVaults) find(id string) (vaultPair, *vault.Memory, error) {
	m, mem, err := o.Find(id)
	if err != nil {
		return vaultPair{}, nil, err
	}
	return vaultPair{o.slot(m.Name), m.Vault}, mem, nil
}

// health describes the served vaults for GET /healthz: status is ok,
// loading (or waiting for the client's roots) or error, with the project
// vault's folder, memory count, load time and git HEAD, and the user
// vault's under user_vault. failed is set when a vault could not open.
func (t *mcpTools) health(ctx context.Context) (out map[string]any, failed bool) {
	out = map[string]any{"status": "loading"}
	slot := t.project.get()
	if slot == nil {
		out["waiting_for"] = "roots"
		return out, false
	}
	describe := func(s *vaultSlot, into map[string]any) bool {
		select {
		case <-s.loader.ready:
		default:
			into["status"] = "loading"
			return false
		}
		if s.loader.err != nil {
			into["status"], into["error"] = "error", s.loader.err.Error()
			return true
		}
		st := s.loader.v.Stats()
		into["status"], into["vault"], into["memories"], into["loaded_at"] = "ok", st.Dir, st.Total, fmtInstant(st.LoadedAt)
		into["index_docs"] = st.Indexed
		into["index_age_seconds"] = max(0, time.Since(st.UpdatedAt).Round(time.Millisecond).Seconds())
		if s.head != nil {
			if h, err := s.head(ctx); err == nil {
				into["git_head"] = h
			}
		}
		return false
	}
	failed = describe(slot, out)
	if t.user != nil {
		u := map[string]any{}
		describe(t.user, u)
		out["user_vault"] = u
	}
	return out, failed
}
