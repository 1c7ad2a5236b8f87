package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/staleness"
)

// openVaults is what one call works on: the set of the project vault and,
// when served, the user vault, both loaded and current, with their slots.
type openVaults struct {
	*vault.Set
	slots  []*slot // project first
	logger *slog.Logger
}

// slot returns the slot of the vault called name.
func (o *openVaults) slot(name string) *slot {
	for _, s := range o.slots {
		if s.name == name {
			return s
		}
	}
	return nil
}

// find returns the vault holding memory id (blanks around it ignored)
// and the memory, or an error for the model.
func (o *openVaults) find(id string) (vault.Member, *vault.Memory, error) {
	in, m, err := o.Find(strings.TrimSpace(id))
	if err != nil {
		return vault.Member{}, nil, toolError(err)
	}
	return in, m, nil
}

// noteOwnCommit tells the vault called name about a commit this server
// made for the calling client, and moves the client's last-seen point
// over it (Repo.PassOwnWrite).
func (o *openVaults) noteOwnCommit(ctx context.Context, name, hash string) {
	s := o.slot(name)
	if s == nil || hash == "" {
		return
	}
	s.Vault.NoteOwnCommit(hash)
	if s.Git != nil {
		if err := s.Git.PassOwnWrite(ctx, clientName(ctx), hash); err != nil {
			o.logger.Warn("last-seen point", "vault", name, "err", err)
		}
	}
}

// holders lists the vaults for history.FindStory, project first.
func (o *openVaults) holders() []history.Holder {
	var out []history.Holder
	for _, m := range o.Members() {
		h := history.Holder{Name: m.Name, Vault: m.Vault}
		if s := o.slot(m.Name); s != nil && s.Git != nil {
			h.Teller = s.Git
		}
		out = append(out, h)
	}
	return out
}

// head is the git HEAD of the vault called name, "" outside git.
func (o *openVaults) head(ctx context.Context, name string) string {
	s := o.slot(name)
	if s == nil || s.Git == nil {
		return ""
	}
	h, err := s.Git.Head(ctx)
	if err != nil {
		return ""
	}
	return h
}

// vaults waits for the served vaults and brings them up to date. ask is
// set, with no error, while the project vault is unknown and the client
// can be asked for its roots; responses are the client's answers from a
// multi round-trip retry.
func (s *Server) vaults(ctx context.Context, responses mcp.InputResponses) (vs *openVaults, ask bool, err error) {
	p, ask, err := s.projectSlot(ctx, responses)
	if err != nil || ask {
		return nil, ask, err
	}
	v, err := p.Vault.Ready(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("%s vault %s: %w", p.name, p.dir, err)
	}
	members := []vault.Member{p.member(v)}
	slots := []*slot{p}
	if s.user != nil {
		uv, err := s.user.Vault.Ready(ctx)
		if err != nil {
			// The project vault still answers; the log says why the user
			// vault does not.
			s.logger.Warn("user vault unavailable", "vault", s.user.dir, "err", err)
		} else {
			members = append(members, s.user.member(uv))
			slots = append(slots, s.user)
		}
	}
	set := vault.NewSet(members...)
	set.Now, set.Cache = s.now, &s.cache
	return &openVaults{Set: set, slots: slots, logger: s.logger}, false, nil
}

// member is the slot's vault v as a member of a set.
func (p *slot) member(v *vault.Vault) vault.Member {
	m := vault.Member{Name: p.name, Vault: v}
	if p.Git != nil {
		m.AsOf = p.Git.AsOf
	}
	return m
}

// staleness returns the staleness of the memories with refs among
// results, asking each result's vault. Staleness is advice: a vault that
// cannot say is logged and left out, never failing the read; when ctx
// ends first (a recall's deadline), the memories with refs are served
// with staleness unknown (staleness.Late).
func (s *Server) staleness(ctx context.Context, vs *openVaults, byVault map[string][]*vault.Memory) map[string]staleness.Staleness {
	out := map[string]staleness.Staleness{}
	for name, ms := range byVault {
		sl := vs.slot(name)
		if sl == nil || sl.Git == nil {
			continue
		}
		states, err := sl.Git.Staleness(ctx, ms)
		if err != nil && ctx.Err() != nil {
			for _, m := range ms {
				if len(m.Refs) > 0 {
					out[m.ID] = staleness.Late()
				}
			}
			continue
		}
		if err != nil {
			s.logger.Warn("staleness", "vault", name, "err", err)
			continue
		}
		maps.Copy(out, states)
	}
	return out
}

// StalenessPreparer is a Repo that can begin the work of a staleness
// answer before the results are known (the file watcher's barrier), so
// that it overlaps the search: recall calls it first, and asks for the
// staleness of its results with the context it returns.
type StalenessPreparer interface {
	PrepareStaleness(ctx context.Context) context.Context
}

// prepareStaleness calls PrepareStaleness of every served vault that has
// it.
func (o *openVaults) prepareStaleness(ctx context.Context) context.Context {
	for _, sl := range o.slots {
		if p, ok := sl.Git.(StalenessPreparer); ok {
			ctx = p.PrepareStaleness(ctx)
		}
	}
	return ctx
}

// recallStaleness is staleness for recall results.
func (s *Server) recallStaleness(ctx context.Context, vs *openVaults, rs []vault.SetResult) map[string]staleness.Staleness {
	byVault := map[string][]*vault.Memory{}
	for _, r := range rs {
		if len(r.Memory.Refs) > 0 {
			byVault[r.Vault] = append(byVault[r.Vault], r.Memory)
		}
	}
	if len(byVault) == 0 {
		return nil
	}
	return s.staleness(ctx, vs, byVault)
}
