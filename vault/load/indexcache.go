package load

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"slices"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/store"
)

// The index cache (Config.IndexCache) keeps, between processes, what
// loading a vault computes from each file's bytes alone, so that the next
// load skips reading and parsing files that did not change, and usually
// analysing them for the index too. It memoises pure functions only:
//
//   - per file, the memory Rules.Parse makes of it, kept only for files
//     that gave no diagnostic (a file with a problem is read again each
//     time, so its problem is reported as found, and a file holding
//     conflict markers, whose served version comes from HEAD, never enters
//     it). An entry is trusted while the file's stat data (size,
//     modification and change times in nanoseconds, inode) is what was
//     recorded and the file was not changed at or after the moment the
//     cache was written (git's "racily clean" entries); otherwise the file
//     is read and parsed.
//   - the search index a fresh load builds, with a digest of what that
//     build consumed: every memory in index order (path, SHA-256 and
//     modification time of its file) and the ids the Sink's Install handed
//     to tracked files. It is used as it is when this load's own
//     decisions, made afresh, give the same digest. When they differ in a
//     few memories (an edit from another process), it is patched: the
//     documents of the memories added, removed or changed are dropped or
//     analysed again, and the index is laid out as a fresh build lays it
//     out (see patchSnapshot). Otherwise the index is built from the
//     memories, exactly as a fresh load builds it.
//   - per folder, its listing, used while the folder's stat data is what
//     was recorded (see store.ScanFolders).
//
// Every decision that depends on more than one file's bytes (duplicate
// ids, which file git tracks, HEAD's version of a conflicted file,
// supersession) is made again on every load. The cache is one file in a
// git-ignored folder of the vault, with a format version, the key of the
// program that wrote it (Config.IndexCache) and a CRC-32 over all of it;
// one that does not check out is ignored and rewritten.

// openedIndex is an index cache being opened: its head read, the rest
// decoded, its checksum taken and its index loaded on goroutines of their
// own.
type openedIndex[T any] struct {
	f      *store.IndexFile[T]
	c      *store.Cache[T]
	snapIx *index.Index
	// decoded closes once c is set, snapDone once snapIx is, summed
	// once sumOK is.
	decoded, snapDone, summed chan struct{}
	sumOK                     bool
}

// openIndex starts opening the index cache; nil when there is none to
// open.
func (l *loader[T, S]) openIndex() *openedIndex[T] {
	f := store.OpenIndex[T](l.Dir, l.IndexCache, l.MaxFileSize, l.CopyCache)
	if f == nil {
		return nil
	}
	o := &openedIndex[T]{f: f, decoded: make(chan struct{}), snapDone: make(chan struct{}), summed: make(chan struct{})}
	go func() {
		defer close(o.summed)
		o.sumOK = f.Checksum()
	}()
	go func() {
		defer close(o.snapDone)
		o.c = f.DecodeRest(l.Rules.IndexCodec())
		close(o.decoded)
		if o.c == nil || o.c.Snap == nil {
			return
		}
		// The cache's checksum covers the snapshot; it is used only if
		// the checksum then checks out.
		if ix := index.New(); ix.LoadCheckedSnapshot(o.c.Snap) == nil {
			// A pass over all its posting lists (a patch, the first
			// change a write makes) reads the mapping through: let the
			// pages it has read go as it goes.
			ix.SetSnapshotRelease(o.c.Drop, store.DropEvery)
			o.snapIx = ix
		}
	}()
	return o
}

