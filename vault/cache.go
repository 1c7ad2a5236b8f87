package vault

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/store"
)

// The index cache (Options.IndexCache) keeps, between processes, what
// loading a vault computes from each file's bytes alone, so that the next
// Open skips reading and parsing files that did not change, and usually
// analysing them for the index too. It memoises pure functions only:
//
//   - per file, the memory toMemory makes of it, kept only for files that
//     gave no diagnostic (a file with a problem is read again each time, so
//     its problem is reported as found, and a file holding conflict
//     markers, whose served version comes from HEAD, never enters it). An
//     entry is trusted while the file's stat data (size, modification and
//     change times in nanoseconds, inode) is what was recorded and the file
//     was not changed at or after the moment the cache was written (git's
//     "racily clean" entries); otherwise the file is read and parsed.
//   - the search index a fresh load builds, with a digest of what that
//     build consumed: every memory in index order (path, SHA-256 and
//     modification time of its file) and the ids preferTracked handed to
//     tracked files. It is used as it is when this load's own decisions,
//     made afresh, give the same digest. When they differ in a few
//     memories (an edit from another process), it is patched: the
//     documents of the memories added, removed or changed are dropped or
//     analysed again, and the index is laid out as a fresh build lays it
//     out (see patchSnapshot). Otherwise the index is built from the
//     memories, exactly as a fresh load builds it.
//   - per folder, its listing, used while the folder's stat data is what
//     was recorded (see folders.go).
//
// Every decision that depends on more than one file's bytes (duplicate
// ids, which file git tracks, HEAD's version of a conflicted file,
// supersession) is made again on every load. The cache is one file in a
// git-ignored folder of the vault, with a format version, the key of the
// program that wrote it (Options.IndexCacheKey) and a CRC-32 over all of
// it; one that does not check out is ignored and rewritten.

// The cache folder and its errors, as the store names them.
var (
	// ErrBadCache reports an index cache that cannot be used: another
	// format or program, truncated, corrupted or inconsistent. Open never
	// returns it: it loads the files instead.
	ErrBadCache = store.ErrBadCache
	// ErrCacheDir reports a cache folder memvault will not use.
	ErrCacheDir = store.ErrCacheDir
)

// CacheDirName is the folder, inside the vault, that holds the index
// cache (see store.DirName).
const CacheDirName = store.DirName

// CheckCacheDir reports a cache folder in the vault folder dir that
// memvault refuses to use (see ErrCacheDir); see store.CheckDir.
func CheckCacheDir(dir string) error { return store.CheckDir(dir) }

// FixCacheDir replaces a cache folder that is a symbolic link with a real
// folder; see store.FixDir.
func FixCacheDir(dir string) error { return store.FixDir(dir) }

const (
	cacheMagic   = "MVCACHE\x00"
	cacheVersion = 7
	// cacheTrailer is the size of the trailer that ends a cache file:
	// the file's size and a checksum (see encodeIndexCacheLocked).
	cacheTrailer = 12
)

// cacheRecord is one file as the cache records it: its stat data, the
// SHA-256 and modification time of the bytes read, and the memory
// toMemory made of them (without diagnostics).
type cacheRecord struct {
	rel string
	st  store.StatKey
	sum [sha256.Size]byte
	// key is the SHA-256 of the memoryKey of the file as recorded (path,
	// sum, recorded modification time), which a load that finds the
	// record holding would compute.
	key [sha256.Size]byte
	mem *Memory
}

// indexCache is a decoded cache.
type indexCache struct {
	written int64 // the cache file's modification time, Unix nanoseconds
	folders []store.FolderRec
	recs    []cacheRecord
	digest  [sha256.Size]byte // of the build the snapshot comes from
	snap    []byte            // index snapshot; nil when none was kept
	// keys holds the build's memoryKey of each DocID, 32 bytes each, and
	// swaps how many DocIDs preferTracked gave to other files then.
	keys  []byte
	swaps int
	// drop lets the memory the cache file takes be reclaimed: what is
	// read from it later is read again (see store.MapCacheFile). release
	// unmaps it, while nothing points into it yet.
	drop, release func()
}

// lookup returns the record of rel, or nil.
func (c *indexCache) lookup(rel string) *cacheRecord {
	if c == nil {
		return nil
	}
	if i := c.search(rel); i < len(c.recs) && c.recs[i].rel == rel {
		return &c.recs[i]
	}
	return nil
}

// search returns the index of the first record whose path is not before
// rel.
func (c *indexCache) search(rel string) int {
	return sort.Search(len(c.recs), func(i int) bool { return c.recs[i].rel >= rel })
}

