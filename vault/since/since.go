package since

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/staleness"
)

// Git is what the package reads of the repository holding a vault.
type Git interface {
	// Commits lists the commits reachable from head and not from base
	// ("" excludes nothing), newest first, that changed a file of the
	// vault: a commit against its parent, a merge with only the files
	// that differ from every parent. At most limit are returned (0: no
	// limit); more says the range holds others.
	Commits(ctx context.Context, base, head string, limit int) (cs []Commit, more bool, err error)
}

// Commit is one commit of a range.
type Commit struct {
	Hash    string
	Author  string // name
	Email   string
	When    time.Time // author time
	Message string
	Merge   bool
	// Files are the vault's files the commit changed (vault-relative
	// paths); Old is nil when it added the file, New when it deleted it.
	Files []File
}

// File is one file a commit changed, its content before and after.
type File struct {
	Path     string
	Old, New []byte
}

// Kinds of Change, in report order.
const (
	Added      = "added"
	Changed    = "changed"
	Superseded = "superseded"
	Archived   = "archived"
	Deleted    = "deleted"
)

// kindOrder orders the kinds as reports list them.
var kindOrder = []string{Added, Changed, Superseded, Archived, Deleted}

// Change is one memory that differs between the point and HEAD.
type Change struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Title string `json:"title"`
	Layer string `json:"layer"`
	// Supersedes lists the memories an added or changed one newly
	// replaces; SupersededBy what replaced a superseded one, when that
	// happened in the range too.
	Supersedes   []vault.Ref `json:"supersedes,omitempty"`
	SupersededBy []vault.Ref `json:"superseded_by,omitempty"`
	// By lists the commits that changed it, newest first: who and why.
	By []Author `json:"by"`
}

// Author is one commit that changed a memory: who committed it and why.
type Author struct {
	Commit  string    `json:"commit"`
	Name    string    `json:"author"`
	Email   string    `json:"email,omitempty"`
	When    time.Time `json:"date"`
	Client  string    `json:"client,omitempty"`
	Subject string    `json:"subject"`
	Reason  string    `json:"reason,omitempty"`
}

// Changes reads the commits reachable from head and not from base and
// tells, per memory, how it differs (the memory before the oldest of
// them against the memory after the newest: a memory added and deleted
// again in the range is left out) and which commits changed it. A merge
// commit is named for a memory only when no other commit of the range
// changed it, that is when the merge itself decided its content. At most
// limit commits are read; more says there were others (Git.Commits).
func Changes(ctx context.Context, git Git, base, head string, limit int) (changes []Change, commits int, more bool, err error) {
	cs, more, err := git.Commits(ctx, base, head, limit)
	if err != nil {
		return nil, 0, false, err
	}
	type track struct {
		before, after *vault.Memory
		seen          bool // the oldest commit so far has set before
		by, merges    []Author
		confirms      []Author // commits that only confirmed it
		newest        int      // index in cs of the newest commit that changed it
	}
	byID := map[string]*track{}
	var order []string
	// Oldest first, so before is the memory ahead of the range and after
	// the memory at its end.
	for ci, c := range slices.Backward(cs) {
		// Each memory's own message: a squash merge holds one per memory.
		author := func(id string) Author {
			msg := commitmsg.ParseFor(c.Message, id)
			return Author{Commit: c.Hash, Name: c.Author, Email: c.Email, When: c.When, Client: msg.Get(commitmsg.KeyClient),
				Subject: msg.Subject, Reason: msg.Body}
		}
		// A move between layer folders is a delete and an add of one id
		// in one commit: gather both sides by id first.
		type sides struct{ old, new *vault.Memory }
		inCommit := map[string]*sides{}
		var ids []string
		for _, f := range c.Files {
			if !vault.IsMemoryPath(f.Path) {
				continue
			}
			var old, nw *vault.Memory
			if f.Old != nil {
				old, _ = vault.ParseMemory(f.Path, f.Old, time.Time{})
			}
			if f.New != nil {
				nw, _ = vault.ParseMemory(f.Path, f.New, time.Time{})
			}
			id := memID(nw, old)
			if id == "" {
				continue
			}
			s := inCommit[id]
			if s == nil {
				s = &sides{}
				inCommit[id] = s
				ids = append(ids, id)
			}
			if old != nil && s.old == nil {
				s.old = old
			}
			if nw != nil {
				s.new = nw
			}
		}
		for _, id := range ids {
			s := inCommit[id]
			t := byID[id]
			if t == nil {
				t = &track{}
				byID[id] = t
				order = append(order, id)
			}
			if !t.seen {
				t.before, t.seen = s.old, true
			}
			t.after, t.newest = s.new, ci
			switch {
			case c.Merge:
				t.merges = append(t.merges, author(id))
			case vault.OnlyConfirmed(s.old, s.new):
				t.confirms = append(t.confirms, author(id))
			default:
				t.by = append(t.by, author(id))
			}
		}
	}
	var newest []int
	for _, id := range order {
		t := byID[id]
		ch, ok := change(t.before, t.after)
		if !ok {
			continue
		}
		// Who changed it and why, newest first: a confirm says it still
		// holds, not why it changed, so it is told only when nothing
		// else changed the memory; an added memory's creator comes first.
		by := t.by
		if len(by) == 0 {
			by = t.merges
		}
		if len(by) == 0 {
			by = t.confirms
		}
		slices.Reverse(by)
		if ch.Kind == Added && len(by) > 1 && t.before == nil && len(t.by) > 0 {
			by = append([]Author{by[len(by)-1]}, by[:len(by)-1]...)
		}
		ch.By = by
		changes = append(changes, ch)
		newest = append(newest, t.newest)
	}
	nameSupersessions(changes)
	// By kind, then the most recently changed first (the order git
	// listed the commits in: commit times, not author times).
	idx := make([]int, len(changes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(slices.Index(kindOrder, changes[a].Kind), slices.Index(kindOrder, changes[b].Kind)),
			cmp.Compare(newest[a], newest[b]), cmp.Compare(changes[a].ID, changes[b].ID))
	})
	sorted := make([]Change, len(changes))
	for i, k := range idx {
		sorted[i] = changes[k]
	}
	changes = sorted
	return changes, len(cs), more, nil
}