// cached is a full load with the index cache. Files are taken from the
// cache where it holds them unchanged and read otherwise; the Sink's
// decisions are made as in any load; the index is the cached one if the
// same build made it, else patched or built. Without a usable cache it is
// the pipelined load that also notes what the cache records. The cache
// is rewritten when it lacked something.
func (l *loader[T, S]) cached(ctx context.Context) (Stats, error) {
	// The folders are checked against the listings the cache recorded
	// (listed where they changed) and the files stat'ed while the rest
	// of the cache is decoded, its checksum taken and its index loaded:
	// stat'ing waits on the file system, the rest works the CPU, and the
	// machine may have a core to spare. Nothing the cache holds is used
	// before its checksum checks out; the index is used only if this
	// load's build turns out to be the cache's, or close to it.
	o := l.openIndex()
	var prev []store.FolderRec
	if o != nil {
		prev = o.f.Folders
	}
	rels, folders, listed, freshFiles, err := store.ScanFolders(ctx, l.Dir, prev, l.fsTime())
	var res []File[T, S]
	var c *store.Cache[T]
	if o != nil {
		if err == nil {
			res, err = l.readCachedFiles(ctx, rels, o)
		}
		<-o.summed
		if c = o.c; err != nil || c == nil || !o.sumOK {
			// Nothing points into the mapping once the index load is
			// done and what was taken from it dropped.
			<-o.snapDone
			c, res = nil, nil
			o.f.Release()
			if err == nil && prev != nil {
				// The listings taken from the cache pointed into it:
				// list every folder.
				rels, folders, listed, freshFiles, err = store.ScanFolders(ctx, l.Dir, nil, l.fsTime())
			}
		}
		defer func() { <-o.snapDone }() // an error below leaves it running
	}
	if err != nil {
		return Stats{}, err
	}
	var spool *store.Spool // bodies of a load from files, off the heap
	if c == nil {
		res, spool, err = l.readSpooled(ctx, rels)
	} else {
		l.sink.Begin(len(rels), nil)
		for i := range res {
			l.sink.Add(&res[i])
		}
	}
	if err != nil {
		return Stats{}, err
	}
	built := slices.Clone(l.sink.Built()) // Install changes the installed ones
	swaps := l.sink.Install(ctx)
	bs := l.buildDigest(built, swaps, res)
	st := Stats{Listed: listed}
	rebuilt := false
	if c != nil {
		<-o.snapDone
		rebuilt, st.Patched = l.installCachedIndex(c, o.snapIx, bs, built, swaps)
	}
	recs, newRecs := 0, 0
	for i := range res {
		r := &res[i]
		st.Read += boolInt(r.fresh)
		recs += boolInt(l.cacheable(r))
		newRecs += boolInt(r.fresh && l.cacheable(r))
	}
	st.FromCache = c != nil && !rebuilt
	// Files read for a problem of their own are read again next time
	// whatever the cache says: they alone are no reason to rewrite it.
	// So are folders that were listed, unless the listings saved hold
	// many files.
	if c == nil || rebuilt || st.Patched > 0 || newRecs > 0 || recs != len(c.Recs) || freshFiles >= folderRewriteFiles {
		// A cache that cannot be written costs the next process a load
		// from the files, nothing else.
		var drop func()
		if c != nil {
			drop = c.Drop
		} else if spool != nil {
			drop = spool.Release
		}
		_ = l.writeIndexCache(res, folders, bs, drop)
	}
	return st, nil
}

// readSpooled is the load of a vault whose index cache could not be
// used: every file read and indexed as they come, the results kept for
// the cache, their bodies parked in a spool, off the heap, until the
// load is done.
func (l *loader[T, S]) readSpooled(ctx context.Context, rels []string) ([]File[T, S], *store.Spool, error) {
	l.slow()
	res := make([]File[T, S], 0, len(rels))
	ix := index.New()
	l.sink.Begin(len(rels), ix)
	var spool *store.Spool
	if len(rels) > 0 {
		spool = store.OpenSpool(l.Dir)
	}
	codec := l.Rules.IndexCodec()
	err := l.readEach(ctx, rels, ix, func(r *File[T, S]) {
		l.sink.Add(r)
		r.Prep = nil
		if r.Mem != nil {
			spool.Park(codec.Body(r.Mem))
		}
		res = append(res, *r)
	})
	if serr := spool.Restore(); err == nil {
		err = serr
	}
	return res, spool, err
}

// installCachedIndex installs the index of a load whose memories came
// from the cache c: c's snapshot snapIx (nil when it had none that
// loaded) when this load's build is the one it was made from, the
// snapshot patched when the builds differ in a few memories, or else an
// index built from built as a load without the cache builds it. It
// reports whether the index was built, and for how many memories it was
// patched.
func (l *loader[T, S]) installCachedIndex(c *store.Cache[T], snapIx *index.Index, bs buildSum, built []*T, swaps []index.DocID) (rebuilt bool, patched int) {
	var ix *index.Index
	if bs.pure && snapIx != nil && c.Digest == bs.digest {
		if snapIx.Len() == len(built) {
			ix = snapIx
		}
	} else if bs.pure && snapIx != nil {
		l.slow()
		ix, patched = l.patchSnapshot(c, snapIx, bs, built)
	}
	if ix == nil {
		l.slow()
		// The same insertions, in the same order, as a load without the
		// cache.
		rebuilt = true
		ix = index.New()
		batch := make([]index.Entry, len(built))
		for i, m := range built {
			batch[i] = index.Entry{ID: index.DocID(i), Doc: l.Rules.Doc(m)}
		}
		ix.PutBatch(batch)
		ix.Trim()
		for _, d := range swaps {
			ix.Put(d, l.Rules.Doc(l.sink.Entry(d)))
		}
	}
	l.sink.UseIndex(ix, built)
	// Decoding and the index's load read most of the file; from now on
	// only what a call reads need be resident.
	c.Drop()
	return rebuilt, patched
}

