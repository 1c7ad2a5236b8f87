package index

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Entry is a document with its id, for PutBatch.
type Entry struct {
	ID  DocID
	Doc Doc
}

// batchChunk is how many documents a PutBatch worker analyses at a time.
const batchChunk = 256

// chunkResult is one analysed chunk: each document's aggregated terms.
type chunkResult struct {
	docs []batchDoc
	ents []docEnt // text in buf
	buf  []byte
}

type batchDoc struct {
	from, to int // range of ents
	lens     [numFields]int
}

// PutBatch adds or replaces the documents, with the same result as calling
// Put for each in order, but faster for bulk loads: documents are analysed
// ahead on other CPUs, and each chunk is inserted into the vocabulary's
// hash shards in parallel. Like Put, it needs external exclusion.
func (ix *Index) PutBatch(entries []Entry) {
	ix.terms.checkAll(ix.noteRead) // a loaded snapshot's lists, before any change
	nChunks := (len(entries) + batchChunk - 1) / batchChunk
	nw := min(max(runtime.GOMAXPROCS(0)-1, 1), 7, nChunks)
	if nChunks <= 1 || nw < 1 {
		for _, e := range entries {
			ix.Put(e.ID, e.Doc)
		}
		return
	}
	ready := make([]chan *chunkResult, nChunks)
	for i := range ready {
		ready[i] = make(chan *chunkResult, 1)
	}
	// free bounds the chunks in flight, and so the memory held.
	free := make(chan *chunkResult, 2*nw+2)
	for range cap(free) {
		free <- &chunkResult{}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range nw {
		wg.Go(func() {
			var an analyzer
			var doc docTerms
			for {
				// Take a buffer before claiming a chunk: then the
				// oldest unfinished chunk always has one, and the
				// caller can never wait on a chunk that waits on it.
				r := <-free
				c := int(next.Add(1) - 1)
				if c >= nChunks {
					free <- r
					return
				}
				lo, hi := c*batchChunk, min((c+1)*batchChunk, len(entries))
				ix.analyzeChunk(&an, &doc, entries[lo:hi], r)
				ready[c] <- r
			}
		})
	}
	// Insert chunk by chunk: slots first, in order, then one inserter per
	// group of shards, in parallel.
	ni := min(runtime.GOMAXPROCS(0), numShards)
	ins := make([]inserter, ni)
	var slots []uint32
	for c := range nChunks {
		r := <-ready[c]
		slots = slots[:0]
		for i, d := range r.docs {
			e := &entries[c*batchChunk+i]
			slots = append(slots, ix.newSlot(e.ID, d.lens, r.ents[d.from:d.to], r.buf))
		}
		var iw sync.WaitGroup
		for w := range ni {
			var mask uint
			for sh := w; sh < numShards; sh += ni {
				mask |= 1 << sh
			}
			iw.Go(func() {
				for i, d := range r.docs {
					ins[w].insertDoc(ix.terms, mask, slots[i], r.ents[d.from:d.to], r.buf)
				}
			})
		}
		iw.Wait()
		free <- r
	}
	wg.Wait()
	ix.maybeCompact()
}

// analyzeChunk analyses entries into r.
func (ix *Index) analyzeChunk(an *analyzer, doc *docTerms, entries []Entry, r *chunkResult) {
	r.docs, r.ents, r.buf = r.docs[:0], r.ents[:0], r.buf[:0]
	for _, e := range entries {
		lens := ix.analyzeDoc(an, doc, e.Doc)
		base := uint32(len(r.buf))
		r.buf = append(r.buf, doc.buf...)
		from := len(r.ents)
		for _, t := range doc.ents {
			t.start += base
			t.end += base
			r.ents = append(r.ents, t)
		}
		r.docs = append(r.docs, batchDoc{from: from, to: len(r.ents), lens: lens})
	}
}

// Prepared is a document analysed by a Preparer, waiting for PutPrepared.
// Its zero value is ready for use, and it can be reused once PutPrepared
// returns.
type Prepared struct {
	doc  docTerms
	lens [numFields]int
}

// Preparer analyses documents for one index ahead of their insertion, so
// a bulk loader can analyse on its reading goroutines while another
// goroutine inserts. A Preparer is for one goroutine at a time; any number
// of them may run alongside Put, PutPrepared and Search on their index.
type Preparer struct {
	ix *Index
	an analyzer
}

// NewPreparer returns a Preparer for ix.
func (ix *Index) NewPreparer() *Preparer { return &Preparer{ix: ix} }

// Prepare analyses d into p, reusing p's buffers.
func (pr *Preparer) Prepare(d Doc, p *Prepared) {
	// analyzeDoc reads only the term table's hash seed, never the
	// postings, so it is safe next to a writer.
	p.lens = pr.ix.analyzeDoc(&pr.an, &p.doc, d)
}

// PutPrepared adds or replaces the document p was prepared from, with the
// same result as Put(id, d). Like Put, it needs external exclusion; p must
// come from a Preparer of this index.
func (ix *Index) PutPrepared(id DocID, p *Prepared) {
	ix.terms.checkAll(ix.noteRead) // a loaded snapshot's lists, before any change
	slot := ix.newSlot(id, p.lens, p.doc.ents, p.doc.buf)
	ix.ins.insertDoc(ix.terms, allShards, slot, p.doc.ents, p.doc.buf)
	ix.maybeCompact()
}
