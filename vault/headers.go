package vault

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/internal/exestamp"
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
// less than racyWindow before the cache was written is not kept: a second
// change within the file system's timestamp granularity would leave the
// stat data as it was.

// racyWindow is how recent a file's change may be for its header to be
// cached: comfortably more than any file system's timestamp granularity.
const racyWindow = 2 * time.Second

// maxUncachedReads is how many files a load may read for want of a cache
// entry before it rewrites the cache.
const maxUncachedReads = 32

// headerCacheMagic starts a header cache file; the digit is the format
// version.
const headerCacheMagic = "memvault-headers 2\n"

// statKey is what says a file is unchanged since its header was cached.
type statKey struct {
	size, mtime, ctime int64
	ino                uint64
}

// headerEntry is one cached file: its stat key and its memory's header.
type headerEntry struct {
	key statKey
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
		stamp := executableStamp()
		cacheDone <- cached{stamp, readHeaderCache(v.headerCache, stamp)}
	}()
	var sawTemp atomic.Bool
	rels, err := scanWith(ctx, v.dir, &sawTemp)
	c := <-cacheDone
	if err != nil {
		return err
	}
	v.noTempFiles.Store(!sawTemp.Load())
	stamp, cache := c.stamp, c.entries
	// A result is small: most files are cache hits, and a 10k vault's
	// results are allocated and filled in every process.
	type read struct {
		r   loaded
		sig titleSig
	}
	type result struct {
		key  statKey
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
			defer rs.files.close()
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
				x.key, x.ok = rs.files.statKey(rs.lastDir, name)
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
	v.titleSigs, v.headersRead = sigs, reads
	v.mu.Unlock()
	if v.headerCache == "" || stamp == "" {
		return nil
	}
	newest := v.fsTime().Add(-racyWindow).UnixNano()
	// Files with problems are read again each time, so their diagnostics
	// are reported; files changed a moment ago too.
	cacheable := func(x result) bool {
		return x.ok && (x.miss == nil || x.miss.r.mem != nil && len(x.miss.r.diags) == 0) && max(x.key.mtime, x.key.ctime) < newest
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
		// racyWindow). Entries of files gone are skipped. A vault
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
	_ = writeHeaderCache(v.headerCache, stamp, keep)
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

// executableStamp names the running program: its Go build ID, the same
// for every copy of one build (see exestamp). A cache written by another
// build is not read: the parser or the tokenizer may have changed how a
// header or a title's terms are derived. "" when it cannot be known; no
// cache is used then.
func executableStamp() string { return exestamp.Stamp() }

// readHeaderCache reads the cache file at path, if stamp wrote it: its
// entries sorted by path. A missing, unreadable or damaged file is an
// empty cache. The file is mapped, as the index cache is (see
// mapCacheFile), and the strings of the entries point into the mapping:
// neither the file's bytes nor a copy of them as strings are copied to
// the heap.
func readHeaderCache(path, stamp string) []headerEntry {
	if path == "" || stamp == "" {
		return nil
	}
	// The folder is memvault's own in the git directory; the file in it
	// is opened as the index cache is (openCacheFile).
	d, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return nil
	}
	data, _, release, _, err := mapCacheFile(d, filepath.Base(path), false, nil)
	d.Close()
	if err != nil {
		return nil
	}
	entries, err := decodeHeaderCache(data, stamp)
	if err != nil {
		release()
		return nil
	}
	for i := 1; i < len(entries); i++ {
		if entries[i-1].mem.Path >= entries[i].mem.Path {
			release()
			return nil // not written by loadHeaders
		}
	}
	return entries
}

// writeHeaderCache replaces the cache file at path with entries: written
// to a temporary file and renamed, so a reader sees the old or the new
// file whole. It is not synced: a cache lost to a power cut is rebuilt.
func writeHeaderCache(path, stamp string, entries []headerEntry) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(encodeHeaderCache(stamp, entries))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write header cache: %w", err)
	}
	return nil
}