// loadCached is the first load of a vault with an index cache. Files are
// taken from the cache where it holds them unchanged and read otherwise;
// the vault's decisions are made as in Reload; the index is the cached
// one if the same build made it, else built as Reload builds it. Without
// a usable cache it is Reload's pipelined load that also notes what the
// cache records. The cache is rewritten when it lacked something.
func (v *Vault) loadCached(ctx context.Context) error {
	// The folders are checked against the listings the cache recorded
	// (listed where they changed) and the files stat'ed while the rest
	// of the cache is decoded, its checksum taken and its index loaded:
	// stat'ing waits on the file system, the rest works the CPU, and the
	// machine may have a core to spare. Nothing the cache holds is used
	// before its checksum checks out; the index is used only if this
	// load's build turns out to be the cache's, or close to it.
	cf := v.openIndexCache()
	var c *indexCache
	var snapIx *index.Index
	decoded, snapDone, summed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var prev []store.FolderRec
	sumOK := false
	if cf != nil {
		prev = cf.folders
		go func() {
			defer close(summed)
			sumOK = cf.checksum()
		}()
		go func() {
			defer close(snapDone)
			c = cf.decodeRest()
			close(decoded)
			if c == nil || c.snap == nil {
				return
			}
			// The cache's checksum covers the snapshot; it is used
			// only if the checksum then checks out.
			if ix := index.New(); ix.LoadCheckedSnapshot(c.snap) == nil {
				// A pass over all its posting lists (a patch below,
				// the first change a write makes) reads the mapping
				// through: let the pages it has read go as it goes.
				ix.SetSnapshotRelease(c.drop, dropEvery)
				snapIx = ix
			}
		}()
	} else {
		close(decoded)
		close(snapDone)
		close(summed)
	}
	rels, folders, listed, freshFiles, err := store.ScanFolders(ctx, v.dir, prev, v.fsTime())
	var res []loaded
	if err == nil && cf != nil {
		res, err = v.readCachedFiles(ctx, rels, cf.written, func() *indexCache { <-decoded; return c })
	}
	<-summed
	if cf != nil && (err != nil || c == nil || !sumOK) {
		// Nothing points into the mapping once the index load is done
		// and what was taken from it dropped.
		<-snapDone
		c, snapIx, res = nil, nil, nil
		cf.release()
		if err == nil && prev != nil {
			// The listings taken from the cache pointed into it: list
			// every folder.
			rels, folders, listed, freshFiles, err = store.ScanFolders(ctx, v.dir, nil, v.fsTime())
		}
	}
	if err != nil {
		return err
	}
	defer func() { <-snapDone }() // an error below leaves it running
	var b *builder
	var spool *store.Spool // bodies of a load from files, off the heap
	if c == nil {
		v.slowLoad()
		res = make([]loaded, 0, len(rels))
		b = v.newBuilder(len(rels), index.New())
		if len(rels) > 0 {
			spool = store.OpenSpool(v.dir)
		}
		err = v.readEach(ctx, rels, b.ix, func(r loaded) {
			b.add(r)
			r.prep = nil
			if r.mem != nil {
				spool.Park(&r.mem.Body)
			}
			res = append(res, r)
		})
		if serr := spool.Restore(); err == nil {
			err = serr
		}
	} else {
		b = v.newBuilder(len(rels), nil)
		for _, r := range res {
			b.add(r)
		}
	}
	if err != nil {
		return err
	}
	built := slices.Clone(b.entries) // preferTracked changes the installed ones
	v.installBuilt(b)
	swaps := v.preferTracked(ctx, b.skipped)
	bs := buildDigest(built, swaps, res)
	rebuilt, patched := false, 0
	if c != nil {
		var ix *index.Index
		<-snapDone
		if bs.pure && snapIx != nil && c.digest == bs.digest {
			if snapIx.Len() == len(built) {
				ix = snapIx
			}
		} else if bs.pure && snapIx != nil {
			v.slowLoad()
			ix, patched = patchSnapshot(c, snapIx, bs, built)
		}
		if ix == nil {
			v.slowLoad()
			// The same insertions, in the same order, as Reload.
			rebuilt = true
			ix = index.New()
			batch := make([]index.Entry, len(built))
			for i, m := range built {
				batch[i] = index.Entry{ID: index.DocID(i), Doc: indexDoc(m)}
			}
			ix.PutBatch(batch)
			ix.Trim()
			v.mu.RLock()
			for _, d := range swaps {
				ix.Put(d, indexDoc(v.entries[d]))
			}
			v.mu.RUnlock()
		}
		for _, m := range built {
			m.text = "" // indexed: PlainText derives it again when needed
		}
		v.mu.Lock()
		v.ix = ix
		v.mu.Unlock()
		// Decoding and the index's load read most of the file; from now
		// on only what a call reads need be resident.
		c.drop()
	}
	reads, recs, newRecs := 0, 0, 0
	for i := range res {
		r := &res[i]
		reads += boolInt(r.fresh)
		recs += boolInt(r.cacheable())
		newRecs += boolInt(r.fresh && r.cacheable())
	}
	v.mu.Lock()
	v.fromCache, v.cacheReads, v.cachePatched, v.cacheListed = c != nil && !rebuilt, reads, patched, listed
	v.mu.Unlock()
	// Files read for a problem of their own are read again next time
	// whatever the cache says: they alone are no reason to rewrite it.
	// So are folders that were listed, unless the listings saved hold
	// many files.
	if c == nil || rebuilt || patched > 0 || newRecs > 0 || recs != len(c.recs) || freshFiles >= folderRewriteFiles {
		// A cache that cannot be written costs the next process a load
		// from the files, nothing else.
		var drop func()
		if c != nil {
			drop = c.drop
		} else if spool != nil {
			drop = spool.Release
		}
		_ = v.writeIndexCache(res, folders, bs, drop)
	}
	return nil
}

