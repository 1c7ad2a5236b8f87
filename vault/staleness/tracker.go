package staleness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/vault/fault"
)

// State is how far a memory may have fallen behind its code.
type State string

// The states, from best to worst. Unknown is a memory whose refs say
// nothing either way: one names a path that never existed in the
// repository's history (misspelt, or about another repository), or the
// answer was not ready in time (a recall's deadline).
const (
	Fresh         State = "fresh"
	Unknown       State = "unknown"
	PossiblyStale State = "possibly_stale"
	Stale         State = "stale"
)

func (s State) rank() int {
	switch s {
	case Unknown:
		return 1
	case PossiblyStale:
		return 2
	case Stale:
		return 3
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
	// Since is when the memory was last written or confirmed: the later
	// of its updated_at and verified_at. Commits after it count.
	Since time.Time
	// Refs are the memory's refs as written.
	Refs []string
	// Path is the memory's file, repository-relative; "" when unknown
	// (then freshness goes by time alone).
	Path string
}

func (it Item) spec() string {
	return it.Since.UTC().Format(time.RFC3339Nano) + "\x00" + strings.Join(it.Refs, "\x00")
}

// refState is what the history says about one ref of one memory since the
// memory was last written or confirmed.
type refState struct {
	ref Ref
	// count is the number of commits since then that changed it; latest
	// is the newest of them.
	count                int
	latestID, latestSubj string
	lastCounted          string
	decided              bool // the newest event has been seen (backward walks)
	gone                 bool // the newest event deleted or renamed the file
	movedTo              string
	goneID, goneSubj     string
	// absent: the path did not exist at the head the ref was computed
	// at, nor in any commit of that head's first-parent history; a later
	// commit that touches the path clears it.
	absent bool
}

// entry is one tracked memory.
type entry struct {
	spec  string // Since and Refs, to notice a change
	since time.Time
	path  string // the memory's file (Item.Path)
	refs  []*refState
	bad   []string // refs that do not parse
}

// Tracker computes and caches the staleness of many memories. Update
// brings it to the repository's HEAD; States reads it. It is safe for
// concurrent use. Close stops an Update that Refresh runs.
type Tracker struct {
	git Git

	// sem is the lock of what follows it: a channel rather than a mutex
	// because an Update holds it for a whole walk, and a caller with a
	// deadline (a recall) must be able to stop waiting for it.
	sem     chan struct{}
	head    string
	entries map[string]*entry
	// match and prefixes index every entry's refs for forward walks;
	// nil when the set of entries changed since they were built.
	match    *matcher
	prefixes []string

	mu sync.Mutex
	// running is the Update Refresh started, nil when none runs.
	running *refresh
	// life is the context of Refresh's Updates; Close cancels it (stop)
	// and waits for them (bg).
	life context.Context
	stop context.CancelFunc
	bg   sync.WaitGroup
}

// NewTracker returns a Tracker reading git.
func NewTracker(git Git) *Tracker {
	life, stop := context.WithCancel(context.Background())
	return &Tracker{git: git, sem: make(chan struct{}, 1), entries: make(map[string]*entry), life: life, stop: stop}
}

// lock takes the tracker's lock, or gives up with ctx's error.
func (t *Tracker) lock(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("staleness: %w", err)
	}
	select {
	case t.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("staleness: %w", ctx.Err())
	}
}

func (t *Tracker) unlock() { <-t.sem }

// Close cancels the Update that Refresh runs, if any, and waits for it
// to return. A later Refresh fails with ErrClosed.
func (t *Tracker) Close() {
	t.mu.Lock()
	t.stop()
	t.mu.Unlock()
	t.bg.Wait()
}

var (
	// errDone stops a backward walk at the oldest point any memory needs.
	errDone = errors.New("walked far enough")
	// ErrClosed is Refresh's error after Close.
	ErrClosed = fault.New(fault.Internal, "staleness: tracker closed")
)