// memID is the id of the first of ms that is a memory, "" for none.
func memID(ms ...*vault.Memory) string {
	for _, m := range ms {
		if m != nil && m.ID != "" {
			return m.ID
		}
	}
	return ""
}

// change says how a memory went from before to after (nil: absent); ok
// is false when neither is there.
func change(before, after *vault.Memory) (Change, bool) {
	cur := after
	if cur == nil {
		cur = before
	}
	if cur == nil {
		return Change{}, false
	}
	c := Change{ID: cur.ID, Title: cur.Title, Layer: cur.Layer.String()}
	switch {
	case before == nil:
		// A memory that arrived already superseded or archived is told
		// as such: what the reader needs to know is that it no longer
		// holds.
		switch after.Status {
		case vault.StatusSuperseded:
			c.Kind = Superseded
		case vault.StatusArchived:
			c.Kind = Archived
		default:
			c.Kind = Added
		}
		c.Supersedes = vault.NewSupersedes(nil, after)
	case after == nil:
		c.Kind = Deleted
	default:
		c.Supersedes = vault.NewSupersedes(before, after)
		c.Kind = vault.Transition(before, after)
	}
	return c, true
}

// nameSupersessions fills the titles of what changes supersede, when
// they are in the range, and the other end of each supersession.
func nameSupersessions(changes []Change) {
	at := make(map[string]int, len(changes))
	for i, c := range changes {
		at[c.ID] = i
	}
	for i := range changes {
		for j, r := range changes[i].Supersedes {
			k, ok := at[r.ID]
			if !ok {
				continue
			}
			changes[i].Supersedes[j].Title = changes[k].Title
			if changes[k].Kind == Superseded {
				changes[k].SupersededBy = append(changes[k].SupersededBy, vault.Ref{ID: changes[i].ID, Title: changes[i].Title})
			}
		}
	}
}

// Point is where a client last looked at a vault: the start of its last
// session.
type Point struct {
	// Head is the HEAD commit then; "" when the repository had none.
	Head string `json:"head"`
	// Seen is when.
	Seen time.Time `json:"seen"`
	// NotFresh holds the memories that were stale or possibly stale
	// then, with their state, so that the next session names only those
	// that went stale since.
	NotFresh map[string]staleness.State `json:"not_fresh,omitempty"`
}

// NotFresh keeps the states of states that are not fresh, for a Point.
func NotFresh(states map[string]staleness.Staleness) map[string]staleness.State {
	out := map[string]staleness.State{}
	for id, st := range states {
		if st.State == staleness.Stale || st.State == staleness.PossiblyStale {
			out[id] = st.State
		}
	}
	return out
}

// WentStale is a memory whose code moved on since the point.
type WentStale struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	staleness.Staleness
	// Was is its state at the point ("fresh" when it was not recorded
	// as anything else).
	Was staleness.State `json:"was"`
}

// Worse lists the memories whose state is worse now than at the point
// (fresh to possibly stale or stale, possibly stale to stale), stale
// first, then by title. title names a memory by id ("" leaves it out:
// a memory no longer in the vault).
func Worse(was map[string]staleness.State, now map[string]staleness.Staleness, title func(id string) string) []WentStale {
	var out []WentStale
	for id, st := range now {
		before, ok := was[id]
		if !ok {
			before = staleness.Fresh
		}
		if rank(st.State) <= rank(before) {
			continue
		}
		t := title(id)
		if t == "" {
			continue
		}
		out = append(out, WentStale{ID: id, Title: t, Staleness: st, Was: before})
	}
	slices.SortFunc(out, func(a, b WentStale) int {
		return cmp.Or(cmp.Compare(rank(b.State), rank(a.State)), cmp.Compare(a.Title, b.Title), cmp.Compare(a.ID, b.ID))
	})
	return out
}

func rank(s staleness.State) int {
	switch s {
	case staleness.PossiblyStale:
		return 1
	case staleness.Stale:
		return 2
	}
	return 0
}

// Report is what changed in a vault since a point.
type Report struct {
	// Base is the commit compared from ("" when the range starts at the
	// first commit); Head the commit compared to.
	Base string `json:"base"`
	Head string `json:"head"`
	// Since is when the point was recorded, zero when the caller named a
	// commit or a date.
	Since time.Time `json:"since,omitzero"`
	// First says no earlier session was recorded: nothing to compare
	// with, and nothing is listed.
	First bool `json:"first,omitempty"`
	// Commits counts the commits read that changed the vault; More says
	// the range holds more than were read.
	Commits int  `json:"commits"`
	More    bool `json:"more,omitempty"`
	// Changes are the memories that differ, by kind; Stale the memories
	// that went stale since the point (a point from an earlier session
	// only: a commit or a date says nothing about staleness then).
	Changes []Change    `json:"changes"`
	Stale   []WentStale `json:"stale"`
}

// Empty reports whether there is nothing to tell.
func (r Report) Empty() bool { return len(r.Changes) == 0 && len(r.Stale) == 0 }
