// Package vault is memvault's domain: the memory model, layers and their
// lifetimes, loading a vault folder into an in-memory index, time-aware
// recall, and the write sequence (validate, atomic write, commit, index);
// the bytes on disk (checked folder handles, atomic replacement, the
// write journal and its redo) are vault/diskwrite's, and loading files
// and the caches is vault/load's.
//
// A Set holds the rules that span vaults: the project vault and the user
// vault recalled and ranked together, supersession and rival rules across
// them, where a new memory goes and what Remember refuses (a near-identical
// title). Both the CLI and the MCP server call it, so one operation gives
// one result through either; the session-start digest (vault/digest)
// reads the Set through its recall.
//
// The git workflows live in packages of their own, each declaring the
// small interface it reaches git through: vault/doctor (what can stop or
// spoil a vault's writes, and the safe repairs), vault/resolve (unmerged
// memory files), vault/mergesetup (the merge driver's set-up in a clone)
// and vault/precommit (the pre-commit rules).
//
// It imports the parser, its own subpackages and the standard library
// only. Git, file watching and MCP are adapters that plug in through the
// small interfaces declared here (Committer, Tracker) and in the
// subpackages (history.Repo, doctor.Repo, resolve.MergeIndex ...), and
// are wired together in cmd/memvault. Commit messages are written and
// read through vault/commitmsg.
package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/load"
	"github.com/memvault/memvault/vault/store"
)

// Committer records changed vault files in version control. gitstore.Store
// satisfies it through a small adapter in cmd/memvault.
type Committer interface {
	// Lock takes the cross-process write lock; the vault holds it around
	// its whole write sequence so concurrent processes never interleave.
	Lock(ctx context.Context) (unlock func(), err error)
	// Commit records the current content of the given absolute paths (a
	// missing file is a deletion) as one commit and returns its hash.
	Commit(ctx context.Context, paths []string, message string) (string, error)
}

// Options configures a Vault. The zero value is usable.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// FSNow is the file system's clock, which the caches compare change
	// times with: a file or folder changed less than store.RacyWindow
	// before it is read again rather than trusted from a cache, as it may
	// change again within its time stamp's granularity. nil means
	// time.Now. It is not Now: memory dates may run on another clock (a
	// replay, a test's fixed instant) while the files' change times are
	// the file system's.
	FSNow func() time.Time
	// Committer commits every write; nil writes files only.
	Committer Committer
	// Client names the writer in commit trailers and source.client
	// ("cli", "claude-code", ...); empty means "cli".
	Client string
	// MaxFileSize is the largest file the loader reads; 0 means
	// parser.MaxFileSize.
	MaxFileSize int64
	// Tracker, when set, settles which of two files carrying one id is
	// the memory: a tracked file wins over an untracked one. Nil leaves
	// it to path order. Writes to an id two files carry are refused
	// either way.
	Tracker Tracker
	// Committed reads a file's last committed version, served in place of
	// a file that holds git conflict markers; nil leaves such a file out
	// (it is reported either way).
	Committed CommittedReader
	// LastGood finds the last committed version of a file that parses,
	// served, labelled Damaged, in place of a committed file that no
	// longer does; nil serves nothing for such a file (it is reported
	// either way).
	LastGood LastGoodReader
	// Operations tells whether git is in the middle of a merge, rebase or
	// the like; a write that would commit is then refused with an
	// OperationError before any file changes. Nil never refuses (the
	// committer may still fail).
	Operations OperationReader
	// Proposer, when set, proposes refs for a new memory from what its
	// text mentions (WriteResult.ProposedRefs). Nil proposes none.
	Proposer RefProposer
	// HeadersOnly opens the vault for adding memories only: it loads each
	// memory's header (id, path, title, layer, dates, status, version,
	// supersedes) and neither bodies nor the full-text index, so recall,
	// listing and reading see headers only. Writes work as usual; the
	// same-title refusal compares the new title with every memory of its
	// layer instead of with the best recall hits.
	HeadersOnly bool
	// HeaderCache is a file where a HeadersOnly vault keeps the headers
	// between processes, trusted for a file only while its stat data is
	// unchanged; "" keeps none. See load.HeaderCacheName.
	HeaderCache string
	// IndexCache makes Open take what it can from the vault's index cache
	// (CacheDirName in the vault folder, git-ignored) and rewrite the
	// cache when anything was not in it; see vault/load. It is ignored with
	// HeadersOnly, and where the running program's file cannot be named:
	// a cache written by another build is never used.
	IndexCache bool
	// CopyIndexCache, for a process that runs long (a server), maps a
	// private copy of the index cache rather than the file itself, so
	// that another program truncating the file cannot kill the process
	// (see store.MapCacheFile). A command that exits soon maps the file: the
	// copy would cost every run a pass over the cache.
	CopyIndexCache bool
	// OnSlowLoad, when set, is called once by a load with the index cache
	// before it does what a load without one does: read every file, or
	// build or patch the index. A command that turned its collector off
	// for a warm load (memvault recall) turns it back on there, so that
	// such loads peak as they did.
	OnSlowLoad func()
}