// encodeHeaderCache serialises entries: the magic line, the program's
// stamp, then per entry its stat key, header fields and title signature as
// varints and length-prefixed strings, then a CRC-32 of everything before
// it.
func encodeHeaderCache(stamp string, entries []headerEntry) []byte {
	buf := make([]byte, 0, 64+len(entries)*200)
	buf = append(buf, headerCacheMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(stamp)))
	buf = append(buf, stamp...)
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	half := len(entries) / 2
	first := appendHeaderEntries(nil, entries[:half])
	buf = binary.AppendUvarint(buf, uint64(len(first)))
	buf = append(buf, first...)
	buf = appendHeaderEntries(buf, entries[half:])
	return binary.BigEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf))
}

// appendHeaderEntries appends entries to buf as encodeHeaderCache lays
// them out.
func appendHeaderEntries(buf []byte, entries []headerEntry) []byte {
	str := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	tm := func(t time.Time) {
		if t.IsZero() {
			buf = append(buf, 0)
			return
		}
		buf = append(buf, 1)
		buf = binary.AppendVarint(buf, t.Unix())
		buf = binary.AppendUvarint(buf, uint64(t.Nanosecond()))
	}
	for _, e := range entries {
		m := e.mem
		buf = binary.AppendVarint(buf, e.key.size)
		buf = binary.AppendVarint(buf, e.key.mtime)
		buf = binary.AppendVarint(buf, e.key.ctime)
		buf = binary.AppendUvarint(buf, e.key.ino)
		str(m.Path)
		str(m.ID)
		str(m.Title)
		buf = binary.AppendUvarint(buf, uint64(m.Layer))
		buf = binary.AppendVarint(buf, int64(m.Importance))
		tm(m.CreatedAt)
		tm(m.UpdatedAt)
		tm(m.EffectiveAt)
		tm(m.ExpiresAt)
		str(string(m.Status))
		buf = binary.AppendVarint(buf, int64(m.Version))
		buf = binary.AppendUvarint(buf, uint64(m.idLine))
		buf = binary.AppendUvarint(buf, uint64(len(m.Supersedes)))
		for _, s := range m.Supersedes {
			str(s)
		}
		str(e.sig.key)
		buf = append(buf, byte(boolInt(e.sig.neg)))
		buf = binary.AppendUvarint(buf, uint64(len(e.sig.toks)))
		for _, t := range e.sig.toks {
			str(t)
		}
	}
	return buf
}

var errBadHeaderCache = errors.New("damaged header cache")

// decodeHeaderCache reads what encodeHeaderCache wrote: the two halves of
// the entries at once, each on its own goroutine. The strings of the
// entries point into data, which must not change while they are used.
func decodeHeaderCache(data []byte, stamp string) ([]headerEntry, error) {
	if len(data) < len(headerCacheMagic)+4 || string(data[:len(headerCacheMagic)]) != headerCacheMagic {
		return nil, errBadHeaderCache
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errBadHeaderCache
	}
	d := newCacheDecoder(body[len(headerCacheMagic):])
	if d.str() != stamp {
		return nil, errBadHeaderCache
	}
	n, split := d.uvarint(), d.uvarint()
	if d.err != nil || n > uint64(d.rest()/16) || split > uint64(d.rest()) { // an entry takes more than 16 bytes
		return nil, errBadHeaderCache
	}
	rest := d.buf[d.pos:]
	out := make([]headerEntry, n)
	mems := make([]Memory, n) // one allocation for all
	half := n / 2
	var second error
	done := make(chan struct{})
	go func() {
		defer close(done)
		second = decodeHeaderEntries(rest[split:], out[half:], mems[half:])
	}()
	first := decodeHeaderEntries(rest[:split], out[:half], mems[:half])
	<-done
	if first != nil || second != nil {
		return nil, errBadHeaderCache
	}
	return out, nil
}

