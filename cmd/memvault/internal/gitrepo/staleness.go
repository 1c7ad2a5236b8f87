package gitrepo

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// Code adapts gitstore to staleness.Git: the history of the repository's
// code, with repository-relative paths.
type Code struct {
	store *gitstore.Store
	// work, when set, keeps the uncommitted state between answers (a
	// server's LiveChecker).
	work *workCache
}

var _ staleness.Git = Code{}

// Code returns the repository's code history for vault/staleness.
func (g *Repo) Code() Code { return Code{store: g.store} }

// Items describes the vault's memories for a staleness.Tracker: when
// each was last written or confirmed (staleness.SinceOf), its refs and
// its file. Memories without refs are left out.
func (g *Repo) Items(ms []*vault.Memory) []staleness.Item {
	var out []staleness.Item
	for _, m := range ms {
		if len(m.Refs) == 0 {
			continue
		}
		out = append(out, staleness.Item{ID: m.ID, Since: staleness.SinceOf(m), Refs: m.Refs, Path: g.repoRel(m.Path)})
	}
	return out
}

// Head implements staleness.Git.
func (c Code) Head(ctx context.Context) (string, error) {
	h, err := c.store.Resolve(ctx, "")
	if errors.Is(err, gitstore.ErrNotFound) {
		return "", nil
	}
	return h, err
}

// Walk implements staleness.Git.
func (c Code) Walk(ctx context.Context, head, stop string, prefixes []string, fn func(staleness.Commit) error) error {
	err := c.store.WalkPathChanges(ctx, head, stop, prefixes, func(pc gitstore.PathCommit) error {
		sc := staleness.Commit{ID: pc.Hash, Subject: pc.Subject, Time: pc.Time, Changes: make([]staleness.Change, len(pc.Changes))}
		for i, ch := range pc.Changes {
			sc.Changes[i] = changeOf(ch)
		}
		return fn(sc)
	})
	if errors.Is(err, gitstore.ErrNotAncestor) {
		return staleness.ErrNotAncestor
	}
	return err
}

func changeOf(ch gitstore.PathChange) staleness.Change {
	return staleness.Change{Kind: ch.Kind, Path: ch.Path, OldPath: ch.OldPath, OldBlob: ch.OldBlob, NewBlob: ch.NewBlob}
}

// Uncommitted implements staleness.Git.
func (c Code) Uncommitted(ctx context.Context, prefixes []string) ([]staleness.Change, error) {
	var chs []gitstore.PathChange
	var err error
	if c.work != nil {
		chs, err = c.work.uncommitted(ctx, prefixes)
	} else {
		chs, err = c.store.Uncommitted(ctx, prefixes)
	}
	if err != nil {
		return nil, err
	}
	out := make([]staleness.Change, len(chs))
	for i, ch := range chs {
		out[i] = changeOf(ch)
	}
	return out, nil
}

// Exists implements staleness.Git.
func (c Code) Exists(ctx context.Context, rev string, paths []string) (map[string]bool, error) {
	if c.work != nil {
		return c.work.exists(ctx, rev, paths)
	}
	return c.store.Exists(ctx, rev, paths)
}

// Blob implements staleness.Git.
func (c Code) Blob(ctx context.Context, id string) ([]byte, error) { return c.store.ReadBlob(ctx, id) }

// WorkFile implements staleness.Git.
func (c Code) WorkFile(ctx context.Context, path string) ([]byte, error) {
	return c.store.ReadWorkFile(ctx, path)
}

// Checker keeps a staleness.Tracker over one vault's repository, for
// both doors: a server keeps one for its life, a CLI command makes one.
// It starts from the tracker saved in the repository's git folder by the
// last process, and saves it after its first update, so only the first
// command in a repository walks the whole history.
type Checker struct {
	repo    *Repo
	tracker *staleness.Tracker
	saved   atomic.Bool // the tracker was saved by this Checker
	work    *workCache  // nil for a one-shot Checker
	memo    memo        // a LiveChecker's answers (Check)
	// asked is set once an answer was asked for memories with refs: from
	// then on Prepare begins a barrier ahead of each answer; a vault
	// without refs never pays for one.
	asked atomic.Bool
}

// Checker returns a new Checker over the vault's repository, loading the
// saved tracker when there is one (a damaged or older one is ignored).
func (g *Repo) Checker() *Checker { return g.checker(nil) }

