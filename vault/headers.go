package vault

import (
	"context"
	"hash/crc32"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memvault/memvault/vault/store"
	"github.com/memvault/memvault/vault/title"
)

// A headers-only vault (Options.HeadersOnly) is what a process that only
// adds a memory needs: every memory's id, path, title, layer, dates,
// status, version and supersedes, for the id and file-name checks, the
// same-title refusal and the successor rules, but no bodies and no
// full-text index. Reading and indexing every file was two thirds of the
// CPU of a `memvault add` on a 10k vault (docs/git.md, "The write path").
//
// The headers come from a cache file (Options.HeaderCache) when a file's
// stat data still matches the one recorded with it: size, modification
// and change times in nanoseconds, inode. Every file is still stat'ed, so
// a hand edit, a checkout or a file written by another tool is read
// again, as git's index finds changed files. An entry whose file changed
// less than store.RacyWindow before the cache was written is not kept: a second
// change within the file system's timestamp granularity would leave the
// stat data as it was.

// maxUncachedReads is how many files a load may read for want of a cache
// entry before it rewrites the cache.
const maxUncachedReads = 32

// headerEntry is one cached file: its stat key and its memory's header.
type headerEntry struct {
	key store.StatKey
	mem *Memory
	sig titleSig // of mem.Title
}

