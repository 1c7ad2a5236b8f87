package load

import (
	"context"
	"crypto/sha256"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/store"
)

// readEach reads and parses files on all cores and hands each result to
// fn on the calling goroutine, in the order of rels, while later files are
// still being read: a bulk load overlaps parsing with indexing. With ix
// set, the readers also analyse each memory for ix (File.Prep), so fn only has to insert it; fn must not keep the
// Prepared, which is reused, nor the File.
//
// Readers claim readChunkFiles consecutive files at a time and hand each
// chunk over whole. Handing over every file through channels, between
// four goroutines on two cores, left a core idle part of a large load,
// waiting for goroutines to be woken (docs/performance.md, "Load and
// recall (2026-11-30, ba83217)").
func (l *loader[T, S]) readEach(ctx context.Context, rels []string, ix *index.Index, fn func(*File[T, S])) error {
	if len(rels) == 0 {
		return ctx.Err()
	}
	chunks := (len(rels) + readChunkFiles - 1) / readChunkFiles
	workers := min(runtime.GOMAXPROCS(0), chunks)
	// window bounds the chunks read but not yet consumed, and so the
	// memory they hold: a reader takes a token before claiming a chunk,
	// and the consumer returns it after consuming one. Chunk c travels
	// in ring[c%window]: with at most window chunks outstanding, chunk
	// c+window is claimed only after chunk c was consumed, so no two
	// share a slot and no reader ever blocks on one.
	window := min(chunks, 4*workers)
	ring := make([]chan *readChunk[T, S], window)
	for i := range ring {
		ring[i] = make(chan *readChunk[T, S], 1)
	}
	tokens := make(chan struct{}, window)
	free := make(chan *readChunk[T, S], window)
	var claimed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var rs readerState
			defer rs.files.Close()
			var pr *index.Preparer
			if ix != nil {
				pr = ix.NewPreparer()
			}
			for {
				select {
				case tokens <- struct{}{}:
				case <-ctx.Done():
					return
				}
				c := int(claimed.Add(1) - 1)
				if c >= chunks {
					<-tokens // give back the token: nothing was claimed
					return
				}
				var ch *readChunk[T, S]
				select {
				case ch = <-free:
				default:
					ch = new(readChunk[T, S])
				}
				for i := c * readChunkFiles; i < min(len(rels), (c+1)*readChunkFiles) && ctx.Err() == nil; i++ {
					ch.res = append(ch.res, l.readFile(ctx, rels[i], &rs))
					if r := &ch.res[len(ch.res)-1]; pr != nil && r.Mem != nil {
						r.Prep = ch.prepared(len(ch.res) - 1)
						pr.Prepare(l.Rules.Doc(r.Mem), r.Prep)
					}
				}
				ring[c%window] <- ch
			}
		})
	}
	var err error
	for c := range chunks {
		var ch *readChunk[T, S]
		select {
		case ch = <-ring[c%window]:
		case <-ctx.Done():
		}
		if err = ctx.Err(); err != nil {
			break
		}
		for i := range ch.res {
			fn(&ch.res[i])
		}
		clear(ch.res) // drop the memories: the chunk is reused
		ch.res = ch.res[:0]
		select {
		case free <- ch:
		default:
		}
		<-tokens
	}
	wg.Wait()
	return err
}

// readChunkFiles is how many consecutive files a reader claims at a time.
const readChunkFiles = 32

// readChunk carries the results of one claim of files from a reader to
// the consumer, then goes back to the readers for reuse.
type readChunk[T, S any] struct {
	res   []File[T, S]
	preps []*index.Prepared // res[i].Prep is preps[i] or nil
}

// prepared returns the chunk's i'th Prepared, allocating it on first use.
func (ch *readChunk[T, S]) prepared(i int) *index.Prepared {
	for len(ch.preps) <= i {
		ch.preps = append(ch.preps, new(index.Prepared))
	}
	return ch.preps[i]
}

// readerState is what one reader goroutine reuses from file to file.
type readerState struct {
	files   store.FileReader
	parse   parser.Scratch
	lastRel string // folder part of the last file read, relative
	lastDir string // and joined to the vault folder
}

// dir returns the folder of the vault-relative file rel under root and
// its name, keeping the last folder's path.
func (rs *readerState) dir(root, rel string) (string, string) {
	dir, name := path.Split(rel)
	if dir != rs.lastRel || rs.lastDir == "" {
		rs.lastRel, rs.lastDir = dir, filepath.Join(root, filepath.FromSlash(dir))
	}
	return rs.lastDir, name
}

// readFile reads one memory file and has Rules.Parse turn it into a
// memory plus the problems found. It never changes the file. rs is the
// calling reader's state, reused from file to file: the memory copies
// what it keeps.
func (l *loader[T, S]) readFile(ctx context.Context, rel string, rs *readerState) File[T, S] {
	dir, name := rs.dir(l.Dir, rel)
	res := File[T, S]{Rel: rel, fresh: true}
	keyed := l.IndexCache != "" && l.Mode == Full
	if keyed {
		// Before the read: a change made after it changes the key the
		// next process sees.
		res.st, res.stOK = rs.files.StatKey(dir, name)
	}
	rs.files.Linked = l.Linked
	data, modTime, err := rs.files.Read(dir, name, l.MaxFileSize)
	if err != nil {
		res.Diags = append(res.Diags, &parser.Error{Path: rel, Err: err, Severity: parser.SeverityError})
		return res
	}
	var served []byte
	res.Mem, res.Diags, served = l.Rules.Parse(ctx, rel, data, modTime, &rs.parse)
	if keyed {
		res.sum, res.mod = sha256.Sum256(data), modTime.UnixNano()
		if served != nil {
			sum := sha256.Sum256(served)
			res.head = &sum
		}
		if res.Mem != nil {
			res.setKey()
		}
	}
	return res
}

// sortedPaths is a cache's records, sorted by path.
type sortedPaths interface {
	Len() int
	Path(j int) string
}

// eachFile runs over the files rels on all cores, each worker over a range
// of them: first stat(i) for every file of its range (the stat'ing waits
// on the file system and needs no cache), then, once cache returns the
// cache (nil when there is none to use: eachFile then reports false),
// take(i, j) for every file, j being the cache's record of rels[i] or -1.
func eachFile(ctx context.Context, rels []string, cache func() sortedPaths, stat func(i int, rs *readerState), take func(i, j int, rs *readerState)) bool {
	workers := min(runtime.GOMAXPROCS(0), len(rels)/256+1)
	if len(rels) == 0 {
		return cache() != nil
	}
	var bad atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var rs readerState
			defer rs.files.Close()
			from, to := w*len(rels)/workers, (w+1)*len(rels)/workers
			for i := from; i < to; i++ {
				if ctx.Err() != nil {
					return
				}
				stat(i, &rs)
			}
			c := cache()
			if c == nil {
				bad.Store(true)
				return
			}
			// rels and the records are both in path order: one search
			// finds where this worker's files start, then a cursor
			// follows them.
			n := c.Len()
			j := sort.Search(n, func(j int) bool { return c.Path(j) >= rels[from] })
			for i := from; i < to; i++ {
				if ctx.Err() != nil {
					return
				}
				// Usually the next record is the file's: one equality
				// test, no ordering comparison.
				if j < n && c.Path(j) != rels[i] {
					for j < n && c.Path(j) < rels[i] {
						j++
					}
				}
				if j < n && c.Path(j) == rels[i] {
					take(i, j, &rs)
				} else {
					take(i, -1, &rs)
				}
			}
		})
	}
	wg.Wait()
	return !bad.Load()
}