// LiveChecker is Checker for a process that answers many questions (a
// server): it also keeps the uncommitted state of the referenced code
// between answers, read again only where a file watcher saw a change
// (workCache). Close stops the watcher. When the system cannot watch, it
// is a plain Checker.
func (g *Repo) LiveChecker() *Checker {
	w, err := newWorkCache(g.store)
	if err != nil {
		return g.checker(nil)
	}
	return g.checker(w)
}

func (g *Repo) checker(w *workCache) *Checker {
	c := &Checker{repo: g, tracker: staleness.NewTracker(Code{store: g.store, work: w}), work: w}
	if data, err := os.ReadFile(c.cachePath()); err == nil {
		_ = c.tracker.Load(data) // on error the tracker stays empty: computed afresh
	}
	return c
}

// Close stops the tracker's background update, if one runs, and a
// LiveChecker's watcher.
func (c *Checker) Close() error {
	c.tracker.Close()
	if c.work == nil {
		return nil
	}
	return c.work.close()
}

// Repo is the repository the Checker reads.
func (c *Checker) Repo() *Repo { return c.repo }

// cachePath is where the vault's tracker is saved: in the git folder, one
// file per vault folder of the repository.
func (c *Checker) cachePath() string {
	sum := sha256.Sum256([]byte(c.repo.prefix))
	return filepath.Join(c.repo.store.CommonDir(), "memvault", fmt.Sprintf("staleness-%x.json", sum[:6]))
}

// save writes the tracker atomically (temporary file, rename); a failure
// (or ctx ending while another update holds the tracker) costs the next
// process a longer walk, nothing more.
func (c *Checker) save(ctx context.Context) {
	data, err := c.tracker.Save(ctx)
	if err != nil {
		return
	}
	p := c.cachePath()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".staleness-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), p) != nil {
		os.Remove(f.Name())
	}
}

// Check returns the staleness of the memories ms that have refs. When the
// tracker is not current for them (HEAD moved, or a memory is new or its
// refs changed) it is first brought up to date with every memory all
// returns, so that one walk serves them all and later calls read the
// cache; all is called only then. The walk is not cut short by ctx
// (Tracker.Refresh): when ctx ends first, Check returns its error and the
// walk goes on for the next call, until Close.
func (c *Checker) Check(ctx context.Context, all func() []*vault.Memory, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	return c.CheckAt(ctx, "", all, ms)
}

// CheckAt is Check with HEAD already read by the caller for this answer
// (a server reads it before every call); "" reads it.
func (c *Checker) CheckAt(ctx context.Context, head string, all func() []*vault.Memory, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	items := c.repo.Items(ms)
	if len(items) == 0 {
		return nil, nil
	}
	c.asked.Store(true)
	if head == "" {
		var err error
		if head, err = c.repo.Code().Head(ctx); err != nil {
			return nil, err
		}
	}
	if err := c.bringUp(ctx, head, items, all); err != nil {
		return nil, err
	}
	var a *answer
	if c.work != nil {
		a = c.work.sync(ctx, head)
	}
	if a == nil {
		return c.tracker.States(ctx, itemIDs(items))
	}
	if out, ok := c.memo.get(a, items); ok {
		return out, nil
	}
	out, err := c.tracker.States(context.WithValue(ctx, answerKey{}, a), itemIDs(items))
	// Kept only when everything it was computed from moves the
	// generation or HEAD when it changes: the tracker was still at head
	// (no other answer moved it meanwhile) and every path was watched.
	if err == nil && !a.unwatched.Load() && c.tracker.Current(head, items) {
		c.memo.put(a, items, out)
	}
	return out, err
}