// decodeHeaderEntries decodes len(out) entries, the whole of buf, into
// out, with their memories in mems.
func decodeHeaderEntries(buf []byte, out []headerEntry, mems []Memory) error {
	d := newCacheDecoder(buf)
	for i := range out {
		e, m := &out[i], &mems[i]
		e.key.size, e.key.mtime, e.key.ctime, e.key.ino = d.varint(), d.varint(), d.varint(), d.uvarint()
		m.Path, m.ID, m.Title = d.str(), d.str(), d.str()
		m.Layer = Layer(d.uvarint())
		m.Importance = int(d.varint())
		m.CreatedAt, m.UpdatedAt, m.EffectiveAt, m.ExpiresAt = d.time(), d.time(), d.time(), d.time()
		m.Status = Status(d.str())
		m.Version = int(d.varint())
		m.idLine = int(d.uvarint())
		m.Supersedes = d.strs()
		e.sig.key = d.str()
		e.sig.neg = d.byte() == 1
		e.sig.toks = d.strs()
		if d.err != nil {
			return d.err
		}
		e.mem = m
	}
	if d.rest() != 0 {
		return errBadHeaderCache
	}
	return nil
}

// cacheDecoder reads varints and strings, remembering the first error.
// The strings it returns point into the input, which must not change
// while they are used: no allocation at all.
type cacheDecoder struct {
	buf   []byte
	all   string // buf as a string, sharing its bytes
	pos   int
	err   error
	block []string // where strs cuts its slices from
}

func newCacheDecoder(buf []byte) *cacheDecoder {
	return &cacheDecoder{buf: buf, all: unsafe.String(unsafe.SliceData(buf), len(buf))}
}

func (d *cacheDecoder) rest() int { return len(d.buf) - d.pos }

func (d *cacheDecoder) uvarint() uint64 {
	x, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.pos += n
	return x
}

func (d *cacheDecoder) varint() int64 {
	x, n := binary.Varint(d.buf[d.pos:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.pos += n
	return x
}

func (d *cacheDecoder) str() string {
	n := d.uvarint()
	if n > uint64(d.rest()) {
		d.fail()
		return ""
	}
	s := d.all[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return s
}

// strs reads a count and that many strings; none is nil. The slices are
// cut from blocks shared by many calls (capacity capped, so an append
// copies): one allocation per block, not one per entry.
func (d *cacheDecoder) strs() []string {
	k := d.uvarint()
	if k == 0 || k > uint64(d.rest()) {
		if k > 0 {
			d.fail()
		}
		return nil
	}
	if int(k) > cap(d.block)-len(d.block) {
		d.block = make([]string, 0, max(int(k), strsBlock))
	}
	lo := len(d.block)
	for range k {
		d.block = append(d.block, d.str())
	}
	return d.block[lo:len(d.block):len(d.block)]
}

// strsBlock is how many strings a block of cacheDecoder.strs holds.
const strsBlock = 4096

func (d *cacheDecoder) byte() byte {
	if d.rest() == 0 {
		d.fail()
		return 0
	}
	c := d.buf[d.pos]
	d.pos++
	return c
}

func (d *cacheDecoder) time() time.Time {
	if d.byte() == 0 {
		return time.Time{}
	}
	sec, ns := d.varint(), d.uvarint()
	if ns >= 1e9 {
		d.fail()
	}
	return time.Unix(sec, int64(ns)).UTC()
}

func (d *cacheDecoder) fail() {
	if d.err == nil {
		d.err = errBadHeaderCache
	}
	d.pos = len(d.buf)
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

// sameTitleScan is nearDuplicate for a headers-only vault, which has no
// index to recall with: every memory of the layer is compared. It finds
// whatever the recall finds among its candidates, and also a same-titled
// memory ranked below them. Caller holds v.mu for reading.
func (v *Vault) sameTitleScanLocked(title string, layer Layer, exempt []string, at time.Time) *Memory {
	succ := v.successors()
	want := newTitleSig(title)
	for id, m := range v.entries {
		if m == nil || m.Layer != layer || slices.Contains(exempt, m.ID) {
			continue
		}
		if v.stateLocked(index.DocID(id), m, at, succ) != string(StatusActive) {
			continue
		}
		var sig titleSig
		if id < len(v.titleSigs) && v.titleSigs[id].mem == m {
			sig = v.titleSigs[id].sig
		} else {
			sig = newTitleSig(m.Title) // written since the load
		}
		if want.same(sig) {
			return m.clone()
		}
	}
	return nil
}