// CommittedReader reads the last committed version of a vault file.
// cmd/memvault implements it over the repository's HEAD.
type CommittedReader interface {
	// ReadCommitted returns the vault-relative file rel as committed at
	// HEAD, or an error when HEAD has no such file.
	ReadCommitted(ctx context.Context, rel string) ([]byte, error)
}

// RefProposer proposes the refs (code paths and symbols, see
// vault/staleness) a memory's text mentions, leaving out those in have.
type RefProposer interface {
	ProposeRefs(ctx context.Context, text string, have []string) ([]string, error)
}

// Vault is a folder of memory files with its in-memory index. All methods
// are safe for concurrent use.
type Vault struct {
	dir         string
	now         func() time.Time
	client      string
	maxFileSize int64
	readOnly    bool // a snapshot of a past revision
	headersOnly bool // Options.HeadersOnly
	ports       ports
	// load is what loading keeps between loads: the caches' settings and
	// what the last load found (see loader).
	load loader
	// disk opens the vault folder for file operations (see
	// folderOpener).
	disk folderOpener

	writeMu sync.Mutex // serialises the write sequence in this process

	mu sync.RWMutex
	memState
	loadedAt time.Time
	// changedAt is when an update last changed the index (see publish).
	changedAt time.Time

	subscriptions
}

// ports are the outside systems a vault is given (see Options).
type ports struct {
	committer  Committer
	tracker    Tracker
	proposer   RefProposer
	committed  CommittedReader
	lastGood   LastGoodReader
	operations OperationReader
}

// folderOpener opens a vault folder for file operations through checked
// folder handles (diskwrite.Root), which refuse a symbolic link planted
// after a write's path checks. Every file operation of a write, a
// recovery and a commit check goes through one; checkedFolders, over
// diskwrite.Open, is the one in use. The race tests wrap it: opening is
// the first step after the checks, where a race would plant a link.
type folderOpener interface {
	OpenFolder(dir string, create bool) (*diskwrite.Root, error)
}

// checkedFolders is the folderOpener of every vault: diskwrite.Open.
type checkedFolders struct{}

func (checkedFolders) OpenFolder(dir string, create bool) (*diskwrite.Root, error) {
	return diskwrite.Open(dir, create)
}

// memState is the vault's memories and what is derived from them, guarded
// by Vault.mu.
type memState struct {
	ix       *index.Index
	entries  []*Memory     // by index.DocID; nil where freed
	free     []index.DocID // freed DocIDs for reuse
	byID     map[string]index.DocID
	byPath   map[string]index.DocID
	diags    map[string][]*Diagnostic // by vault-relative path
	succ     map[string][]string      // id -> ids of memories superseding it
	replaced []bool                   // by DocID: some memory lists it in supersedes
	cycles   []*Diagnostic            // rings of supersession, rebuilt with succ
	// names maps wiki-link names to entries (see nameKeys). Only Related
	// reads it, so it is built on the first Related call, not at load:
	// four map entries per memory were a noticeable part of a load's work
	// (docs/performance.md, "Load and recall (2026-11-30, ba83217)").
	// nil means not built; writers keep a built table up to date.
	// namesMu lets Related, which holds only mu's read lock, build it.
	names   map[string]index.DocID
	namesMu sync.Mutex
}