// NeverExisted brings the tracker up to date with every memory all
// returns and lists, per memory id, the refs naming a path that never
// existed in the repository's history (staleness.Tracker.NeverExisted):
// what lint warns about.
func (c *Checker) NeverExisted(ctx context.Context, all func() []*vault.Memory) (map[string][]string, error) {
	items := c.repo.Items(all())
	if len(items) == 0 {
		return nil, nil
	}
	head, err := c.repo.Code().Head(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.bringUp(ctx, head, items, all); err != nil {
		return nil, err
	}
	return c.tracker.NeverExisted(ctx, itemIDs(items))
}

// bringUp makes the tracker current at head for items, when it is not,
// with every memory all returns (and items), so that one walk serves
// them all; all is called only then. The first update of this Checker
// is saved for the next process.
func (c *Checker) bringUp(ctx context.Context, head string, items []staleness.Item, all func() []*vault.Memory) error {
	if c.tracker.Current(head, items) {
		return nil
	}
	every := c.repo.Items(all())
	seen := make(map[string]bool, len(every))
	for _, it := range every {
		seen[it.ID] = true
	}
	for _, it := range items {
		if !seen[it.ID] {
			every = append(every, it)
		}
	}
	if err := c.tracker.Refresh(ctx, every); err != nil {
		return err
	}
	if c.saved.CompareAndSwap(false, true) {
		c.save(ctx)
	}
	return nil
}

// Prepare returns ctx carrying the watcher's barrier of a LiveChecker's
// next answer (CheckAt with that context), begun now: a caller that
// searches before it asks for the staleness of the results calls it
// first, so the barrier's round trip overlaps the search. The answer
// then sees every change made before Prepare, which is still before
// the caller's question. A one-shot Checker, or one never asked about
// memories with refs, returns ctx.
func (c *Checker) Prepare(ctx context.Context) context.Context {
	if c.work == nil || !c.asked.Load() {
		return ctx
	}
	return context.WithValue(ctx, barrierKey{c.work}, c.work.changes.Begin())
}

func itemIDs(items []staleness.Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

// memo keeps a LiveChecker's answers per memory between calls, for one
// HEAD and one generation of the work cache's watcher: a memory's
// staleness depends only on the history up to HEAD, the memory's refs and
// the time it was last written or confirmed (its key), and the
// uncommitted state of the files its refs name, which the generation
// covers (Check keeps an answer only when every path was watched). Any
// change under a watched folder, or a new HEAD, drops it all.
type memo struct {
	mu     sync.Mutex
	gen    uint64
	head   string
	states map[string]memoEntry
}

type memoEntry struct {
	key   string
	state staleness.Staleness
}

// memoKey is what a memory's staleness depends on besides HEAD and the
// work tree.
func memoKey(it staleness.Item) string {
	return it.Since.UTC().Format(time.RFC3339Nano) + "\x00" + strings.Join(it.Refs, "\x00")
}

// get returns the states of every one of items as of a, when all are
// kept.
func (m *memo) get(a *answer, items []staleness.Item) (map[string]staleness.Staleness, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.states == nil || m.gen != a.gen || m.head != a.head {
		return nil, false
	}
	out := make(map[string]staleness.Staleness, len(items))
	for _, it := range items {
		e, ok := m.states[it.ID]
		if !ok || e.key != memoKey(it) {
			return nil, false
		}
		out[it.ID] = e.state
	}
	return out, true
}

// put keeps states, computed as of a, for items.
func (m *memo) put(a *answer, items []staleness.Item, states map[string]staleness.Staleness) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.states == nil || m.gen != a.gen || m.head != a.head {
		m.gen, m.head, m.states = a.gen, a.head, map[string]memoEntry{}
	}
	for _, it := range items {
		if st, ok := states[it.ID]; ok {
			m.states[it.ID] = memoEntry{key: memoKey(it), state: st}
		}
	}
}

// OpenChecker implements staleness.OpenChecker: a one-shot Checker over
// the repository around v, which Close closes with the repository.
func OpenChecker(ctx context.Context, v *vault.Vault) (staleness.Checker, error) {
	g, err := Open(ctx, v.Dir())
	if err != nil {
		return nil, err
	}
	return oneShot{g.Checker()}, nil
}

// oneShot is a Checker that owns its repository.
type oneShot struct{ *Checker }

// Close stops the tracker (a walk ctx ended early) before the store
// closes.
func (c oneShot) Close() error {
	err := c.Checker.Close()
	c.repo.Close()
	return err
}

// ReadFile implements staleness.Files: a file's content at rev ("" is
// HEAD).
func (c Code) ReadFile(ctx context.Context, rev, path string) ([]byte, error) {
	return c.store.ReadFile(ctx, rev, path)
}

// Proposer proposes refs for new memories from the repository at HEAD
// (vault.RefProposer).
type Proposer struct {
	Store *gitstore.Store
}

var _ vault.RefProposer = Proposer{}

// ProposeRefs implements vault.RefProposer with staleness.Propose.
func (p Proposer) ProposeRefs(ctx context.Context, text string, have []string) ([]string, error) {
	if p.Store == nil {
		return nil, nil
	}
	return staleness.Propose(ctx, Code{store: p.Store}, text, have)
}