// slowLoad calls Options.OnSlowLoad, once.
func (v *Vault) slowLoad() {
	if f := v.onSlowLoad; f != nil {
		v.onSlowLoad = nil
		f()
	}
}

// buildSum is what an index build consumed (see buildDigest).
type buildSum struct {
	digest [sha256.Size]byte
	keys   []byte // memoryKey of each memory inserted, in order
	swaps  int    // how many DocIDs preferTracked gave to other files
	pure   bool
}

// patchLimit is how many memories, added, removed or changed since the
// cached index was built, a load of n memories patches that index for
// rather than building one: patching costs about one pass over the
// posting lists plus the changed memories, building costs every memory.
func patchLimit(n int) int { return max(4, n/10) }

// buildDigest names what an index build consumes: the memories inserted,
// in order, each by its memoryKey, then the DocIDs preferTracked gave to
// other files. pure is false when some memory is not one the load read
// (a stale last version): such a build is never cached. res holds the
// files the load read, in path order, the order of built too; their
// keys were hashed as they were read (see loaded.key).
func buildDigest(built []*Memory, swaps []index.DocID, res []loaded) buildSum {
	bs := buildSum{keys: make([]byte, 0, len(built)*sha256.Size), swaps: len(swaps)}
	j := 0
	for _, m := range built {
		// The file m was read from, passing the files that gave no
		// memory indexed; a file of m's path with another memory (a
		// stale last version) makes the build impure.
		for j < len(res) && res[j].mem != m && res[j].rel < m.Path {
			j++
		}
		if j == len(res) || res[j].mem != m || m.Stale {
			return buildSum{}
		}
		r := &res[j]
		k := r.memoryKeySum()
		bs.keys = append(bs.keys, k[:]...)
	}
	h := sha256.New()
	h.Write(bs.keys)
	h.Write([]byte{0xff})
	for _, d := range swaps {
		h.Write(binary.AppendUvarint(nil, uint64(d)))
	}
	copy(bs.digest[:], h.Sum(nil))
	bs.pure = true
	return bs
}

// memoryKeySum is the SHA-256 of r's memoryKey: r.key when the reader
// set it.
func (r *loaded) memoryKeySum() [sha256.Size]byte {
	if r.keyed {
		return r.key
	}
	var buf [256]byte
	return sha256.Sum256(memoryKey(buf[:0], r))
}

// setKey hashes r's memoryKey into r.key, on the reader's goroutine: a
// build digest then costs no pass over the files of its own.
func (r *loaded) setKey() {
	var buf [256]byte
	r.key, r.keyed = sha256.Sum256(memoryKey(buf[:0], r)), true
}

// memoryKey appends to buf what the index of one memory is made of: its
// file's path, SHA-256 and modification time, and the SHA-256 of HEAD's
// version when that is what is served.
func memoryKey(buf []byte, r *loaded) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(r.rel)))
	buf = append(buf, r.rel...)
	buf = append(buf, r.sum[:]...)
	buf = binary.AppendVarint(buf, r.mod)
	if r.head != nil {
		buf = append(buf, 1)
		return append(buf, r.head[:]...)
	}
	return append(buf, 0)
}

// patchSnapshot is the index of built made from ix, c's snapshot as
// loaded (the patch changes it), whose build differs from this one in a
// few memories: the unchanged memories keep their documents under their
// new DocIDs, the others are dropped or analysed again, and the index is
// laid out as a fresh build lays it out (see index.Patch). It returns nil, and 0, when the difference is too
// large to be worth it, or when either build gave DocIDs to tracked files
// (preferTracked's re-insertions leave a layout no patch reproduces).
// Otherwise the second result is how many documents it dropped or put,
// whichever is more: about how many memories were added, removed or
// changed.
func patchSnapshot(c *indexCache, ix *index.Index, bs buildSum, built []*Memory) (*index.Index, int) {
	if bs.swaps != 0 || c.swaps != 0 {
		return nil, 0
	}
	old := len(c.keys) / sha256.Size
	at := make(map[[sha256.Size]byte]index.DocID, old)
	for d := range old {
		at[[sha256.Size]byte(c.keys[d*sha256.Size:])] = index.DocID(d)
	}
	to := make([]int, old) // DocID+1 in this build, 0 when dropped
	var put []index.Entry
	for i := range built {
		k := [sha256.Size]byte(bs.keys[i*sha256.Size:])
		if d, ok := at[k]; ok {
			to[d] = i + 1
			delete(at, k)
			continue
		}
		if len(put) >= patchLimit(len(built)) {
			return nil, 0
		}
		put = append(put, index.Entry{ID: index.DocID(i), Doc: indexDoc(built[i])})
	}
	// A changed (or moved) memory is one document dropped and one put.
	n := max(len(put), old-(len(built)-len(put)))
	if n == 0 || n > patchLimit(max(len(built), old)) {
		return nil, 0
	}
	if ix.Len() != old {
		return nil, 0
	}
	ix.Patch(func(d index.DocID) (index.DocID, bool) {
		if int(d) < old && to[d] > 0 {
			return index.DocID(to[d] - 1), true
		}
		return 0, false
	}, put, droppedDocs(c, at, put, built))
	if ix.Len() != len(built) {
		return nil, 0
	}
	return ix, n
}