// subscriptions are the callbacks Subscribe registered.
type subscriptions struct {
	subMu   sync.Mutex
	subs    map[int]func(Change)
	nextSub int
}

// loader is what loading keeps between loads.
type loader struct {
	// cfg is how the vault loads: the caches' settings (see load.Config).
	cfg loadConfig
	// titleSigs are a headers-only vault's title signatures by DocID, as
	// loaded (see sameTitleLocked).
	titleSigs []titledSig
	// noTempFiles is set when a headers-only load's scan passed no temp
	// file: Recover then need not list the folders again for them.
	noTempFiles atomic.Bool
	// stats is what the last load with a cache did (tests and benchmarks
	// read it); guarded by Vault.mu.
	stats load.Stats
}

// Open loads the vault rooted at dir. A missing folder is an empty vault:
// reads return nothing and the first write creates it. Files that cannot be
// read are reported by Diagnostics and left untouched.
func Open(ctx context.Context, dir string, opts Options) (*Vault, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("vault dir %s: %w", dir, err)
	}
	v := &Vault{
		dir:         abs,
		now:         opts.Now,
		client:      cmp.Or(SanitizeClient(opts.Client), "cli"),
		maxFileSize: cmp.Or(opts.MaxFileSize, parser.MaxFileSize),
		headersOnly: opts.HeadersOnly,
		ports: ports{committer: opts.Committer, tracker: opts.Tracker, proposer: opts.Proposer,
			committed: opts.Committed, lastGood: opts.LastGood, operations: opts.Operations},
		disk: checkedFolders{},
	}
	if v.now == nil {
		v.now = time.Now
	}
	v.load.cfg = v.loadConfig()
	v.load.cfg.HeaderCache, v.load.cfg.CopyCache, v.load.cfg.FSNow = opts.HeaderCache, opts.CopyIndexCache, opts.FSNow
	if opts.HeadersOnly {
		v.load.cfg.Mode = load.Headers
	} else if opts.IndexCache {
		v.load.cfg.IndexCache, v.load.cfg.OnSlow = store.ExecutableStamp(), opts.OnSlowLoad
	}
	// Only the first load uses the index cache: a reload's result also
	// depends on the state it replaces (a file that no longer parses
	// keeps its last good version), which the cache does not record.
	if err := v.loadAll(ctx, &v.load.cfg); err != nil {
		return nil, err
	}
	return v, nil
}

// Dir is the vault's absolute root folder.
func (v *Vault) Dir() string { return v.dir }

// Reload reads the whole vault again and swaps the index in one step, so
// readers see either the old or the new state, never a mix.
func (v *Vault) Reload(ctx context.Context) error {
	c := v.loadConfig()
	c.IndexCache = ""
	return v.loadAll(ctx, &c)
}

// Refresh re-reads the given vault-relative files (changed, created or
// deleted on disk) and updates just their entries. A file that no longer
// parses keeps its last good version, marked stale, with its diagnostic.
func (v *Vault) Refresh(ctx context.Context, rels []string) error {
	_, err := v.refresh(ctx, rels)
	return err
}

