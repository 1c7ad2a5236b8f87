package vault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/rank"
)

// Names of the vaults of a Set. Recall results and writes report which
// vault they come from by these names.
const (
	// ProjectVault is the project's own vault, in its repository.
	ProjectVault = "project"
	// UserVault holds what follows the developer across projects:
	// preferences, by default.
	UserVault = "user"
)

// Member is one vault of a Set.
type Member struct {
	// Name is ProjectVault or UserVault.
	Name  string
	Vault *Vault
	// AsOf returns the vault as it was recorded at an instant in the past
	// (from git, say); the domain never reads history itself. Nil means
	// the live vault, with validity and decay evaluated at that instant.
	AsOf func(ctx context.Context, at time.Time) (*Vault, error)
}

// SetCache is what the Sets built, call after call, over the same
// long-lived vaults share: the scratch index that ranks several vaults'
// candidates together, each vault's list of superseding memories, and
// what recalls derived from the texts of their top results lately.
// The zero value is ready; it is safe for concurrent use.
type SetCache struct {
	pool  rankPool
	sup   supersedeIndex
	texts rank.TextMemo
}

// Set is the vaults one caller works on together: the project vault and,
// optionally, the user vault. It owns the rules that involve more than
// one vault: where a new memory goes, supersession and rival rules across
// vaults, ranking their results together, the session-start digest. A Set
// is cheap to build; build one per call over vaults that stay open.
type Set struct {
	// Now is the instant a recall is evaluated at when it names none, and
	// the line between an as-of that reads the live vaults and one that
	// reads the recorded past. Nil means the first vault's clock.
	Now func() time.Time
	// Cache keeps ranking and supersession state across calls; nil keeps
	// nothing (fine for one-shot callers such as the CLI).
	Cache *SetCache

	members []Member
}

// NewSet returns the set of the given vaults, the project vault first.
// Members with a nil Vault are left out.
func NewSet(members ...Member) *Set {
	s := &Set{}
	for _, m := range members {
		if m.Vault != nil {
			s.members = append(s.members, m)
		}
	}
	return s
}

// Members lists the set's vaults, the project vault first.
func (s *Set) Members() []Member { return slices.Clone(s.members) }

// Member returns the member called name; ok is false when the set has
// no such vault.
func (s *Set) Member(name string) (Member, bool) {
	for _, m := range s.members {
		if m.Name == name {
			return m, true
		}
	}
	return Member{}, false
}

// Instant is the set's current instant: its Now, else its first
// vault's clock.
func (s *Set) Instant() time.Time { return s.now() }

// now is the set's current instant.
func (s *Set) now() time.Time {
	switch {
	case s.Now != nil:
		return s.Now()
	case len(s.members) > 0:
		return s.members[0].Vault.now()
	}
	return time.Now()
}