// loadHeaders builds the vault's state from the headers of its files:
// cached where the stat data matches, read and parsed otherwise. It
// rewrites the cache when anything was read.
func (v *Vault) loadHeaders(ctx context.Context) error {
	// The cache is read and decoded while the folders are listed: neither
	// needs the other, and the listing leaves a core idle for most of it.
	type cached struct {
		stamp   string
		entries []headerEntry
	}
	cacheDone := make(chan cached, 1)
	go func() {
		stamp := store.ExecutableStamp()
		cacheDone <- cached{stamp, readHeaderCache(v.load.headerCache, stamp)}
	}()
	var sawTemp atomic.Bool
	rels, err := store.Scan(ctx, v.dir, &sawTemp)
	c := <-cacheDone
	if err != nil {
		return err
	}
	v.load.noTempFiles.Store(!sawTemp.Load())
	stamp, cache := c.stamp, c.entries
	// A result is small: most files are cache hits, and a 10k vault's
	// results are allocated and filled in every process.
	type read struct {
		r   loaded
		sig titleSig
	}
	type result struct {
		key  store.StatKey
		ok   bool  // key is valid
		hit  int32 // the cache entry that holds the file's header, or -1
		miss *read // the file, read and parsed: hit is -1
	}
	res := make([]result, len(rels))
	workers := min(runtime.GOMAXPROCS(0), len(rels)/256+1)
	if len(rels) == 0 {
		workers = 0
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var rs readerState
			defer rs.files.Close()
			lo := w * len(rels) / workers
			// The cache is sorted by path, as rels are: walk both.
			next, _ := slices.BinarySearchFunc(cache, rels[lo], func(e headerEntry, rel string) int { return strings.Compare(e.mem.Path, rel) })
			for i := lo; i < (w+1)*len(rels)/workers; i++ {
				if ctx.Err() != nil {
					return
				}
				rel := rels[i]
				dir, name := path.Split(rel)
				if dir != rs.lastRel || rs.lastDir == "" {
					rs.lastRel, rs.lastDir = dir, filepath.Join(v.dir, filepath.FromSlash(dir))
				}
				// The stat follows a link to its file, so an edit behind a
				// linked memory is seen. It comes before the read: a change
				// made after it changes the key the next process sees.
				x := &res[i]
				x.key, x.ok = rs.files.StatKey(rs.lastDir, name)
				for next < len(cache) && cache[next].mem.Path < rel {
					next++
				}
				if next < len(cache) && cache[next].mem.Path == rel && x.ok && cache[next].key == x.key {
					x.hit = int32(next)
					continue
				}
				r := v.readFile(ctx, rel, &rs)
				var sig titleSig
				if r.mem != nil {
					r.mem = r.mem.header()
					sig = newTitleSig(r.mem.Title)
				}
				x.hit, x.miss = -1, &read{r, sig}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	// entry is a result's header as the builder and the cache take it.
	entry := func(i int) (loaded, titleSig) {
		if x := res[i]; x.miss != nil {
			return x.miss.r, x.miss.sig
		}
		e := &cache[res[i].hit]
		return loaded{rel: rels[i], mem: e.mem}, e.sig
	}
	b := v.newBuilder(len(rels), nil)
	reads := 0
	sigs := make([]titledSig, 0, len(res))
	for i, x := range res {
		n := len(b.entries)
		r, sig := entry(i)
		b.add(r)
		reads += boolInt(x.miss != nil)
		if len(b.entries) > n { // entry n is x's memory
			sigs = append(sigs, titledSig{b.entries[n], sig})
		}
	}
	v.installBuilt(b)
	v.preferTracked(ctx, b.skipped)
	v.mu.Lock()
	v.load.titleSigs, v.load.stats = sigs, loadStats{read: reads}
	v.mu.Unlock()
	if v.load.headerCache == "" || stamp == "" {
		return nil
	}
	newest := v.fsTime().Add(-store.RacyWindow).UnixNano()
	// Files with problems are read again each time, so their diagnostics
	// are reported; files changed a moment ago too.
	cacheable := func(x result) bool {
		return x.ok && (x.miss == nil || x.miss.r.mem != nil && len(x.miss.r.diags) == 0) && max(x.key.Mtime, x.key.Ctime) < newest
	}
	kept, added := 0, 0 // entries to cache; of those, entries the cache does not hold yet
	for _, x := range res {
		if cacheable(x) {
			kept++
			added += boolInt(x.miss != nil)
		}
	}
	if added <= maxUncachedReads && len(cache) > 0 {
		// Reading a few files again costs less than rewriting the
		// cache: each add would otherwise rewrite it for the file an
		// add before it wrote (once that file is older than
		// store.RacyWindow). Entries of files gone are skipped. A vault
		// without a usable cache gets one, however small.
		return nil
	}
	keep := make([]headerEntry, 0, kept)
	for i, x := range res {
		if cacheable(x) {
			r, sig := entry(i)
			keep = append(keep, headerEntry{key: x.key, mem: r.mem, sig: sig})
		}
	}
	// A cache that cannot be written only costs the next process time.
	_ = writeHeaderCache(v.load.headerCache, stamp, keep)
	return nil
}

// header is a copy of m with what a headers-only vault keeps.
func (m *Memory) header() *Memory {
	return &Memory{ID: m.ID, Title: m.Title, Layer: m.Layer, Importance: m.Importance,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, EffectiveAt: m.EffectiveAt, ExpiresAt: m.ExpiresAt,
		Status: m.Status, Supersedes: m.Supersedes, Version: m.Version, Path: m.Path, idLine: m.idLine,
		Damaged: m.Damaged, Redacted: m.Redacted}
}

// titledSig is a title's signature with the memory it was computed for.
type titledSig struct {
	mem *Memory
	sig titleSig
}

// headerCodec is the header cache's codec of an entry: its stat key, its
// memory's header fields and its title's signature. It allocates the
// decoded memories together.
type headerCodec struct {
	mems []Memory
}

func (c *headerCodec) Prepare(n int) { c.mems = make([]Memory, n) }

func (*headerCodec) Encode(w *store.Writer, e *headerEntry) {
	m := e.mem
	w.Stat(e.key)
	w.Str(m.Path)
	w.Str(m.ID)
	w.Str(m.Title)
	w.Uv(uint64(m.Layer))
	w.Sv(int64(m.Importance))
	w.Tm(m.CreatedAt)
	w.Tm(m.UpdatedAt)
	w.Tm(m.EffectiveAt)
	w.Tm(m.ExpiresAt)
	w.Str(string(m.Status))
	w.Sv(int64(m.Version))
	w.Uv(uint64(m.idLine))
	w.Strs(m.Supersedes)
	key, neg, toks := e.sig.Parts()
	w.Str(key)
	w.Byte(byte(boolInt(neg)))
	w.Strs(toks)
}

func (c *headerCodec) Decode(r *store.Reader, i int, e *headerEntry) {
	m := &c.mems[i]
	e.key = r.Stat()
	m.Path, m.ID, m.Title = r.Str(), r.Str(), r.Str()
	m.Layer = Layer(r.Uv())
	m.Importance = int(r.Sv())
	m.CreatedAt, m.UpdatedAt, m.EffectiveAt, m.ExpiresAt = r.Tm(), r.Tm(), r.Tm(), r.Tm()
	m.Status = Status(r.Str())
	m.Version = int(r.Sv())
	m.idLine = int(r.Uv())
	m.Supersedes = r.Strs()
	key, neg := r.Str(), false
	if b := r.Bytes(1); b != nil {
		neg = b[0] == 1
	}
	e.sig = title.FromParts(key, neg, r.Strs())
	e.mem = m
}

// readHeaderCache reads the cache file at path, if stamp wrote it: its
// entries sorted by path. A missing, unreadable or damaged file is an
// empty cache (see store.ReadHeaders).
func readHeaderCache(path, stamp string) []headerEntry {
	entries, release := store.ReadHeaders(path, stamp, &headerCodec{})
	for i := 1; i < len(entries); i++ {
		if entries[i-1].mem.Path >= entries[i].mem.Path {
			release()
			return nil // not written by loadHeaders
		}
	}
	return entries
}

// writeHeaderCache replaces the cache file at path with entries (see
// store.WriteHeaders).
func writeHeaderCache(path, stamp string, entries []headerEntry) error {
	return store.WriteHeaders(path, encodeHeaderCache(stamp, entries))
}

// encodeHeaderCache and decodeHeaderCache are the header cache's format
// (see store.EncodeHeaders) with the vault's entries.
func encodeHeaderCache(stamp string, entries []headerEntry) []byte {
	return store.EncodeHeaders(stamp, entries, &headerCodec{})
}

func decodeHeaderCache(data []byte, stamp string) ([]headerEntry, error) {
	return store.DecodeHeaders(data, stamp, &headerCodec{})
}

// HeaderCacheName is the file name, inside a folder of the caller's
// choosing (memvault uses the repository's git directory), of the header
// cache of the vault at dir: one per vault folder.
func HeaderCacheName(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return "headers-" + strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(abs))), 16)
}
