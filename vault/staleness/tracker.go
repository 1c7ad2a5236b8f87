package staleness

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
)

// State is how far a memory may have fallen behind its code.
type State string

// The states, from best to worst.
const (
	Fresh         State = "fresh"
	PossiblyStale State = "possibly_stale"
	Stale         State = "stale"
)

func (s State) rank() int {
	switch s {
	case PossiblyStale:
		return 1
	case Stale:
		return 2
	}
	return 0
}

// Staleness is a memory's state and the reason, for people and
// assistants alike.
type Staleness struct {
	State  State  `json:"state"`
	Reason string `json:"reason"`
}

// Item is one memory as the Tracker needs it.
type Item struct {
	ID string
	// File is the memory file's repository-relative path.
	File string
	// Refs are the memory's refs as written.
	Refs []string
}

// refState is what the history says about one ref of one memory since the
// memory's anchor commit.
type refState struct {
	ref Ref
	// count is the number of commits after the anchor that changed it;
	// latest is the newest of them.
	count                int
	latestID, latestSubj string
	lastCounted          string
	decided              bool // the newest event has been seen (backward walks)
	gone                 bool // the newest event deleted or renamed the file
	movedTo              string
	goneID, goneSubj     string
}

func (r *refState) reset() { *r = refState{ref: r.ref} }

// entry is one tracked memory.
type entry struct {
	spec     string // File and Refs, to notice a change
	file     string
	refs     []*refState
	bad      []string // refs that do not parse, with why
	anchored bool
}

// Tracker computes and caches the staleness of many memories. Update
// brings it to the repository's HEAD; States reads it. It is safe for
// concurrent use.
type Tracker struct {
	git Git

	mu      sync.Mutex
	head    string
	entries map[string]*entry
}

// NewTracker returns a Tracker reading git.
func NewTracker(git Git) *Tracker {
	return &Tracker{git: git, entries: make(map[string]*entry)}
}

// errDone stops a backward walk once every memory found its anchor.
var errDone = errors.New("all anchored")

// Update makes the tracked set exactly items and brings every memory's
// history up to HEAD: memories already tracked at an older HEAD read only
// the new commits (when HEAD moved forward along first parents), new or
// changed ones are computed in one walk back to the oldest point they need.
func (t *Tracker) Update(ctx context.Context, items []Item) error {
	head, err := t.git.Head(ctx)
	if err != nil {
		return fmt.Errorf("staleness: head: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	keep := make(map[string]bool, len(items))
	var fresh []*entry
	for _, it := range items {
		keep[it.ID] = true
		spec := it.File + "\x00" + strings.Join(it.Refs, "\x00")
		if e, ok := t.entries[it.ID]; ok && e.spec == spec {
			continue
		}
		e := newEntry(it, spec)
		t.entries[it.ID] = e
		fresh = append(fresh, e)
	}
	for id := range t.entries {
		if !keep[id] {
			delete(t.entries, id)
		}
	}
	if head != t.head && t.head != "" {
		var old []*entry
		for _, e := range t.entries {
			if e.anchored {
				old = append(old, e)
			}
		}
		if err := t.forward(ctx, head, t.head, old); err != nil {
			if !errors.Is(err, ErrNotAncestor) {
				return err
			}
			for _, e := range old { // history was rewritten: start over
				e.anchored = false
				for _, r := range e.refs {
					r.reset()
				}
			}
			fresh = append(fresh, old...)
		}
	}
	t.head = head
	if len(fresh) == 0 || head == "" {
		for _, e := range fresh {
			e.anchored = true
		}
		return nil
	}
	return t.backward(ctx, head, fresh)
}

func newEntry(it Item, spec string) *entry {
	e := &entry{spec: spec, file: it.File}
	for _, raw := range it.Refs {
		r, err := ParseRef(raw)
		if err != nil {
			e.bad = append(e.bad, raw)
			continue
		}
		e.refs = append(e.refs, &refState{ref: r})
	}
	return e
}

// hit is one ref of one memory that a change may concern.
type hit struct {
	e *entry
	r *refState
}

// matcher finds the memories and refs a change concerns.
type matcher struct {
	files   map[string][]*entry // memory file -> memories
	exact   map[string][]hit    // file refs
	folders map[string][]hit    // folder refs, by folder
	globs   map[string][]hit    // glob refs, by fixed prefix
}

func newMatcher(es []*entry) (*matcher, []string) {
	m := &matcher{files: map[string][]*entry{}, exact: map[string][]hit{}, folders: map[string][]hit{}, globs: map[string][]hit{}}
	seen := map[string]bool{}
	var prefixes []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			prefixes = append(prefixes, p)
		}
	}
	for _, e := range es {
		m.files[e.file] = append(m.files[e.file], e)
		add(e.file)
		for _, r := range e.refs {
			h := hit{e, r}
			switch r.ref.Kind {
			case File:
				m.exact[r.ref.Path] = append(m.exact[r.ref.Path], h)
			case Folder:
				m.folders[r.ref.Path] = append(m.folders[r.ref.Path], h)
			case Glob:
				m.globs[r.ref.Prefix()] = append(m.globs[r.ref.Prefix()], h)
			}
			add(r.ref.Prefix())
		}
	}
	slices.Sort(prefixes)
	return m, prefixes
}