// droppedDocs returns the documents of the memories a patch drops, as
// the cached build indexed them, or nil when some is not known. unmatched
// holds the keys of the dropped memories. The cache's records hold the
// memories it read; the one whose key is a dropped one's is the memory
// that build indexed. Only the paths of the memories put are looked at,
// which finds the memories changed in place: the case where knowing them
// saves work (see index.Patch).
func droppedDocs(c *indexCache, unmatched map[[sha256.Size]byte]index.DocID, put []index.Entry, built []*Memory) []index.Doc {
	docs := make([]index.Doc, 0, len(unmatched))
	var buf []byte
	for _, e := range put {
		rec := c.lookup(built[e.ID].Path)
		if rec == nil {
			continue
		}
		buf = memoryKey(buf[:0], &loaded{rel: rec.rel, sum: rec.sum, mod: rec.st.Mtime})
		if _, ok := unmatched[sha256.Sum256(buf)]; ok {
			docs = append(docs, indexDoc(rec.mem))
		}
	}
	if len(docs) != len(unmatched) {
		return nil
	}
	return docs
}

// readCachedFiles stats every file, then takes its memory from the
// cache's record of it when the record holds, or reads it. Files are
// handled on all cores. The stat'ing does not wait for the cache: rest
// returns it once decoded, nil when it cannot be, and then
// readCachedFiles returns no files. written is the cache file's
// modification time.
func (v *Vault) readCachedFiles(ctx context.Context, rels []string, written int64, rest func() *indexCache) ([]loaded, error) {
	res := make([]loaded, len(rels))
	if len(rels) == 0 {
		if rest() == nil {
			return nil, ctx.Err()
		}
		return res, ctx.Err()
	}
	workers := min(runtime.GOMAXPROCS(0), len(rels)/256+1)
	var bad atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var rs readerState
			defer rs.files.Close()
			from, to := w*len(rels)/workers, (w+1)*len(rels)/workers
			prefaultLoaded(res[from:to])
			for i := from; i < to; i++ {
				if ctx.Err() != nil {
					return
				}
				r := &res[i]
				r.st, r.stOK = rs.files.StatKey(rs.dir(v.dir, rels[i]))
			}
			c := rest()
			if c == nil {
				bad.Store(true)
				return
			}
			// rels and the records are both in path order: one search
			// finds where this worker's files start, then a cursor
			// follows them.
			j := c.search(rels[from])
			for i := from; i < to; i++ {
				if ctx.Err() != nil {
					return
				}
				// Usually the next record is the file's: one equality
				// test, no ordering comparison.
				if j < len(c.recs) && c.recs[j].rel != rels[i] {
					for j < len(c.recs) && c.recs[j].rel < rels[i] {
						j++
					}
				}
				var rec *cacheRecord
				if j < len(c.recs) && c.recs[j].rel == rels[i] {
					rec = &c.recs[j]
				}
				res[i] = v.readCachedFile(ctx, rels[i], rec, res[i].st, res[i].stOK, written, &rs)
			}
		})
	}
	wg.Wait()
	if bad.Load() {
		return nil, ctx.Err()
	}
	return res, ctx.Err()
}

// prefaultLoaded writes a number into every element of res, a fresh
// allocation, before anything stores pointers there. While the garbage
// collector runs, storing a pointer first reads the old one (the write
// barrier); the first touch of a fresh page being a read, the kernel maps
// its shared zero page, and the store that follows copies it and flushes
// the old mapping from every core running the process (a TLB shootdown,
// which perf showed costing more than the stores). A plain number needs
// no barrier: written first, each page is simply allocated.
func prefaultLoaded(res []loaded) {
	for i := range res {
		res[i].mod = 0
	}
}

// readCachedFile is readFile that takes the file's memory from rec, the
// cache's record of rel if any, when its stat data st (ok: it has some)
// is the record's, and the file was not changed at or after the cache
// was written (then a second change within the file system's timestamp
// granularity could leave the stat data as it was).
func (v *Vault) readCachedFile(ctx context.Context, rel string, rec *cacheRecord, st store.StatKey, ok bool, written int64, rs *readerState) loaded {
	if rec != nil && ok && rec.st == st && max(st.Mtime, st.Ctime) < written {
		// The record's key is the one setKey would compute here (see
		// encodeIndexCacheLocked).
		return loaded{rel: rel, mem: rec.mem, st: st, stOK: true, sum: rec.sum, mod: st.Mtime, mapped: true, key: rec.key, keyed: true}
	}
	return v.readFile(ctx, rel, rs)
}

// cacheFile is a mapped cache whose header and folder listings are
// decoded; the rest is decoded, and the checksum taken, apart.
type cacheFile struct {
	data    []byte
	written int64 // the file's modification time, Unix nanoseconds
	release func()
	drop    func(b []byte)
	r       *cacheReader // at the records
	folders []store.FolderRec
}

// openIndexCache maps the vault's cache and decodes its header and
// folder listings, or returns nil.
func (v *Vault) openIndexCache() *cacheFile {
	if v.cacheKey == "" {
		return nil
	}
	d, err := store.OpenDir(v.dir, false)
	if err != nil {
		return nil
	}
	defer d.Close()
	data, written, release, drop, err := store.MapCacheFile(d, store.IndexFileName, v.copyCache, checkCacheSize)
	if err != nil {
		return nil
	}
	r, folders, err := decodeCacheHead(data, v.cacheKey, v.maxFileSize)
	if err != nil {
		release()
		return nil
	}
	return &cacheFile{data: data, written: written, release: release, drop: drop, r: r, folders: folders}
}