// Find returns the vault holding id, looking in the project vault first,
// and a copy of the memory. The error wraps ErrNotFound when no vault
// holds it.
func (s *Set) Find(id string) (Member, *Memory, error) {
	var firstErr error
	for _, m := range s.members {
		mem, err := m.Vault.Get(id)
		if err == nil {
			return m, mem, nil
		}
		if firstErr == nil || !errors.Is(err, ErrNotFound) {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("%w: %s", ErrNotFound, ShortID(id))
	}
	return Member{}, nil, firstErr
}

// SupersededBy lists the ids of the memories, in any vault of the set,
// that name id in their supersedes: project vault first, by path within
// a vault. It does not look at their status or dates.
func (s *Set) SupersededBy(id string) []string {
	var out []string
	for _, m := range s.members {
		for _, sm := range s.Cache.superseding(m.Vault) {
			if slices.Contains(sm.Supersedes, id) {
				out = append(out, sm.ID)
			}
		}
	}
	return out
}

// heldElsewhere says whether a member other than not holds id.
func (s *Set) heldElsewhere(not *Vault, id string) bool {
	for _, m := range s.members {
		if m.Vault == not {
			continue
		}
		if _, err := m.Vault.Get(id); err == nil {
			return true
		}
	}
	return false
}

// Target picks the vault a new memory goes to: the one scope names
// (ProjectVault or UserVault, case and spaces aside), else the user vault
// for preferences (they follow the developer across projects) when the
// set has one, else the project vault. Naming a vault the set lacks is
// an error wrapping ErrNoVault; an unknown name one wrapping ErrInvalid.
func (s *Set) Target(layer Layer, scope string) (Member, error) {
	if len(s.members) == 0 {
		return Member{}, fmt.Errorf("%w: the set has no vault", ErrNoVault)
	}
	switch name := strings.ToLower(strings.TrimSpace(scope)); name {
	case "":
		if layer == Preference {
			if u, ok := s.Member(UserVault); ok {
				return u, nil
			}
		}
		return s.members[0], nil
	case ProjectVault, UserVault:
		m, ok := s.Member(name)
		if !ok {
			return Member{}, fmt.Errorf("scope: no %s vault: %w", name, ErrNoVault)
		}
		return m, nil
	default:
		return Member{}, fmt.Errorf("%w: scope: want %s or %s, got %q", ErrInvalid, ProjectVault, UserVault, scope)
	}
}

// supersedeIndex caches, per vault, the memories that supersede
// something. Supersession is rare, so the list is short, but finding it
// means reading every memory: it is rebuilt only after the vault changed.
type supersedeIndex struct {
	mu    sync.Mutex
	lists map[*Vault]*supList
}

// supList is one vault's cached list; dirty means a change came in since
// it was built.
type supList struct {
	dirty bool
	ms    []*Memory
}

// superseding returns the memories of v that list others in supersedes,
// by path, from the cache when there is one.
func (c *SetCache) superseding(v *Vault) []*Memory {
	if c == nil {
		return superseding(v)
	}
	return c.sup.of(v)
}

// of returns the memories of v that list others in supersedes.
func (x *supersedeIndex) of(v *Vault) []*Memory {
	x.mu.Lock()
	l, ok := x.lists[v]
	if !ok {
		if x.lists == nil {
			x.lists = map[*Vault]*supList{}
		}
		l = &supList{dirty: true}
		x.lists[v] = l
		// The cache serves vaults that live as long as the server: the
		// subscription does too.
		v.Subscribe(func(Change) {
			x.mu.Lock()
			l.dirty = true
			x.mu.Unlock()
		})
	}
	if !l.dirty {
		ms := l.ms
		x.mu.Unlock()
		return ms
	}
	l.dirty = false
	x.mu.Unlock()
	// Read outside the lock; a change meanwhile sets dirty again, so the
	// next call reads once more.
	ms := superseding(v)
	x.mu.Lock()
	l.ms = ms
	x.mu.Unlock()
	return ms
}

// superseding lists the memories of v that list others in supersedes.
func superseding(v *Vault) []*Memory {
	var out []*Memory
	for _, m := range v.All() {
		if len(m.Supersedes) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// rankPoolRenew is how many rescorings one pool index serves before it
// is replaced, which bounds the vocabulary it accumulates.
const rankPoolRenew = 5000

// rankPool is a scratch full-text index, reused across recalls because
// building one (its synonym dictionary) costs milliseconds.
//
// Scores from different vaults do not compare: relevance weighs each
// query term by how rare it is in its own vault, and in a user vault of
// a dozen preferences every term is common, so its best match scores a
// fraction of what the same memory would score in the project vault.
// The pool ranks the candidates of every vault again in one shared
// index, so that one corpus weighs the terms for all of them.
type rankPool struct {
	mu   sync.Mutex
	ix   *index.Index
	uses int
}

// rescore replaces the scores of rs (from two or more vaults) by the
// scores they get when searched together for text: the shared index's
// relevance times each memory's own layer, decay and importance weight
// at instant at, times the gains its own vault gave it (links). A
// candidate the pool does not match keeps its score.
func (p *rankPool) rescore(text string, rs []SetResult, at time.Time) []SetResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ix == nil || p.uses >= rankPoolRenew {
		p.ix, p.uses = index.New(), 0
	}
	p.uses++
	for i, r := range rs {
		p.ix.Put(index.DocID(i), indexDoc(r.Memory))
	}
	hits := p.ix.Search(index.Query{Text: text, Limit: len(rs), Weight: func(id index.DocID, rel float64) float64 {
		return rel * Weight(rs[id].Memory, at)
	}})
	for i := range rs {
		p.ix.Delete(index.DocID(i))
	}
	out := make([]SetResult, len(rs))
	copy(out, rs)
	for _, h := range hits {
		r := &out[h.ID]
		// The gains its own vault gave (links) carry over.
		score := h.Score
		for _, a := range r.Adjustments {
			if a.Factor > 0 {
				score *= a.Factor
			}
		}
		r.Adjustments = append(slices.Clip(r.Adjustments), Adjustment{Rule: AdjustCrossVault,
			Note: fmt.Sprintf("scored again among the results of every vault: %.3f → %.3f", r.Score, score)})
		r.Score = score
	}
	return out
}
