package vault

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
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
	return toMemory(rel, data, modTime)
}

// OpenSnapshot builds a read-only vault from files, for time travel: the
// vault as recorded at a commit. Writes to it fail with ErrReadOnly.
func OpenSnapshot(ctx context.Context, name string, files []File, opts Options) (*Vault, error) {
	v := &Vault{dir: name, now: opts.Now, client: "snapshot", readOnly: true,
		maxFileSize: max(opts.MaxFileSize, parser.MaxFileSize)}
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
			r.mem, r.diags = toMemory(f.Rel, f.Data, f.ModTime)
		}
		res = append(res, r)
	}
	v.install(res)
	return v, nil
}

// install replaces the vault's whole state with the loaded files.
func (v *Vault) install(res []loaded) {
	ix := index.New()
	entries := make([]*Memory, 0, len(res))
	byID := make(map[string]index.DocID, len(res))
	byPath := make(map[string]index.DocID, len(res))
	batch := make([]index.Entry, 0, len(res))
	diags := map[string][]*Diagnostic{}
	v.mu.RLock()
	old, oldEntries := v.byPath, v.entries
	v.mu.RUnlock()
	for _, r := range res {
		if len(r.diags) > 0 {
			diags[r.rel] = r.diags
		}
		m := r.mem
		if m == nil {
			// Keep the last good version searchable, marked stale.
			id, ok := old[r.rel]
			if !ok || oldEntries[id] == nil {
				continue
			}
			m = oldEntries[id].clone()
			m.Stale = true
		}
		if other, dup := byID[m.ID]; dup {
			diags[r.rel] = append(diags[r.rel], duplicateDiag(m, entries[other].Path))
			continue
		}
		id := index.DocID(len(entries))
		entries = append(entries, m)
		byID[m.ID] = id
		byPath[m.Path] = id
		batch = append(batch, index.Entry{ID: id, Doc: indexDoc(m)})
	}
	ix.PutBatch(batch)
	names := make(map[string]string, 4*len(entries))
	for _, m := range entries {
		for _, k := range nameKeys(m) {
			names[k] = m.ID
		}
	}
	v.mu.Lock()
	v.ix, v.entries, v.free, v.byID, v.byPath, v.diags, v.names = ix, entries, nil, byID, byPath, diags, names
	v.rebuildSuccLocked()
	v.loadedAt = v.now()
	v.mu.Unlock()
}

func duplicateDiag(m *Memory, other string) *Diagnostic {
	return &Diagnostic{Path: m.Path, Line: m.idLine, Field: "id", Severity: parser.SeverityError,
		Err: fmt.Errorf("%w %q: already used by %s; this file is skipped", ErrDuplicateID, m.ID, other)}
}