// checksum reports whether the file's CRC-32 is right. It is computed a
// few megabytes at a time, each dropped from memory once summed, so that
// checking a large cache does not make all of it resident at once.
func (cf *cacheFile) checksum() bool {
	body := cf.data[:len(cf.data)-4]
	crc := crc32.NewIEEE()
	const chunk = 4 << 20
	for i := 0; i < len(body); i += chunk {
		part := body[i:min(len(body), i+chunk)]
		crc.Write(part)
		cf.drop(part)
	}
	return binary.LittleEndian.Uint32(cf.data[len(cf.data)-4:]) == crc.Sum32()
}

// decodeRest decodes the records and the rest after the folders, or
// returns nil. Nothing it returns is to be trusted before checksum has
// checked out.
func (cf *cacheFile) decodeRest() *indexCache {
	c, err := decodeCacheRest(cf.r)
	if err != nil {
		return nil
	}
	data := cf.data
	c.folders, c.written, c.drop, c.release = cf.folders, cf.written, func() { cf.drop(data) }, cf.release
	return c
}

// fsTime is the file system's clock, as far as the racy windows go (of
// the index cache, its folder listings and the header cache).
func (v *Vault) fsTime() time.Time {
	if v.fsNow != nil {
		return v.fsNow()
	}
	return time.Now()
}

// folderRewriteFiles is how many files the folders a load listed, and
// whose listings the cache lacks, must hold for the load to write the
// cache again for them alone: listing fewer costs less than a
// millisecond, rewriting a 100k vault's cache a third of a second.
const folderRewriteFiles = 1024

// writeIndexCache writes the cache for the files of res: a record for
// each that gave a memory and no diagnostic, and the vault's index with
// digest when pure. It writes a temporary file and renames it over the
// old cache, so a concurrent reader sees one or the other whole. An empty
// vault gets no cache: nothing is created before the first write.
//
// drop, when not nil, lets the memory of the cache this load read be
// reclaimed: writing reads every body and posting list, most of them
// pointing into that cache's mapping, and calling drop every few
// megabytes keeps them from all being resident at once.
func (v *Vault) writeIndexCache(res []loaded, folders []store.FolderRec, bs buildSum, drop func()) error {
	if v.cacheKey == "" || len(res) == 0 {
		return nil
	}
	d, err := store.OpenDir(v.dir, true)
	if err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	defer d.Close()
	tmp, name, err := store.CreateTemp(d, store.IndexFileName+".tmp-")
	if err != nil {
		return fmt.Errorf("index cache: %w", err)
	}
	// Streamed through a small buffer: a 100k vault's cache is over
	// 100 MB, which a load's peak memory should not hold twice.
	var out io.Writer = tmp
	if drop != nil {
		out = &droppingWriter{w: tmp, drop: drop}
	}
	bw := bufio.NewWriterSize(out, 1<<16)
	v.mu.RLock()
	err = v.encodeIndexCacheLocked(bw, res, folders, bs)
	v.mu.RUnlock()
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// By name inside the folder's handle: a link at the cache's
		// name is replaced, not followed.
		err = d.Rename(name, store.IndexFileName)
	}
	if err != nil {
		_ = d.Remove(name)
		return fmt.Errorf("index cache: %w", err)
	}
	return nil
}

// checkCacheSize refuses an index cache file whose size is not the one
// its trailer declares, reading the trailer alone.
func checkCacheSize(f *os.File, size int64) error {
	var tail [cacheTrailer]byte
	if size < cacheTrailer {
		return fmt.Errorf("%w: %d bytes", ErrBadCache, size)
	}
	if _, err := f.ReadAt(tail[:], size-cacheTrailer); err != nil {
		return fmt.Errorf("%w: trailer: %w", ErrBadCache, err)
	}
	if declared := binary.LittleEndian.Uint64(tail[:8]); declared != uint64(size) {
		return fmt.Errorf("%w: %d bytes, its trailer declares %d", ErrBadCache, size, declared)
	}
	return nil
}