// Update makes the tracked set exactly items and brings every memory's
// history up to HEAD: memories already tracked at an older HEAD read only
// the new commits (when HEAD moved forward along first parents); new or
// changed ones are computed in one walk back to the oldest Since among
// them.
func (t *Tracker) Update(ctx context.Context, items []Item) error {
	head, err := t.git.Head(ctx)
	if err != nil {
		return fmt.Errorf("staleness: head: %w", err)
	}
	if err := t.lock(ctx); err != nil {
		return err
	}
	defer t.unlock()
	if err := t.update(ctx, head, items); err != nil {
		// A walk cut short (a recall's deadline, say) leaves some memories
		// half counted: forget everything, the next Update starts over.
		t.head, t.entries, t.match, t.prefixes = "", make(map[string]*entry), nil, nil
		return err
	}
	return nil
}

// update is Update with the lock held, at head.
func (t *Tracker) update(ctx context.Context, head string, items []Item) error {
	keep := make(map[string]bool, len(items))
	var fresh []*entry
	for _, it := range items {
		keep[it.ID] = true
		spec := it.spec()
		if e, ok := t.entries[it.ID]; ok && e.spec == spec {
			e.path = it.Path
			continue
		}
		e := newEntry(it, spec)
		t.entries[it.ID] = e
		fresh = append(fresh, e)
	}
	if len(t.entries) != len(keep) {
		for id := range t.entries {
			if !keep[id] {
				delete(t.entries, id)
			}
		}
		t.match = nil
	}
	if len(fresh) > 0 {
		t.match = nil
	}
	if head != t.head && t.head != "" && len(t.entries) > len(fresh) {
		old := make([]*entry, 0, len(t.entries)-len(fresh))
		isFresh := make(map[*entry]bool, len(fresh))
		for _, e := range fresh {
			isFresh[e] = true
		}
		for _, e := range t.entries {
			if !isFresh[e] {
				old = append(old, e)
			}
		}
		m, prefixes := t.match, t.prefixes
		if m == nil || len(fresh) > 0 {
			m, prefixes = newMatcher(old)
		}
		if err := t.forward(ctx, head, t.head, m, prefixes, old); err != nil {
			if !errors.Is(err, ErrNotAncestor) {
				return err
			}
			for _, e := range old { // history was rewritten: start over
				for _, r := range e.refs {
					*r = refState{ref: r.ref}
				}
			}
			fresh = append(fresh, old...)
		}
	}
	t.head = head
	if len(fresh) > 0 && head != "" {
		if err := t.backward(ctx, head, fresh); err != nil {
			return err
		}
		if err := t.markAbsent(ctx, head, fresh); err != nil {
			return err
		}
		if err := t.settle(ctx, head, fresh); err != nil {
			return err
		}
	}
	if t.match == nil {
		all := make([]*entry, 0, len(t.entries))
		for _, e := range t.entries {
			all = append(all, e)
		}
		t.match, t.prefixes = newMatcher(all)
	}
	return nil
}