// hits calls fn for every ref a file path concerns.
func (m *matcher) hits(p string, fn func(hit)) {
	for _, h := range m.exact[p] {
		fn(h)
	}
	for dir := path.Dir(p); ; dir = path.Dir(dir) {
		if dir == "." {
			dir = ""
		}
		for _, h := range m.folders[dir] {
			fn(h)
		}
		for _, h := range m.globs[dir] {
			if h.r.ref.Matches(p) {
				fn(h)
			}
		}
		if dir == "" {
			return
		}
	}
}

// backward walks from head until every memory of es found the last
// commit that wrote its file, gathering the ref changes made after it.
func (t *Tracker) backward(ctx context.Context, head string, es []*entry) error {
	m, prefixes := newMatcher(es)
	left := len(es)
	err := t.git.Walk(ctx, head, "", prefixes, func(c Commit) error {
		var now []*entry
		for _, ch := range c.Changes {
			for _, e := range m.files[ch.Path] {
				if !e.anchored && !slices.Contains(now, e) {
					now = append(now, e)
				}
			}
		}
		if err := t.apply(ctx, m, c, false, func(e *entry) bool { return !e.anchored && !slices.Contains(now, e) }); err != nil {
			return err
		}
		for _, e := range now {
			e.anchored = true
			left--
		}
		if left == 0 {
			return errDone
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDone) {
		return fmt.Errorf("staleness: walk: %w", err)
	}
	for _, e := range es {
		if !e.anchored { // never committed: measured from this HEAD on
			e.anchored = true
			for _, r := range e.refs {
				r.reset()
			}
		}
	}
	return nil
}

// forward reads the commits from stop (exclusive) to head, oldest first,
// for memories already up to date at stop.
func (t *Tracker) forward(ctx context.Context, head, stop string, es []*entry) error {
	if len(es) == 0 {
		return nil
	}
	m, prefixes := newMatcher(es)
	var cs []Commit
	if err := t.git.Walk(ctx, head, stop, prefixes, func(c Commit) error {
		cs = append(cs, c)
		return nil
	}); err != nil {
		return fmt.Errorf("staleness: walk: %w", err)
	}
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		var now []*entry
		for _, ch := range c.Changes {
			now = append(now, m.files[ch.Path]...)
		}
		for _, e := range now {
			for _, r := range e.refs {
				r.reset()
			}
		}
		if err := t.apply(ctx, m, c, true, func(e *entry) bool { return !slices.Contains(now, e) }); err != nil {
			return err
		}
	}
	return nil
}

// apply records commit c's changes in the refs of the memories open
// accepts. newer says c is newer than everything recorded so far.
func (t *Tracker) apply(ctx context.Context, m *matcher, c Commit, newer bool, open func(*entry) bool) error {
	var err error
	for _, ch := range c.Changes {
		visit := func(p string) {
			m.hits(p, func(h hit) {
				if err != nil || !open(h.e) {
					return
				}
				err = t.record(ctx, h.r, c, ch, newer)
			})
		}
		visit(ch.Path)
		if ch.Kind == Renamed && ch.OldPath != ch.Path {
			visit(ch.OldPath)
		}
	}
	return err
}

// record notes that change ch of commit c concerns ref r.
func (t *Tracker) record(ctx context.Context, r *refState, c Commit, ch Change, newer bool) error {
	gone := r.ref.Kind == File && (ch.Kind == Deleted && ch.Path == r.ref.Path || ch.Kind == Renamed && ch.OldPath == r.ref.Path)
	if r.ref.Symbol != "" && !gone {
		old, err := t.git.Blob(ctx, ch.OldBlob)
		if err != nil {
			return err
		}
		cur, err := t.git.Blob(ctx, ch.NewBlob)
		if err != nil {
			return err
		}
		if ch.Kind == Renamed && ch.Path == r.ref.Path {
			old = nil // the file arrived here
		}
		if !symbolChanged(r.ref.Path, old, cur, r.ref.Symbol) {
			return nil
		}
	}
	if newer || !r.decided {
		r.decided = true
		r.gone = gone
		r.movedTo, r.goneID, r.goneSubj = "", "", ""
		if gone {
			r.goneID, r.goneSubj = c.ID, c.Subject
			if ch.Kind == Renamed {
				r.movedTo = ch.Path
			}
		}
	}
	if r.lastCounted == c.ID {
		return nil
	}
	r.lastCounted = c.ID
	r.count++
	if newer || r.latestID == "" {
		r.latestID, r.latestSubj = c.ID, c.Subject
	}
	return nil
}

// Current reports whether the Tracker was last updated at head and tracks
// every one of items as it is now, so that States answers for them
// without an Update.
func (t *Tracker) Current(head string, items []Item) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if head != t.head {
		return false
	}
	for _, it := range items {
		e, ok := t.entries[it.ID]
		if !ok || e.spec != it.File+"\x00"+strings.Join(it.Refs, "\x00") {
			return false
		}
	}
	return true
}