// buildSum is what an index build consumed (see buildDigest).
type buildSum struct {
	digest [sha256.Size]byte
	keys   []byte // memoryKey of each memory inserted, in order
	swaps  int    // how many DocIDs Install gave to other files
	pure   bool
}

// patchLimit is how many memories, added, removed or changed since the
// cached index was built, a load of n memories patches that index for
// rather than building one: patching costs about one pass over the
// posting lists plus the changed memories, building costs every memory.
func patchLimit(n int) int { return max(4, n/10) }

// buildDigest names what an index build consumes: the memories inserted,
// in order, each by its memoryKey, then the DocIDs Install gave to other
// files. pure is false when some memory is not one the load read (a
// stale last version): such a build is never cached. res holds the files
// the load read, in path order, the order of built too; their keys were
// hashed as they were read (see File.key).
func (l *loader[T, S]) buildDigest(built []*T, swaps []index.DocID, res []File[T, S]) buildSum {
	bs := buildSum{keys: make([]byte, 0, len(built)*sha256.Size), swaps: len(swaps)}
	j := 0
	for _, m := range built {
		// The file m was read from, passing the files that gave no
		// memory indexed; a file of m's path with another memory (a
		// stale last version) makes the build impure.
		for j < len(res) && res[j].Mem != m && res[j].Rel < l.Rules.Path(m) {
			j++
		}
		if j == len(res) || res[j].Mem != m || l.Rules.Stale(m) {
			return buildSum{}
		}
		k := res[j].memoryKeySum()
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
func (r *File[T, S]) memoryKeySum() [sha256.Size]byte {
	if r.keyed {
		return r.key
	}
	var buf [256]byte
	return sha256.Sum256(memoryKey(buf[:0], r.Rel, r.sum, r.mod, r.head))
}

// setKey hashes r's memoryKey into r.key, on the reader's goroutine: a
// build digest then costs no pass over the files of its own.
func (r *File[T, S]) setKey() {
	var buf [256]byte
	r.key, r.keyed = sha256.Sum256(memoryKey(buf[:0], r.Rel, r.sum, r.mod, r.head)), true
}

// memoryKey appends to buf what the index of one memory is made of: its
// file's path rel, SHA-256 sum and modification time mod, and the
// SHA-256 of the bytes served, head, when those are not the file's.
func memoryKey(buf []byte, rel string, sum [sha256.Size]byte, mod int64, head *[sha256.Size]byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(rel)))
	buf = append(buf, rel...)
	buf = append(buf, sum[:]...)
	buf = binary.AppendVarint(buf, mod)
	if head != nil {
		buf = append(buf, 1)
		return append(buf, head[:]...)
	}
	return append(buf, 0)
}

// patchSnapshot is the index of built made from ix, c's snapshot as
// loaded (the patch changes it), whose build differs from this one in a
// few memories: the unchanged memories keep their documents under their
// new DocIDs, the others are dropped or analysed again, and the index is
// laid out as a fresh build lays it out (see index.Patch). It returns
// nil, and 0, when the difference is too large to be worth it, or when
// either build gave DocIDs to tracked files (Install's re-insertions
// leave a layout no patch reproduces). Otherwise the second result is how
// many documents it dropped or put, whichever is more: about how many
// memories were added, removed or changed.
func (l *loader[T, S]) patchSnapshot(c *store.Cache[T], ix *index.Index, bs buildSum, built []*T) (*index.Index, int) {
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
		put = append(put, index.Entry{ID: index.DocID(i), Doc: l.Rules.Doc(built[i])})
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
	}, put, l.droppedDocs(c, at, put, built))
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
func (l *loader[T, S]) droppedDocs(c *store.Cache[T], unmatched map[[sha256.Size]byte]index.DocID, put []index.Entry, built []*T) []index.Doc {
	docs := make([]index.Doc, 0, len(unmatched))
	var buf []byte
	for _, e := range put {
		rec := c.Lookup(l.Rules.Path(built[e.ID]))
		if rec == nil {
			continue
		}
		buf = memoryKey(buf[:0], rec.Rel, rec.Sum, rec.Stat.Mtime, nil)
		if _, ok := unmatched[sha256.Sum256(buf)]; ok {
			docs = append(docs, l.Rules.Doc(rec.Mem))
		}
	}
	if len(docs) != len(unmatched) {
		return nil
	}
	return docs
}

