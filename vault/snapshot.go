package vault

import (
	"cmp"
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
)

// File is one vault file's bytes, as read from somewhere other than the
// work tree (a git revision).
type File struct {
	Rel     string // vault-relative slash path
	Data    []byte
	ModTime time.Time // stands in for missing dates in hand-written files
}

// ParseMemory turns a file's bytes into a Memory the way the loader does,
// with the diagnostics found. It returns nil when the file cannot be a
// memory at all.
func ParseMemory(rel string, data []byte, modTime time.Time) (*Memory, []*Diagnostic) {
	return memory.Parse(rel, data, modTime)
}

// OpenSnapshot builds a read-only vault from files, for time travel: the
// vault as recorded at a commit. Writes to it fail with ErrReadOnly.
func OpenSnapshot(ctx context.Context, name string, files []File, opts Options) (*Vault, error) {
	v := &Vault{dir: name, now: opts.Now, client: "snapshot", readOnly: true,
		maxFileSize: max(opts.MaxFileSize, parser.MaxFileSize), disk: checkedFolders{}}
	if v.now == nil {
		v.now = time.Now
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Rel < files[j].Rel })
	res := make([]loaded, 0, len(files))
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !IsMemoryPath(f.Rel) {
			continue
		}
		r := loaded{rel: f.Rel}
		if int64(len(f.Data)) > v.maxFileSize {
			r.diags = []*Diagnostic{{Path: f.Rel, Err: fmt.Errorf("%w: %d bytes", parser.ErrTooLarge, len(f.Data)), Severity: parser.SeverityError}}
		} else {
			r.mem, r.diags = memory.Parse(f.Rel, f.Data, f.ModTime)
			if damage(r.diags) != nil {
				// Another memory under the path's id: not served, as
				// in a load without history (see servedForDamage).
				r.mem = nil
			}
		}
		res = append(res, r)
	}
	v.install(res)
	return v, nil
}

// install replaces the vault's whole state with the loaded files.
func (v *Vault) install(res []loaded) {
	b := v.newBuilder(len(res), index.New())
	for _, r := range res {
		b.add(r)
	}
	v.installBuilt(b)
}

// builder assembles a vault's new state from loaded files, in path order,
// inserting each memory into the new index as it arrives.
type builder struct {
	ix         *index.Index
	bulk       *index.Bulk // inserts the prepared memories into ix
	entries    []*Memory
	byID       map[string]index.DocID
	byPath     map[string]index.DocID
	diags      map[string][]*Diagnostic
	old        map[string]index.DocID // the state being replaced
	oldEntries []*Memory
	pending    []index.Entry // memories without a Prepared, for PutBatch
	noIndex    bool          // ix is nil: a headers-only vault
	// strs holds one copy of each tag and source string: they repeat
	// across thousands of memories.
	strs map[string]string
	// skipped are memories left out because an earlier file carries
	// their id (see Vault.preferTracked).
	skipped []*Memory
}

// intern returns the builder's copy of s.
func (b *builder) intern(s string) string {
	if c, ok := b.strs[s]; ok {
		return c
	}
	b.strs[s] = s
	return s
}

// newBuilder starts a new state for about n files, indexed in ix; nil
// indexes nothing (a headers-only vault).
func (v *Vault) newBuilder(n int, ix *index.Index) *builder {
	v.mu.RLock()
	old, oldEntries := v.byPath, v.entries
	v.mu.RUnlock()
	var bulk *index.Bulk
	if ix != nil {
		bulk = ix.NewBulk()
	}
	return &builder{
		ix:         ix,
		noIndex:    ix == nil,
		bulk:       bulk,
		entries:    make([]*Memory, 0, n),
		byID:       make(map[string]index.DocID, n),
		byPath:     make(map[string]index.DocID, n),
		diags:      map[string][]*Diagnostic{},
		old:        old,
		oldEntries: oldEntries,
		strs:       map[string]string{},
	}
}

// add takes one loaded file. r.prep is inserted at once; it is not kept.
func (b *builder) add(r loaded) {
	if len(r.diags) > 0 {
		b.diags[r.rel] = r.diags
	}
	_, had := b.old[r.rel]
	m := keepLastGood(r, had)
	prep := r.prep
	if m == nil {
		// Keep the last good version searchable, marked stale.
		id, ok := b.old[r.rel]
		if !ok || b.oldEntries[id] == nil {
			return
		}
		m = b.oldEntries[id].Clone()
		m.Stale = true
		m.Damaged = cmp.Or(DamageLabel(r.diags), m.Damaged)
		prep = nil
	} else if !r.mapped {
		// Strings from the index cache point into its mapping, not the
		// heap: sharing one copy saves nothing there.
		for i, t := range m.Tags {
			m.Tags[i] = b.intern(t)
		}
		m.Source.Client, m.Source.Kind = b.intern(m.Source.Client), b.intern(m.Source.Kind)
	}
	if other, dup := b.byID[m.ID]; dup {
		b.diags[r.rel] = append(b.diags[r.rel], duplicateDiag(m, b.entries[other].Path))
		if m == r.mem { // read now, not a stale last version
			b.skipped = append(b.skipped, m)
		}
		return
	}
	id := index.DocID(len(b.entries))
	b.entries = append(b.entries, m)
	b.byID[m.ID] = id
	b.byPath[m.Path] = id
	switch {
	case b.noIndex:
	case prep != nil:
		b.bulk.Put(id, prep)
	default:
		b.pending = append(b.pending, index.Entry{ID: id, Doc: indexDoc(m)})
	}
	if !b.noIndex {
		m.DropText() // indexed: PlainText derives it again when needed
	}
}

// installBuilt finishes b and swaps it in as the vault's state.
func (v *Vault) installBuilt(b *builder) {
	// Ids are distinct, so the order of insertion does not matter.
	if b.ix != nil {
		b.bulk.Flush()
		b.ix.PutBatch(b.pending)
		b.ix.Trim()
	}
	v.mu.Lock()
	v.ix, v.entries, v.free, v.byID, v.byPath, v.diags, v.names = b.ix, b.entries, nil, b.byID, b.byPath, b.diags, nil
	v.rebuildSuccLocked()
	v.loadedAt = v.now()
	v.mu.Unlock()
}