func newEntry(it Item, spec string) *entry {
	e := &entry{spec: spec, since: it.Since, path: it.Path}
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

// markAbsent finds, among the refs of es that no commit since their
// memory's point touched, those whose path does not exist at head and
// never did on head's first-parent line: one walk to the root watching
// only those paths, stopped as soon as each has shown up once.
func (t *Tracker) markAbsent(ctx context.Context, head string, es []*entry) error {
	var quiet []*refState
	var paths []string
	for _, e := range es {
		for _, r := range e.refs {
			if r.count == 0 {
				quiet = append(quiet, r)
				paths = append(paths, r.ref.Prefix())
			}
		}
	}
	if len(quiet) == 0 {
		return nil
	}
	exists, err := t.git.Exists(ctx, head, paths)
	if err != nil {
		return fmt.Errorf("staleness: exists: %w", err)
	}
	missing := map[string]bool{}
	for _, p := range paths {
		if p != "" && !exists[p] {
			missing[p] = true
		}
	}
	if len(missing) == 0 {
		return nil
	}
	watch := slices.Sorted(maps.Keys(missing))
	err = t.git.Walk(ctx, head, "", watch, func(c Commit) error {
		for _, ch := range c.Changes {
			for _, p := range []string{ch.Path, ch.OldPath} {
				for p != "" && p != "." {
					delete(missing, p) // the path, or a folder it is in
					p = path.Dir(p)
				}
			}
		}
		if len(missing) == 0 {
			return errDone
		}
		return nil
	})
	if err != nil && !errors.Is(err, errDone) {
		return fmt.Errorf("staleness: history of missing refs: %w", err)
	}
	for _, r := range quiet {
		r.absent = missing[r.ref.Prefix()]
	}
	return nil
}

// hit is one ref of one memory that a change may concern.
type hit struct {
	e *entry
	r *refState
}

// matcher finds the memories and refs a change concerns.
type matcher struct {
	exact   map[string][]hit // file refs
	folders map[string][]hit // folder refs, by folder
	globs   map[string][]hit // glob refs, by fixed prefix
}

func newMatcher(es []*entry) (*matcher, []string) {
	m := &matcher{exact: map[string][]hit{}, folders: map[string][]hit{}, globs: map[string][]hit{}}
	seen := map[string]bool{}
	var prefixes []string
	for _, e := range es {
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
			if p := r.ref.Prefix(); !seen[p] {
				seen[p] = true
				prefixes = append(prefixes, p)
			}
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

// backward walks from head back to the oldest Since of es, gathering the
// ref changes each memory's Since lets count.
func (t *Tracker) backward(ctx context.Context, head string, es []*entry) error {
	m, prefixes := newMatcher(es)
	if len(prefixes) == 0 {
		return nil
	}
	oldest := es[0].since
	for _, e := range es[1:] {
		if e.since.Before(oldest) {
			oldest = e.since
		}
	}
	err := t.git.Walk(ctx, head, "", prefixes, func(c Commit) error {
		if !c.Time.After(oldest) {
			return errDone
		}
		return t.apply(ctx, m, c, false)
	})
	if err != nil && !errors.Is(err, errDone) {
		return fmt.Errorf("staleness: walk: %w", err)
	}
	return t.follow(ctx, head, "", movedRefs(es))
}

// forward reads the commits from stop (exclusive) to head, oldest first,
// for the memories m indexes, already up to date at stop.
//
// The walk also watches the new names of files the refs lost to a
// rename, so a later rename of those is followed from the same commits;
// a ref that loses its file in these commits, or whose file moves on
// again, is followed further (Tracker.follow) only then.
func (t *Tracker) forward(ctx context.Context, head, stop string, m *matcher, prefixes []string, es []*entry) error {
	before := movedRefs(es)
	watch := slices.Clone(prefixes)
	for _, r := range before {
		watch = append(watch, r.movedTo)
	}
	if len(watch) == 0 {
		return nil
	}
	slices.Sort(watch)
	watch = slices.Compact(watch)
	var cs []Commit
	if err := t.git.Walk(ctx, head, stop, watch, func(c Commit) error {
		cs = append(cs, c)
		return nil
	}); err != nil {
		return fmt.Errorf("staleness: walk: %w", err)
	}
	wasMoved := make(map[*refState]string, len(before))
	for _, r := range before {
		wasMoved[r] = r.goneID
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if err := t.apply(ctx, m, cs[i], true); err != nil {
			return err
		}
	}
	// Refs that were moved before these commits and still are: what
	// became of their file here. The rest moved in these commits.
	var kept, again []*refState
	for _, r := range movedRefs(es) {
		if id, ok := wasMoved[r]; ok && id == r.goneID {
			kept = append(kept, r)
		} else {
			again = append(again, r)
		}
	}
	again = append(again, hopIn(cs, kept)...)
	return t.follow(ctx, head, stop, again)
}

// apply records commit c's changes in the refs of the memories whose
// Since is before it. newer says c is newer than everything recorded.
func (t *Tracker) apply(ctx context.Context, m *matcher, c Commit, newer bool) error {
	var err error
	for _, ch := range c.Changes {
		visit := func(p string) {
			m.hits(p, func(h hit) {
				if err != nil || !c.Time.After(h.e.since) {
					return
				}
				err = t.record(ctx, h.r, c, ch, newer)
			})
		}
		visit(ch.Path)
		if ch.Kind == filechange.Renamed && ch.OldPath != ch.Path {
			visit(ch.OldPath)
		}
	}
	return err
}

// record notes that change ch of commit c concerns ref r.
func (t *Tracker) record(ctx context.Context, r *refState, c Commit, ch Change, newer bool) error {
	gone := r.ref.Kind == File && (ch.Kind == filechange.Deleted && ch.Path == r.ref.Path || ch.Kind == filechange.Renamed && ch.OldPath == r.ref.Path)
	if r.ref.Symbol != "" && !gone {
		old, err := t.git.Blob(ctx, ch.OldBlob)
		if err != nil {
			return err
		}
		cur, err := t.git.Blob(ctx, ch.NewBlob)
		if err != nil {
			return err
		}
		if ch.Kind == filechange.Renamed && ch.Path == r.ref.Path {
			old = nil // the file arrived here
		}
		if !symbolChanged(r.ref.Path, old, cur, r.ref.Symbol) {
			return nil
		}
	}
	if r.ref.Kind == Folder {
		r.noteFolderMove(c, ch, newer)
	} else if newer || !r.decided {
		r.decided = true
		r.gone = gone
		r.movedTo, r.goneID, r.goneSubj = "", "", ""
		if gone {
			r.goneID, r.goneSubj = c.ID, c.Subject
			if ch.Kind == filechange.Renamed {
				r.movedTo = ch.Path
			}
		}
	}
	r.absent = false
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

// noteFolderMove remembers, for a folder ref, the newest commit that
// touched the folder (goneID, goneSubj) and where it moved the folder's
// files (movedTo): the destination folder of a file it renamed out with
// the same path below (the smallest, when it moved files to several), ""
// when it moved nothing out. When the folder no longer exists, the
// reason names the destination. The answer does not depend on the order
// of a commit's changes, so a forward update agrees with a backward walk.
func (r *refState) noteFolderMove(c Commit, ch Change, newer bool) {
	dest := ""
	in := r.ref.Path + "/"
	if ch.Kind == filechange.Renamed && strings.HasPrefix(ch.OldPath, in) && !strings.HasPrefix(ch.Path, in) {
		if d, ok := strings.CutSuffix(ch.Path, "/"+strings.TrimPrefix(ch.OldPath, in)); ok {
			dest = d
		}
	}
	switch {
	case r.decided && r.goneID == c.ID: // another change of the deciding commit
		if dest != "" && (r.movedTo == "" || dest < r.movedTo) {
			r.movedTo = dest
		}
	case newer || !r.decided:
		r.decided = true
		r.goneID, r.goneSubj, r.movedTo = c.ID, c.Subject, dest
	}
}

// Current reports whether the Tracker was last updated at head and tracks
// every one of items as it is now, so that States answers for them
// without an Update. While an Update runs it is not: Current never
// waits for one.
func (t *Tracker) Current(head string, items []Item) bool {
	select {
	case t.sem <- struct{}{}:
		defer t.unlock()
	default:
		return false
	}
	if head != t.head {
		return false
	}
	for _, it := range items {
		e, ok := t.entries[it.ID]
		if !ok || e.spec != it.spec() {
			return false
		}
	}
	return true
}

// refresh is one Update running for Refresh.
type refresh struct {
	done chan struct{}
	err  error
}

// Refresh runs Update for items without tying it to ctx: it starts one
// (or joins the one running) in the background and waits for it until
// ctx is done. A caller with a deadline (a recall) then answers with its
// memories' staleness unknown when the walk is long, and the walk still
// finishes (its work is linear in the commits and refs it reads: refs are
// capped, globs match in linear time), so a later call finds the tracker
// current instead of starting over. Close stops it.
func (t *Tracker) Refresh(ctx context.Context, items []Item) error {
	t.mu.Lock()
	r := t.running
	if r == nil {
		if t.life.Err() != nil {
			t.mu.Unlock()
			return ErrClosed
		}
		r = &refresh{done: make(chan struct{})}
		t.running = r
		t.bg.Add(1)
		go func() {
			defer t.bg.Done()
			err := t.Update(t.life, items)
			t.mu.Lock()
			r.err = err
			t.running = nil
			t.mu.Unlock()
			close(r.done)
		}()
	}
	t.mu.Unlock()
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return fmt.Errorf("staleness: %w", ctx.Err())
	}
}
