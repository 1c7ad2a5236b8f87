package load

import (
	"context"
	"hash/crc32"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/memvault/memvault/vault/store"
)

// A headers-only load (Headers) is what a process that only adds a
// memory needs: every memory's header (Rules.Header), for the id and
// file-name checks, the same-title refusal and the successor rules, but
// no bodies and no full-text index. Reading and indexing every file was
// two thirds of the CPU of a `memvault add` on a 10k vault (docs/git.md,
// "The write path").
//
// The headers come from a cache file (Config.HeaderCache) when a file's
// stat data still matches the one recorded with it: size, modification
// and change times in nanoseconds, inode. Every file is still stat'ed, so
// a hand edit, a checkout or a file written by another tool is read
// again, as git's index finds changed files. An entry whose file changed
// less than store.RacyWindow before the cache was written is not kept: a
// second change within the file system's timestamp granularity would
// leave the stat data as it was.

// MaxUncachedReads is how many files a load may read for want of a cache
// entry before it rewrites the cache.
const MaxUncachedReads = 32

// Header is one file of the header cache: its stat key, its memory's
// header and the header's signature.
type Header[T, S any] struct {
	Key store.StatKey
	Mem *T
	Sig S
}

// headerRes is a headers-only load's result for one file. It is small:
// most files are cache hits, and a 10k vault's results are allocated and
// filled in every process.
type headerRes[T, S any] struct {
	key  store.StatKey
	ok   bool        // key is valid
	hit  int32       // the cache entry that holds the file's header, or -1
	miss *File[T, S] // the file, read and parsed: hit is -1
}

// headerList is a header cache as eachFile walks it.
type headerList[T, S any] struct {
	l       *loader[T, S]
	entries []Header[T, S]
}

func (h headerList[T, S]) Len() int          { return len(h.entries) }
func (h headerList[T, S]) Path(j int) string { return h.l.Rules.Path(h.entries[j].Mem) }

// headers is a headers-only load: headers cached where the stat data
// matches, read and parsed otherwise. It rewrites the cache when many
// were read.
func (l *loader[T, S]) headers(ctx context.Context) (Stats, error) {
	// The cache is read and decoded while the folders are listed: neither
	// needs the other, and the listing leaves a core idle for most of it.
	type cached struct {
		stamp   string
		entries []Header[T, S]
	}
	cacheDone := make(chan cached, 1)
	go func() {
		stamp := store.ExecutableStamp()
		cacheDone <- cached{stamp, l.readHeaderCache(stamp)}
	}()
	var sawTemp atomic.Bool
	rels, err := store.Scan(ctx, l.Dir, &sawTemp)
	c := <-cacheDone
	if err != nil {
		return Stats{}, err
	}
	st := Stats{TempFiles: sawTemp.Load()}
	stamp, cache := c.stamp, c.entries
	res := make([]headerRes[T, S], len(rels))
	// The stat follows a link to its file, so an edit behind a linked
	// memory is seen. It comes before the read: a change made after it
	// changes the key the next process sees.
	stat := func(i int, rs *readerState) {
		x := &res[i]
		x.key, x.ok = rs.files.StatKey(rs.dir(l.Dir, rels[i]))
	}
	take := func(i, j int, rs *readerState) {
		x := &res[i]
		if j >= 0 && x.ok && cache[j].Key == x.key {
			x.hit = int32(j)
			return
		}
		r := l.readFile(ctx, rels[i], rs)
		if r.Mem != nil {
			var sig S
			r.Mem, sig = l.Rules.Header(r.Mem)
			r.Sig = &sig
		}
		x.hit, x.miss = -1, &r
	}
	eachFile(ctx, rels, func() sortedPaths { return headerList[T, S]{l, cache} }, stat, take)
	if err := ctx.Err(); err != nil {
		return st, err
	}
	// file sets f to a result's header as the Sink and the cache take
	// it: one File, reused, not one allocated per file.
	var f File[T, S]
	file := func(i int) *File[T, S] {
		if x := res[i]; x.miss != nil {
			return x.miss
		}
		e := &cache[res[i].hit]
		f = File[T, S]{Rel: rels[i], Mem: e.Mem, Sig: &e.Sig}
		return &f
	}
	l.sink.Begin(len(rels), nil)
	for i, x := range res {
		l.sink.Add(file(i))
		st.Read += boolInt(x.miss != nil)
	}
	l.sink.Install(ctx)
	if l.HeaderCache == "" || stamp == "" {
		return st, nil
	}
	newest := l.fsTime().Add(-store.RacyWindow).UnixNano()
	// Files with problems are read again each time, so their diagnostics
	// are reported; files changed a moment ago too.
	cacheable := func(x headerRes[T, S]) bool {
		return x.ok && (x.miss == nil || x.miss.Mem != nil && len(x.miss.Diags) == 0) && max(x.key.Mtime, x.key.Ctime) < newest
	}
	kept, added := 0, 0 // entries to cache; of those, entries the cache does not hold yet
	for _, x := range res {
		if cacheable(x) {
			kept++
			added += boolInt(x.miss != nil)
		}
	}
	if added <= MaxUncachedReads && len(cache) > 0 {
		// Reading a few files again costs less than rewriting the
		// cache: each add would otherwise rewrite it for the file an
		// add before it wrote (once that file is older than
		// store.RacyWindow). Entries of files gone are skipped. A vault
		// without a usable cache gets one, however small.
		return st, nil
	}
	keep := make([]Header[T, S], 0, kept)
	for i, x := range res {
		if cacheable(x) {
			h := file(i)
			keep = append(keep, Header[T, S]{Key: x.key, Mem: h.Mem, Sig: *h.Sig})
		}
	}
	// A cache that cannot be written only costs the next process time.
	_ = store.WriteHeaders(l.HeaderCache, store.EncodeHeaders(stamp, keep, l.Rules.HeaderCodec()))
	return st, nil
}

// readHeaderCache reads the header cache, if the program stamp wrote it:
// its entries sorted by path. A missing, unreadable or damaged file is an
// empty cache (see store.ReadHeaders).
func (l *loader[T, S]) readHeaderCache(stamp string) []Header[T, S] {
	entries, release := store.ReadHeaders(l.HeaderCache, stamp, l.Rules.HeaderCodec())
	for i := 1; i < len(entries); i++ {
		if l.Rules.Path(entries[i-1].Mem) >= l.Rules.Path(entries[i].Mem) {
			release()
			return nil // not written by a headers-only load
		}
	}
	return entries
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
