package vault

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"runtime"
	"slices"
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

// indexCache is a decoded index cache, and cacheRecord one file in it.
type (
	indexCache  = store.Cache[Memory]
	cacheRecord = store.Record[Memory]
)

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
	var cf *store.IndexFile[Memory]
	if v.load.cacheKey != "" {
		cf = store.OpenIndex[Memory](v.dir, v.load.cacheKey, v.maxFileSize, v.load.copyCache)
	}
	var c *indexCache
	var snapIx *index.Index
	decoded, snapDone, summed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var prev []store.FolderRec
	sumOK := false
	if cf != nil {
		prev = cf.Folders
		go func() {
			defer close(summed)
			sumOK = cf.Checksum()
		}()
		go func() {
			defer close(snapDone)
			c = cf.DecodeRest(&memCodec{})
			close(decoded)
			if c == nil || c.Snap == nil {
				return
			}
			// The cache's checksum covers the snapshot; it is used
			// only if the checksum then checks out.
			if ix := index.New(); ix.LoadCheckedSnapshot(c.Snap) == nil {
				// A pass over all its posting lists (a patch below,
				// the first change a write makes) reads the mapping
				// through: let the pages it has read go as it goes.
				ix.SetSnapshotRelease(c.Drop, store.DropEvery)
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
		res, err = v.readCachedFiles(ctx, rels, cf.Written, func() *indexCache { <-decoded; return c })
	}
	<-summed
	if cf != nil && (err != nil || c == nil || !sumOK) {
		// Nothing points into the mapping once the index load is done
		// and what was taken from it dropped.
		<-snapDone
		c, snapIx, res = nil, nil, nil
		cf.Release()
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
		<-snapDone
		rebuilt, patched = v.installCachedIndex(c, snapIx, bs, built, swaps)
	}
	reads, recs, newRecs := 0, 0, 0
	for i := range res {
		r := &res[i]
		reads += boolInt(r.fresh)
		recs += boolInt(r.cacheable())
		newRecs += boolInt(r.fresh && r.cacheable())
	}
	v.mu.Lock()
	v.load.stats = loadStats{fromCache: c != nil && !rebuilt, read: reads, patched: patched, listed: listed}
	v.mu.Unlock()
	// Files read for a problem of their own are read again next time
	// whatever the cache says: they alone are no reason to rewrite it.
	// So are folders that were listed, unless the listings saved hold
	// many files.
	if c == nil || rebuilt || patched > 0 || newRecs > 0 || recs != len(c.Recs) || freshFiles >= folderRewriteFiles {
		// A cache that cannot be written costs the next process a load
		// from the files, nothing else.
		var drop func()
		if c != nil {
			drop = c.Drop
		} else if spool != nil {
			drop = spool.Release
		}
		_ = v.writeIndexCache(res, folders, bs, drop)
	}
	return nil
}

// installCachedIndex installs the index of a load whose memories came
// from the cache c: c's snapshot snapIx (nil when it had none that
// loaded) when this load's build is the one it was made from, the
// snapshot patched when the builds differ in a few memories, or else an
// index built from built as Reload builds it. It reports whether the
// index was built, and for how many memories it was patched.
func (v *Vault) installCachedIndex(c *indexCache, snapIx *index.Index, bs buildSum, built []*Memory, swaps []index.DocID) (rebuilt bool, patched int) {
	var ix *index.Index
	if bs.pure && snapIx != nil && c.Digest == bs.digest {
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
	// Decoding and the index's load read most of the file; from now on
	// only what a call reads need be resident.
	c.Drop()
	return rebuilt, patched
}

// slowLoad calls Options.OnSlowLoad, once.
func (v *Vault) slowLoad() {
	if f := v.load.onSlowLoad; f != nil {
		v.load.onSlowLoad = nil
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
	if bs.swaps != 0 || c.Swaps != 0 {
		return nil, 0
	}
	old := len(c.Keys) / sha256.Size
	at := make(map[[sha256.Size]byte]index.DocID, old)
	for d := range old {
		at[[sha256.Size]byte(c.Keys[d*sha256.Size:])] = index.DocID(d)
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
		rec := c.Lookup(built[e.ID].Path)
		if rec == nil {
			continue
		}
		buf = memoryKey(buf[:0], &loaded{rel: rec.Rel, sum: rec.Sum, mod: rec.Stat.Mtime})
		if _, ok := unmatched[sha256.Sum256(buf)]; ok {
			docs = append(docs, indexDoc(rec.Mem))
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
			j := c.Search(rels[from])
			for i := from; i < to; i++ {
				if ctx.Err() != nil {
					return
				}
				// Usually the next record is the file's: one equality
				// test, no ordering comparison.
				if j < len(c.Recs) && c.Recs[j].Rel != rels[i] {
					for j < len(c.Recs) && c.Recs[j].Rel < rels[i] {
						j++
					}
				}
				var rec *cacheRecord
				if j < len(c.Recs) && c.Recs[j].Rel == rels[i] {
					rec = &c.Recs[j]
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
	if rec != nil && ok && rec.Stat == st && max(st.Mtime, st.Ctime) < written {
		// The record's key is the one setKey would compute here (see
		// cacheRecords).
		return loaded{rel: rel, mem: rec.Mem, st: st, stOK: true, sum: rec.Sum, mod: st.Mtime, mapped: true, key: rec.Key, keyed: true}
	}
	return v.readFile(ctx, rel, rs)
}

// fsTime is the file system's clock, as far as the racy windows go (of
// the index cache, its folder listings and the header cache).
func (v *Vault) fsTime() time.Time {
	if v.hooks.fsNow != nil {
		return v.hooks.fsNow()
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
	if v.load.cacheKey == "" || len(res) == 0 {
		return nil
	}
	iw := store.IndexWrite[Memory]{Key: v.load.cacheKey, MaxSize: v.maxFileSize, Folders: folders,
		Records: cacheRecords(res), Codec: &memCodec{}, Drop: drop}
	v.mu.RLock()
	defer v.mu.RUnlock()
	if bs.pure && v.ix != nil {
		iw.Index = &store.IndexSection{Digest: bs.digest, Keys: bs.keys, Swaps: bs.swaps, Snapshot: v.ix}
	}
	return store.WriteIndex(v.dir, iw)
}

// cacheRecords yields the records of the files of res the cache keeps
// (see cacheable), one reused Record.
func cacheRecords(res []loaded) func(yield func(*cacheRecord) bool) {
	return func(yield func(*cacheRecord) bool) {
		var rec cacheRecord
		for i := range res {
			r := &res[i]
			if !r.cacheable() {
				continue
			}
			// The memory's key as a load that finds the record holding
			// computes it: from the recorded modification time, which a
			// file changed while it was read may not share with r.mod.
			key := r.key
			if !r.keyed || r.mod != r.st.Mtime {
				var buf [256]byte
				key = sha256.Sum256(memoryKey(buf[:0], &loaded{rel: r.rel, sum: r.sum, mod: r.st.Mtime}))
			}
			rec = cacheRecord{Rel: r.rel, Stat: r.st, Sum: r.sum, Key: key, Mem: r.mem}
			if !yield(&rec) {
				return
			}
		}
	}
}

// cacheable reports whether r goes into the cache: a memory made from the
// file's bytes alone, with no diagnostic, and stat data to check it by.
// A stale or conflicted memory never does (both come with diagnostics).
func (r *loaded) cacheable() bool {
	return r.mem != nil && len(r.diags) == 0 && r.head == nil && r.stOK && !r.mem.Stale && len(r.mem.Conflicted) == 0
}

// memCodec is the index cache's codec of a Memory: the fields its file
// gave. It allocates the decoded memories' short hashes together.
type memCodec struct {
	hashes []byte
}

func (c *memCodec) Prepare(mems []Memory) {
	c.hashes = make([]byte, len(mems)*hashLen)
	for i := range mems { // see prefaultLoaded
		mems[i].Version = 0
	}
}

func (*memCodec) Body(m *Memory) *string { return &m.Body }

func (*memCodec) Encode(w *store.Writer, m *Memory, off int) {
	w.Str(m.ID)
	w.Str(m.Title)
	w.Uv(uint64(m.Layer))
	w.Sv(int64(m.Importance))
	w.Strs(m.Tags)
	w.Strs(m.Aliases)
	w.Tm(m.CreatedAt)
	w.Tm(m.UpdatedAt)
	w.Tm(m.EffectiveAt)
	w.Tm(m.ExpiresAt)
	w.Str(string(m.Status))
	w.Strs(m.Supersedes)
	w.Strs(m.Links)
	w.Strs(m.Refs)
	w.Tm(m.VerifiedAt)
	w.Str(m.Source.Client)
	w.Str(m.Source.Kind)
	w.Sv(int64(m.Version))
	w.Uv(uint64(off))
	w.Uv(uint64(len(m.Body)))
	w.Strs(m.WikiLinks)
	w.Sv(int64(m.idLine))
	w.Sv(int64(m.supersedesLine))
	w.Sv(int64(m.linksLine))
	w.Sv(int64(m.statusLine))
}

func (c *memCodec) Decode(r *store.Reader, i int, rec *cacheRecord, m *Memory) (off, n uint64) {
	*m = Memory{ID: r.Str(), Title: r.Str(), Layer: Layer(r.Uv()), Importance: int(r.Sv()),
		Tags: r.Strs(), Aliases: r.Strs(), CreatedAt: r.Tm(), UpdatedAt: r.Tm(), EffectiveAt: r.Tm(),
		ExpiresAt: r.Tm(), Status: Status(r.Str()), Supersedes: r.Strs(), Links: r.Strs(), Refs: r.Strs(),
		VerifiedAt: r.Tm(), Source: Source{Client: r.Str(), Kind: r.Str()}, Version: int(r.Sv())}
	off, n = r.Uv(), r.Uv()
	m.WikiLinks = r.Strs()
	m.idLine, m.supersedesLine, m.linksLine, m.statusLine = int(r.Sv()), int(r.Sv()), int(r.Sv()), int(r.Sv())
	if r.Err() != nil {
		return 0, 0
	}
	if _, err := ParseStatus(string(m.Status)); err != nil || m.Status == "" || !m.Layer.Valid() || m.ID == "" {
		r.Fail("record %q is not a memory the loader makes", rec.Rel)
		return 0, 0
	}
	h := c.hashes[i*hashLen : (i+1)*hashLen]
	hex.Encode(h, rec.Sum[:hashLen/2])
	m.Path, m.Hash = rec.Rel, unsafe.String(&h[0], hashLen) // h never changes
	return off, n
}

// decodeIndexCache decodes and checks a whole cache written with key and
// the file size limit maxSize (see store.DecodeIndex).
func decodeIndexCache(data []byte, key string, maxSize int64) (*indexCache, error) {
	return store.DecodeIndex(data, key, maxSize, &memCodec{})
}