// refresh re-reads rels and applies them as one batch, returning the ids
// whose indexed state changed. Entries whose file is gone or now carries
// another id are dropped before anything is added, so a file moved within
// the batch (say short-term/ to project/) does not collide with its own
// old entry as a duplicate id.
func (v *Vault) refresh(ctx context.Context, rels []string) ([]string, error) {
	var keep []string
	for _, rel := range rels {
		if IsMemoryPath(rel) {
			keep = append(keep, rel)
		}
	}
	lc := v.loadConfig()
	files, err := load.ReadAll(ctx, &lc, keep)
	if err != nil {
		return nil, err
	}
	res := make([]loaded, len(files))
	for i := range files {
		res[i] = loadFile(&files[i])
	}
	var changed []string
	v.mu.Lock()
	// Which of the ids this batch may touch the index holds before it,
	// so the change can say what was added and what removed.
	before := map[string]bool{}
	// The successor map only changes if a memory of the batch, before or
	// after, supersedes something or is superseded: rebuilding it scans
	// every entry, a part of every write in a large vault (docs/git.md,
	// "memvault add, first round (2026-12-01, 6f64a17)").
	succChanges := false
	for _, r := range res {
		if d, had := v.byPath[r.rel]; had {
			before[v.entries[d].ID] = true
			succChanges = succChanges || v.touchesSuccLocked(v.entries[d])
		}
		if r.mem != nil {
			_, held := v.byID[r.mem.ID]
			before[r.mem.ID] = before[r.mem.ID] || held
			succChanges = succChanges || v.touchesSuccLocked(r.mem)
		}
	}
	for _, r := range res {
		d, had := v.byPath[r.rel]
		if !had {
			continue
		}
		m := keepLastGood(r, true)
		gone := r.mem == nil && isNotExist(r.diags)
		if gone || (m != nil && m.ID != v.entries[d].ID) {
			changed = append(changed, v.entries[d].ID)
			delete(v.diags, r.rel)
			v.removeLocked(d)
		}
	}
	for _, r := range res {
		changed = append(changed, v.applyLocked(r)...)
	}
	if succChanges {
		v.rebuildSuccLocked()
	}
	if len(changed) == 0 {
		v.mu.Unlock()
		return nil, nil
	}
	changed = dedupe(changed)
	c := Change{IDs: changed}
	for _, id := range changed {
		_, after := v.byID[id]
		switch {
		case !before[id] && after:
			c.Added = append(c.Added, id)
		case before[id] && !after:
			c.Removed = append(c.Removed, id)
		default:
			c.Changed = append(c.Changed, id)
		}
	}
	v.mu.Unlock()
	v.publish(c)
	return changed, nil
}

// applyLocked swaps one file's entry in the index and returns the ids of
// the memories whose indexed state changed. Caller holds v.mu.
func (v *Vault) applyLocked(r loaded) []string {
	delete(v.diags, r.rel)
	if len(r.diags) > 0 {
		v.diags[r.rel] = r.diags
	}
	oldID, had := v.byPath[r.rel]
	m := keepLastGood(r, had)
	if m == nil {
		if !had {
			if isNotExist(r.diags) {
				// A file never indexed (a duplicate id) is gone: so is its
				// problem.
				delete(v.diags, r.rel)
			}
			return nil
		}
		old := v.entries[oldID].ID
		if isNotExist(r.diags) {
			delete(v.diags, r.rel)
			v.removeLocked(oldID)
			return []string{old}
		}
		if v.entries[oldID].Stale {
			return nil
		}
		stale := v.entries[oldID].Clone()
		stale.Stale = true
		stale.Damaged = cmp.Or(DamageLabel(r.diags), stale.Damaged)
		v.entries[oldID] = stale
		return []string{old}
	}
	if other, dup := v.byID[m.ID]; dup && (!had || other != oldID) {
		v.diags[r.rel] = append(v.diags[r.rel], duplicateDiag(m, v.entries[other].Path))
		return nil
	}
	if had {
		if prev := v.entries[oldID]; prev.Hash == m.Hash && !prev.Stale {
			return nil // our own write, or a touch without change
		}
		old := v.entries[oldID].ID
		delete(v.byID, old)
		v.dropNamesLocked(v.entries[oldID], oldID)
		v.addNamesLocked(m, oldID)
		v.entries[oldID] = m
		v.byID[m.ID] = oldID
		if v.ix != nil {
			v.ix.Put(oldID, indexDoc(m))
		}
		m.DropText() // indexed: PlainText derives it again when needed
		if old != m.ID {
			return []string{old, m.ID}
		}
		return []string{m.ID}
	}
	var id index.DocID
	if n := len(v.free); n > 0 {
		id, v.free = v.free[n-1], v.free[:n-1]
		v.entries[id] = m
	} else {
		id = index.DocID(len(v.entries))
		v.entries = append(v.entries, m)
	}
	v.byID[m.ID] = id
	v.byPath[m.Path] = id
	v.addNamesLocked(m, id)
	if v.ix != nil {
		v.ix.Put(id, indexDoc(m))
	}
	m.DropText()
	return []string{m.ID}
}