// encodeIndexCacheLocked writes the cache; the caller holds v.mu.
//
// Format, little endian, uvarints unless said: the magic "MVCACHE\0", the
// format version, the writer's key (string: uvarint length and bytes), the
// file size limit; the records (count, then per record its path, size,
// mtime and ctime (zig-zag varints), inode, 32 bytes of SHA-256 and its
// memory's fields, the body as its offset and length in the body
// section); a flag and, when set, the 32-byte build digest, the
// memoryKey SHA-256 of each memory the build inserted (count, 32 bytes
// each), how many DocIDs preferTracked gave away, the index snapshot
// (length, then a byte saying how many zero bytes follow so that the
// snapshot starts at a multiple of 8 bytes into the file, which lets a
// mapped cache's term tables be used in place, then the bytes; see
// index.WriteTo); the body section (length,
// the bodies back to back); finally the trailer: the file's size in
// bytes, as 8 bytes, and the CRC-32 (IEEE) of everything before it, as 4
// bytes. The size is checked before anything else is read: a file grown
// by a tail (say 3 GiB of sparse zeros) is refused at once, not after a
// checksum over all of it.
func (v *Vault) encodeIndexCacheLocked(out io.Writer, res []loaded, folders []store.FolderRec, bs buildSum) error {
	crc := crc32.NewIEEE()
	var written countingWriter
	w := io.MultiWriter(out, crc, &written)
	var b []byte
	var werr error
	flush := func(force bool) {
		if (force || len(b) >= 32<<10) && werr == nil {
			_, werr = w.Write(b)
			b = b[:0]
		}
	}
	uv := func(x uint64) { b = binary.AppendUvarint(b, x) }
	sv := func(x int64) { b = binary.AppendVarint(b, x) }
	str := func(s string) { uv(uint64(len(s))); b = append(b, s...) }
	strs := func(l []string) {
		uv(uint64(len(l)))
		for _, s := range l {
			str(s)
		}
	}
	stat := func(k store.StatKey) { sv(k.Size); sv(k.Mtime); sv(k.Ctime); uv(k.Ino) }
	tm := func(t time.Time) {
		if t.IsZero() {
			b = append(b, 0)
			return
		}
		b = append(b, 1)
		sv(t.Unix())
		uv(uint64(t.Nanosecond()))
	}
	b = append(b, cacheMagic...)
	uv(cacheVersion)
	str(v.cacheKey)
	uv(uint64(v.maxFileSize))
	// The folders' listings come first: a load checks its folders
	// against them while it decodes the rest.
	uv(uint64(len(folders)))
	for _, f := range folders {
		str(f.Rel)
		stat(f.Stat)
		strs(f.Files)
		strs(f.Subdirs)
		flush(false)
	}
	n := 0
	for i := range res {
		if res[i].cacheable() {
			n++
		}
	}
	uv(uint64(n))
	bodyBytes := 0
	for i := range res {
		r := &res[i]
		if !r.cacheable() {
			continue
		}
		m := r.mem
		str(r.rel)
		stat(r.st)
		b = append(b, r.sum[:]...)
		// The memory's key as a load that finds the record holding
		// computes it: from the recorded modification time, which a
		// file changed while it was read may not share with r.mod.
		key := r.key
		if !r.keyed || r.mod != r.st.Mtime {
			var buf [256]byte
			key = sha256.Sum256(memoryKey(buf[:0], &loaded{rel: r.rel, sum: r.sum, mod: r.st.Mtime}))
		}
		b = append(b, key[:]...)
		str(m.ID)
		str(m.Title)
		uv(uint64(m.Layer))
		sv(int64(m.Importance))
		strs(m.Tags)
		strs(m.Aliases)
		tm(m.CreatedAt)
		tm(m.UpdatedAt)
		tm(m.EffectiveAt)
		tm(m.ExpiresAt)
		str(string(m.Status))
		strs(m.Supersedes)
		strs(m.Links)
		strs(m.Refs)
		tm(m.VerifiedAt)
		str(m.Source.Client)
		str(m.Source.Kind)
		sv(int64(m.Version))
		uv(uint64(bodyBytes))
		uv(uint64(len(m.Body)))
		bodyBytes += len(m.Body)
		strs(m.WikiLinks)
		sv(int64(m.idLine))
		sv(int64(m.supersedesLine))
		sv(int64(m.linksLine))
		sv(int64(m.statusLine))
		flush(false)
	}
	if !bs.pure || v.ix == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = append(b, bs.digest[:]...)
		uv(uint64(len(bs.keys) / sha256.Size))
		flush(true)
		if werr == nil {
			_, werr = w.Write(bs.keys)
		}
		uv(uint64(bs.swaps))
		// The snapshot's length comes first: a pass that only counts
		// finds it.
		var count countingWriter
		if _, err := v.ix.WriteTo(&count); err != nil {
			return fmt.Errorf("index cache: %w", err)
		}
		uv(uint64(count))
		// The snapshot starts at a multiple of 8 bytes into the file, so
		// that a mapped cache's term tables are aligned to be used in
		// place (see index.LoadSnapshot).
		pad := (8 - (int(written)+len(b)+1)%8) % 8
		b = append(b, byte(pad))
		b = append(b, make([]byte, pad)...)
		flush(true)
		if werr == nil {
			if n, err := v.ix.WriteTo(w); err != nil {
				werr = err
			} else if n != int64(count) {
				werr = fmt.Errorf("index snapshot of %d bytes, then %d", count, n)
			}
		}
	}
	// The bodies come last, back to back: a load maps the file and
	// touches a body only when something reads it (see store.MapCacheFile).
	uv(uint64(bodyBytes))
	for i := range res {
		if r := &res[i]; r.cacheable() {
			b = append(b, r.mem.Body...)
			flush(false)
		}
	}
	flush(true)
	// The trailer: the file's size, then the checksum of all before it.
	b = binary.LittleEndian.AppendUint64(b, uint64(written)+cacheTrailer)
	flush(true)
	if werr == nil {
		_, werr = out.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	}
	if werr != nil {
		return fmt.Errorf("index cache: %w", werr)
	}
	return nil
}