// recs is a decoded index cache as eachFile walks it.
type recs[T any] struct{ c *store.Cache[T] }

func (r recs[T]) Len() int          { return len(r.c.Recs) }
func (r recs[T]) Path(j int) string { return r.c.Recs[j].Rel }

// readCachedFiles stats every file, then takes its memory from the
// cache's record of it when the record holds, or reads it. Files are
// handled on all cores. The stat'ing does not wait for the cache to be
// decoded; when it cannot be, readCachedFiles returns no files.
func (l *loader[T, S]) readCachedFiles(ctx context.Context, rels []string, o *openedIndex[T]) ([]File[T, S], error) {
	res := make([]File[T, S], len(rels))
	// Stat data is numbers: written first, each page of res is simply
	// allocated. Storing a pointer first, while the garbage collector
	// runs, would read the old one (the write barrier), map the kernel's
	// shared zero page, then copy it and flush the old mapping from every
	// core running the process (a TLB shootdown, which perf showed
	// costing more than the stores).
	stat := func(i int, rs *readerState) {
		r := &res[i]
		r.mod = 0
		r.st, r.stOK = rs.files.StatKey(rs.dir(l.Dir, rels[i]))
	}
	cache := func() sortedPaths {
		<-o.decoded
		if o.c == nil {
			return nil
		}
		return recs[T]{o.c}
	}
	written := o.f.Written
	take := func(i, j int, rs *readerState) {
		r := &res[i]
		// The record holds while the file's stat data is the record's
		// and the file was not changed at or after the cache was written
		// (then a second change within the file system's timestamp
		// granularity could leave the stat data as it was).
		if j >= 0 {
			if rec := &o.c.Recs[j]; r.stOK && rec.Stat == r.st && max(r.st.Mtime, r.st.Ctime) < written {
				// The record's key is the one setKey would compute here
				// (see cacheRecords).
				*r = File[T, S]{Rel: rels[i], Mem: rec.Mem, st: r.st, stOK: true, sum: rec.Sum, mod: r.st.Mtime, Mapped: true, key: rec.Key, keyed: true}
				return
			}
		}
		*r = l.readFile(ctx, rels[i], rs)
	}
	if !eachFile(ctx, rels, cache, stat, take) {
		return nil, ctx.Err()
	}
	return res, ctx.Err()
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
func (l *loader[T, S]) writeIndexCache(res []File[T, S], folders []store.FolderRec, bs buildSum, drop func()) error {
	if len(res) == 0 {
		return nil
	}
	iw := store.IndexWrite[T]{Key: l.IndexCache, MaxSize: l.MaxFileSize, Folders: folders,
		Records: l.cacheRecords(res), Codec: l.Rules.IndexCodec(), Drop: drop}
	var err error
	l.sink.WithIndex(func(ix *index.Index) {
		if bs.pure && ix != nil {
			iw.Index = &store.IndexSection{Digest: bs.digest, Keys: bs.keys, Swaps: bs.swaps, Snapshot: ix}
		}
		err = store.WriteIndex(l.Dir, iw)
	})
	return err
}

// cacheRecords yields the records of the files of res the cache keeps
// (see cacheable), one reused Record.
func (l *loader[T, S]) cacheRecords(res []File[T, S]) func(yield func(*store.Record[T]) bool) {
	return func(yield func(*store.Record[T]) bool) {
		var rec store.Record[T]
		for i := range res {
			r := &res[i]
			if !l.cacheable(r) {
				continue
			}
			// The memory's key as a load that finds the record holding
			// computes it: from the recorded modification time, which a
			// file changed while it was read may not share with r.mod.
			key := r.key
			if !r.keyed || r.mod != r.st.Mtime {
				var buf [256]byte
				key = sha256.Sum256(memoryKey(buf[:0], r.Rel, r.sum, r.st.Mtime, nil))
			}
			rec = store.Record[T]{Rel: r.Rel, Stat: r.st, Sum: r.sum, Key: key, Mem: r.Mem}
			if !yield(&rec) {
				return
			}
		}
	}
}

// cacheable reports whether r goes into the cache: a memory made from the
// file's bytes alone, with no diagnostic, and stat data to check it by.
// A stale or conflicted memory never does (both come with diagnostics).
func (l *loader[T, S]) cacheable(r *File[T, S]) bool {
	return r.Mem != nil && len(r.Diags) == 0 && r.head == nil && r.stOK && !l.Rules.Stale(r.Mem) && !l.Rules.Conflicted(r.Mem)
}