func (v *Vault) removeLocked(id index.DocID) {
	m := v.entries[id]
	v.dropNamesLocked(m, id)
	delete(v.byID, m.ID)
	delete(v.byPath, m.Path)
	v.entries[id] = nil
	v.free = append(v.free, id)
	if v.ix != nil {
		v.ix.Delete(id)
	}
}

func isNotExist(diags []*Diagnostic) bool {
	for _, d := range diags {
		if errors.Is(d.Err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// indexDoc is what the full-text index sees of a memory.
func indexDoc(m *Memory) index.Doc {
	return index.Doc{Title: m.Title, Aliases: m.Aliases, Tags: m.Tags, Body: m.PlainText()}
}

// nameKeys are the names a [[wiki link]] may use for m: title, file
// name, path without extension, id; lower-cased.
func nameKeys(m *Memory) []string {
	return []string{strings.ToLower(m.Title), strings.ToLower(strings.TrimSuffix(filepath.Base(m.Path), ".md")),
		strings.ToLower(DerivedID(m.Path)), strings.ToLower(m.ID)}
}

// addNamesLocked and dropNamesLocked keep the wiki-link name table in step
// with the entries, so a write costs a few map operations, not a rescan.
func (v *Vault) addNamesLocked(m *Memory, id index.DocID) {
	if v.names == nil {
		return // built from the entries when first needed
	}
	for _, k := range nameKeys(m) {
		v.names[k] = id
	}
}

func (v *Vault) dropNamesLocked(m *Memory, id index.DocID) {
	if v.names == nil {
		return
	}
	for _, k := range nameKeys(m) {
		if d, ok := v.names[k]; ok && d == id {
			delete(v.names, k)
		}
	}
}

// Related resolves a memory's relations: front-matter links, then
// [[wiki links]] by id, file name, path or title (case-insensitive).
// Names that match no memory are left out.
func (v *Vault) Related(m *Memory) []Ref {
	v.mu.RLock()
	defer v.mu.RUnlock()
	var out []Ref
	seen := map[string]bool{m.ID: true}
	add := func(id string) {
		if seen[id] {
			return
		}
		seen[id] = true
		if r := v.refLocked(id); r.Title != "" {
			out = append(out, r)
		}
	}
	for _, id := range m.Links {
		add(id)
	}
	if len(m.WikiLinks) == 0 {
		return out
	}
	names := v.namesRLocked()
	for _, w := range m.WikiLinks {
		if d, ok := names[strings.ToLower(strings.TrimSpace(w))]; ok {
			add(v.entries[d].ID)
		}
	}
	return out
}

// namesRLocked returns the wiki-link name table, building it from the
// entries if needed. The caller holds at least mu's read lock: writers,
// which change the table, hold the write lock and so never run meanwhile.
func (v *Vault) namesRLocked() map[string]index.DocID {
	v.namesMu.Lock()
	defer v.namesMu.Unlock()
	if v.names == nil {
		names := make(map[string]index.DocID, 4*len(v.byID))
		for d, m := range v.entries {
			if m == nil {
				continue
			}
			for _, k := range nameKeys(m) {
				names[k] = index.DocID(d)
			}
		}
		v.names = names
	}
	return v.names
}

// Get returns a copy of the memory with the given id.
func (v *Vault) Get(id string) (*Memory, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	d, ok := v.byID[id]
	if !ok {
		d, ok = v.byAlias(id) // a path id a hand-written memory had
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, ShortID(id))
	}
	return v.entries[d].Clone(), nil
}

// All returns copies of every loaded memory, sorted by path.
func (v *Vault) All() []*Memory {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make([]*Memory, 0, len(v.byID))
	for _, m := range v.entries {
		if m != nil {
			out = append(out, m.Clone())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Diagnostics returns every problem found in vault files, sorted by path
// and line. Problems between files (dangling supersedes and links, a
// status that disagrees with supersession at the vault's clock) are
// computed on each call, so they follow every change to the other files.
func (v *Vault) Diagnostics() []*Diagnostic { return v.DiagnosticsOf(nil) }

// DiagnosticsOf is Diagnostics for the files in accepts (nil accepts
// every file). The problems that depend on other files are computed for
// those files only, so a server that reports the files a change touched
// does not pay for a pass over the whole vault.
func (v *Vault) DiagnosticsOf(in func(path string) bool) []*Diagnostic {
	now := v.now()
	v.mu.RLock()
	defer v.mu.RUnlock()
	var out []*Diagnostic
	for _, d := range v.cycles {
		if in == nil || in(d.Path) {
			out = append(out, d)
		}
	}
	out = append(out, v.relationDiagsLocked(now, in)...)
	for path, ds := range v.diags {
		if in == nil || in(path) {
			out = append(out, ds...)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// Stats summarises the vault. It has no JSON form of its own: both doors
// render it as view.VaultStats, under one set of names.
type Stats struct {
	Dir      string
	Total    int
	ByLayer  map[string]int
	ByStatus map[string]int
	InForce  int
	Expired  int
	Future   int
	Stale    int
	Errors   int
	Warnings int
	// Secrets counts the diagnostics that are secrets found in files
	// (they are also counted in Errors).
	Secrets int
	// Conflicted lists, by path, the files a git merge left in conflict:
	// a conflict entry, or conflict markers.
	Conflicted []ConflictedFile
	// Indexed is the number of memories in the search index.
	Indexed int
	// LoadedAt is the last whole-vault load; UpdatedAt the last change
	// to the index of any kind (a write, a refreshed file, a load).
	LoadedAt  time.Time
	UpdatedAt time.Time
}

// ConflictedFile is a memory file a git merge left in conflict.
type ConflictedFile struct {
	Path string `json:"path"`
	// ID is the memory served for it; "" when none is (a file holding
	// conflict markers that HEAD does not have).
	ID string `json:"id,omitempty"`
	// What names what disagrees: front-matter keys, "body", or
	// ConflictedMarkers.
	What []string `json:"what"`
}

// Stats counts memories by layer and status at the vault's clock.
func (v *Vault) Stats() Stats {
	now := v.now()
	v.mu.RLock()
	defer v.mu.RUnlock()
	s := Stats{Dir: v.dir, ByLayer: map[string]int{}, ByStatus: map[string]int{}, LoadedAt: v.loadedAt,
		UpdatedAt: v.loadedAt}
	if v.ix != nil {
		s.Indexed = v.ix.Len()
	}
	if v.changedAt.After(s.UpdatedAt) {
		s.UpdatedAt = v.changedAt
	}
	for _, m := range v.entries {
		if m == nil {
			continue
		}
		s.Total++
		s.ByLayer[m.Layer.String()]++
		s.ByStatus[string(m.Status)]++
		if m.Stale || m.Damaged != "" {
			s.Stale++ // served as the last version of its file that parsed
		}
		switch {
		case !m.EffectiveAt.IsZero() && now.Before(m.EffectiveAt):
			s.Future++
		case !m.ExpiresAt.IsZero() && !now.Before(m.ExpiresAt):
			s.Expired++
		case m.Status == StatusActive:
			s.InForce++
		}
	}
	for _, ds := range append([][]*Diagnostic{v.cycles, v.relationDiagsLocked(now, nil)}, slices.Collect(maps.Values(v.diags))...) {
		for _, d := range ds {
			if d.Severity == parser.SeverityError {
				s.Errors++
			} else {
				s.Warnings++
			}
			if errors.Is(d.Err, ErrSecret) {
				s.Secrets++
			}
		}
	}
	s.Conflicted = v.conflictedLocked()
	return s
}

// Len is how many memories the vault holds (Stats().Total, without the
// rest of Stats).
func (v *Vault) Len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.byID)
}

// Conflicted is Stats().Conflicted without the rest of Stats: the files a
// git merge left in conflict, by path.
func (v *Vault) Conflicted() []ConflictedFile {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.conflictedLocked()
}

// conflictedLocked lists the memories whose file carries a conflict entry
// and the files whose conflict markers keep them out of the vault, by
// path. Caller holds v.mu.
func (v *Vault) conflictedLocked() []ConflictedFile {
	var out []ConflictedFile
	for _, m := range v.entries {
		if m != nil && len(m.Conflicted) > 0 {
			out = append(out, ConflictedFile{Path: m.Path, ID: m.ID, What: slices.Clone(m.Conflicted)})
		}
	}
	for path, ds := range v.diags {
		if _, served := v.byPath[path]; served {
			continue
		}
		if slices.ContainsFunc(ds, func(d *Diagnostic) bool { return errors.Is(d.Err, ErrConflictMarkers) }) {
			out = append(out, ConflictedFile{Path: path, What: []string{ConflictedMarkers}})
		}
	}
	slices.SortFunc(out, func(a, b ConflictedFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Person is who a write is made for, when it is not the repository's own
// git identity: a team server (memvault serve --http --tokens) knows each
// caller by a token and commits their writes as them.
type Person struct {
	Name, Email string
}

type personKey struct{}

// WithPerson returns ctx carrying p: a Committer commits the writes made
// with it as authored by p. The person travels with the call rather than
// in the Vault, because one server writes for many people at once.
func WithPerson(ctx context.Context, p Person) context.Context {
	return context.WithValue(ctx, personKey{}, p)
}

// PersonOf returns the person ctx carries (WithPerson), if any.
func PersonOf(ctx context.Context) (Person, bool) {
	p, ok := ctx.Value(personKey{}).(Person)
	return p, ok && p.Name != ""
}

// stripAddresses removes from a writer's name every part in angle
// brackets, and any bracket left unpaired: a client calling itself "Bob
// Builder <bob@example.com>" would otherwise read, in a Memory-Client
// trailer or `memvault history`, like a person's identity, which only the
// commit's author (the token's owner on a team server) may claim.
func stripAddresses(name string) string {
	if !strings.ContainsAny(name, "<>") {
		return name
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(name, '<')
		if open < 0 {
			break
		}
		end := strings.IndexByte(name[open:], '>')
		if end < 0 {
			break
		}
		b.WriteString(name[:open])
		b.WriteByte(' ')
		name = name[open+end+1:]
	}
	b.WriteString(name)
	return strings.NewReplacer("<", " ", ">", " ").Replace(b.String())
}

// SyncFiles brings the index in line with files that someone else changed
// on disk (a hand edit, git, another memvault process) and returns the ids
// whose indexed state changed. The whole batch becomes visible at once.
//
// Unlike Refresh it waits for a write of this process in progress, so a
// file read before that write can never overwrite the entry the write just
// indexed. A file whose content hash equals the indexed one is left alone,
// so syncing after this process's own write costs a read and changes
// nothing.
func (v *Vault) SyncFiles(ctx context.Context, rels []string) ([]string, error) {
	if v.readOnly {
		return nil, ErrReadOnly
	}
	v.writeMu.Lock()
	defer v.writeMu.Unlock()
	return v.refresh(ctx, rels)
}

// SyncAll reloads the whole vault like Reload, after any write of this
// process in progress. A watcher uses it when too much changed at once
// (a branch switch) to be worth syncing file by file.
func (v *Vault) SyncAll(ctx context.Context) error {
	if v.readOnly {
		return ErrReadOnly
	}
	v.writeMu.Lock()
	defer v.writeMu.Unlock()
	return v.Reload(ctx)
}

// keepLastGood is the memory a read yields for the index, or nil when the
// file's last good version should stay, marked stale. That is the case for
// a file that could not be read at all, and for one that was indexed
// before and whose front matter no longer parses: read as a fresh file it
// would lose its id and fields, which would silently turn a memory into
// another one. had says whether the path was indexed.
func keepLastGood(r loaded, had bool) *Memory {
	if r.mem == nil || !had {
		return r.mem
	}
	for _, d := range r.diags {
		if errors.Is(d.Err, parser.ErrSyntax) || errors.Is(d.Err, parser.ErrUnclosed) {
			return nil
		}
	}
	return r.mem
}