// cacheable reports whether r goes into the cache: a memory made from the
// file's bytes alone, with no diagnostic, and stat data to check it by.
// A stale or conflicted memory never does (both come with diagnostics).
func (r *loaded) cacheable() bool {
	return r.mem != nil && len(r.diags) == 0 && r.head == nil && r.stOK && !r.mem.Stale && len(r.mem.Conflicted) == 0
}

// droppingWriter calls drop after every dropEvery bytes written through
// it (see writeIndexCache).
type droppingWriter struct {
	w    io.Writer
	n    int
	drop func()
}

const dropEvery = 8 << 20

func (d *droppingWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	if d.n += n; d.n >= dropEvery {
		d.n = 0
		d.drop()
	}
	return n, err
}

// countingWriter counts the bytes written to it.
type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// cacheReader decodes a cache held in memory. Strings are slices of one
// string over the whole buffer: the memories restored from a cache share
// its memory instead of each holding copies.
type cacheReader struct {
	b     []byte
	s     string // the same bytes as b
	i     int
	err   error
	arena []string // what strs hands out next
}

func (r *cacheReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrBadCache}, args...)...)
	}
}

func (r *cacheReader) uv() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.fail("truncated at %d", r.i)
		return 0
	}
	r.i += n
	return x
}

// stat reads a store.StatKey as the cache's writer wrote it.
func (r *cacheReader) stat() store.StatKey {
	return store.StatKey{Size: r.sv(), Mtime: r.sv(), Ctime: r.sv(), Ino: r.uv()}
}

func (r *cacheReader) sv() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.fail("truncated at %d", r.i)
		return 0
	}
	r.i += n
	return x
}

// count reads a count of items that take at least min bytes each.
func (r *cacheReader) count(min int) int {
	n := r.uv()
	if n > uint64(len(r.b)-r.i)/uint64(min) {
		r.fail("count %d at %d exceeds the data", n, r.i)
		return 0
	}
	return int(n)
}

func (r *cacheReader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.i {
		r.fail("truncated at %d", r.i)
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

func (r *cacheReader) str() string {
	n := r.count(1)
	if r.err != nil || n == 0 {
		return ""
	}
	r.i += n
	return r.s[r.i-n : r.i]
}

func (r *cacheReader) strs() []string {
	n := r.count(1)
	if n == 0 {
		return nil
	}
	// Carved from a shared block, without spare capacity: an append to
	// one copies it rather than overwrite the next.
	if n > len(r.arena) {
		r.arena = make([]string, max(n, 4096))
		for k := range r.arena { // see prefaultLoaded; a length is a number
			(*struct {
				p unsafe.Pointer
				n int
			})(unsafe.Pointer(&r.arena[k])).n = 0
		}
	}
	out := r.arena[:n:n]
	r.arena = r.arena[n:]
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *cacheReader) tm() time.Time {
	switch f := r.bytes(1); {
	case f == nil:
		return time.Time{}
	case f[0] == 0:
		return time.Time{}
	case f[0] == 1:
		sec := r.sv()
		ns := r.uv()
		if ns >= 1e9 {
			r.fail("bad nanoseconds at %d", r.i)
			return time.Time{}
		}
		return time.Unix(sec, int64(ns)).UTC()
	default:
		r.fail("bad time flag at %d", r.i)
		return time.Time{}
	}
}

// decodeIndexCache decodes and checks a cache written with key and the
// file size limit maxSize. The memories it returns share data's memory,
// which must not change afterwards.
func decodeIndexCache(data []byte, key string, maxSize int64) (*indexCache, error) {
	if len(data) < len(cacheMagic)+cacheTrailer {
		return nil, fmt.Errorf("%w: not an index cache", ErrBadCache)
	}
	if binary.LittleEndian.Uint32(data[len(data)-4:]) != crc32.ChecksumIEEE(data[:len(data)-4]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrBadCache)
	}
	r, folders, err := decodeCacheHead(data, key, maxSize)
	if err != nil {
		return nil, err
	}
	c, err := decodeCacheRest(r)
	if err != nil {
		return nil, err
	}
	c.folders = folders
	return c, nil
}

// decodeCacheHead decodes a cache's header and folder listings, and
// returns a reader at its records.
func decodeCacheHead(data []byte, key string, maxSize int64) (*cacheReader, []store.FolderRec, error) {
	if len(data) < len(cacheMagic)+cacheTrailer || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, nil, fmt.Errorf("%w: not an index cache", ErrBadCache)
	}
	if n := binary.LittleEndian.Uint64(data[len(data)-cacheTrailer:]); n != uint64(len(data)) {
		return nil, nil, fmt.Errorf("%w: %d bytes, its trailer declares %d", ErrBadCache, len(data), n)
	}
	body := data[:len(data)-cacheTrailer]
	r := &cacheReader{b: body, s: unsafe.String(unsafe.SliceData(body), len(body)), i: len(cacheMagic)}
	if ver := r.uv(); r.err == nil && ver != cacheVersion {
		return nil, nil, fmt.Errorf("%w: format %d, want %d", ErrBadCache, ver, cacheVersion)
	}
	if k := r.str(); r.err == nil && k != key {
		return nil, nil, fmt.Errorf("%w: written by another program (%q)", ErrBadCache, k)
	}
	if m := r.uv(); r.err == nil && m != uint64(maxSize) {
		return nil, nil, fmt.Errorf("%w: file size limit %d, want %d", ErrBadCache, m, maxSize)
	}
	folders := make([]store.FolderRec, r.count(1+4+2))
	for i := range folders {
		f := &folders[i]
		f.Rel = r.str()
		f.Stat = r.stat()
		f.Files, f.Subdirs = r.strs(), r.strs()
		if r.err != nil {
			break
		}
		if i > 0 && f.Rel <= folders[i-1].Rel || !folderListingValid(f) {
			r.fail("folder %q out of order or listing what it cannot hold", f.Rel)
			break
		}
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	return r, folders, nil
}

// folderListingValid reports whether f lists files and folders directly
// in its folder, files in path order, as a listing gives them.
func folderListingValid(f *store.FolderRec) bool {
	prefix := ""
	if f.Rel != "" {
		if strings.HasPrefix(f.Rel, "/") || strings.HasSuffix(f.Rel, "/") {
			return false
		}
		prefix = f.Rel + "/"
	}
	direct := func(p string) bool {
		name, ok := strings.CutPrefix(p, prefix)
		return ok && name != "" && !strings.Contains(name, "/") && !strings.HasPrefix(name, ".")
	}
	for i, p := range f.Files {
		if !direct(p) || !IsMemoryPath(p) || i > 0 && p <= f.Files[i-1] {
			return false
		}
	}
	for _, p := range f.Subdirs {
		if !direct(p) {
			return false
		}
	}
	return true
}

// decodeCacheRest decodes the records and what follows them.
func decodeCacheRest(r *cacheReader) (*indexCache, error) {
	body := r.b
	c := &indexCache{}
	c.recs = make([]cacheRecord, r.count(1+4+2*sha256.Size+20))
	type span struct{ off, n uint64 }
	bodies := make([]span, len(c.recs))
	// The memories and their short hashes are allocated together, two
	// allocations instead of 200k: a vault keeps them all anyway.
	mems := make([]Memory, len(c.recs))
	hashes := make([]byte, len(c.recs)*hashLen)
	for i := range mems { // see prefaultLoaded
		mems[i].Version, c.recs[i].st.Size = 0, 0
	}
	for i := range c.recs {
		rec := &c.recs[i]
		rec.rel = r.str()
		rec.st = r.stat()
		copy(rec.sum[:], r.bytes(sha256.Size))
		copy(rec.key[:], r.bytes(sha256.Size))
		m := &mems[i]
		*m = Memory{ID: r.str(), Title: r.str(), Layer: Layer(r.uv()), Importance: int(r.sv()),
			Tags: r.strs(), Aliases: r.strs(), CreatedAt: r.tm(), UpdatedAt: r.tm(), EffectiveAt: r.tm(),
			ExpiresAt: r.tm(), Status: Status(r.str()), Supersedes: r.strs(), Links: r.strs(), Refs: r.strs(),
			VerifiedAt: r.tm(), Source: Source{Client: r.str(), Kind: r.str()}, Version: int(r.sv())}
		bodies[i] = span{r.uv(), r.uv()} // Body is set once the section is found
		m.WikiLinks = r.strs()
		m.idLine, m.supersedesLine, m.linksLine, m.statusLine = int(r.sv()), int(r.sv()), int(r.sv()), int(r.sv())
		if r.err != nil {
			break
		}
		if !IsMemoryPath(rec.rel) || i > 0 && rec.rel <= c.recs[i-1].rel {
			r.fail("record %q out of order or not a memory path", rec.rel)
			break
		}
		if _, err := ParseStatus(string(m.Status)); err != nil || m.Status == "" || !m.Layer.Valid() || m.ID == "" {
			r.fail("record %q is not a memory the loader makes", rec.rel)
			break
		}
		h := hashes[i*hashLen : (i+1)*hashLen]
		hex.Encode(h, rec.sum[:hashLen/2])
		m.Path, m.Hash = rec.rel, unsafe.String(&h[0], hashLen) // h never changes
		rec.mem = m
	}
	switch flag := r.bytes(1); {
	case r.err != nil:
	case flag[0] == 1:
		copy(c.digest[:], r.bytes(sha256.Size))
		c.keys = r.bytes(r.count(sha256.Size) * sha256.Size)
		c.swaps = r.count(1)
		n := r.count(1)
		if pad := r.bytes(1); pad != nil && (pad[0] >= 8 || string(r.bytes(int(pad[0]))) != string(make([]byte, pad[0]))) {
			r.fail("bad padding before the index")
		}
		c.snap = r.bytes(n)
	case flag[0] != 0:
		r.fail("bad index flag")
	}
	n := uint64(r.count(1))
	start := r.i
	r.bytes(int(n))
	if r.err != nil {
		return nil, r.err
	}
	for i, sp := range bodies {
		if sp.off > n || sp.n > n-sp.off {
			return nil, fmt.Errorf("%w: body of %q outside the body section", ErrBadCache, c.recs[i].rel)
		}
		c.recs[i].mem.Body = r.s[start+int(sp.off) : start+int(sp.off+sp.n)]
	}
	if r.i != len(body) {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrBadCache, len(body)-r.i)
	}
	return c, nil
}
