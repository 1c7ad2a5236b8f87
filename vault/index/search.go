package index

import (
	"context"
	"math"
	"math/bits"
	"slices"
)

// params are the ranking knobs. They are tuned on the method (see
// eval_test.go), not on single queries.
type params struct {
	k1     float64
	weight [numFields]float64 // BM25F field weights
	b      [numFields]float64 // BM25F length normalisation per field

	wPart         float64 // an identifier part typed inside a larger identifier
	wUnigram      float64 // a lone CJK character
	wExpand       float64 // a dictionary expansion
	wExpandAbsent float64 // a synonym of a typed word that no document contains
	wOneWay       float64 // a one-way paraphrase (question words -> answer words)
	expandPow     float64 // multi-token expansions share weight: wExpand / n^expandPow

	expandMaxDF float64 // expansions with df above this fraction of docs are skipped...
	expandMinN  int     // ...once the index holds at least this many docs
	maxExpand   int     // at most this many expansion terms per query

	wGeneral    float64 // a sense of a Chinese word from the general dictionary
	wGeneralRev float64 // a Chinese word of an English word from the general dictionary
	maxGeneral  int     // general dictionary targets per word, at most

	wLearned   float64 // a learned translation of confidence c weighs wLearned x c
	maxLearned int     // learned translations per typed term, at most
	minLearned float64 // least confidence of a learned translation

	noCurated bool    // tests only: search without the curated dictionary
	cwPow     float64 // a concept weighs idf^cwPow x its typed weight in coverage

	partialCJK  bool    // a Chinese word of several bigrams is covered in part by each
	bigramPow   float64 // ...and each of its n bigrams weighs 1/n^bigramPow in BM25
	wDeterminer float64 // a Chinese determiner (一个, 一些), the counterpart of an English stop word
	covPow      float64 // relevance is multiplied by coverage^covPow
	straddle    float64 // weight of a CJK bigram concept found nowhere and in no dictionary term
}

func defaultParams() params {
	return params{
		k1:            1.2,
		weight:        [numFields]float64{3, 2.5, 2.5, 1},
		b:             [numFields]float64{0.5, 0.5, 0.3, 0.75},
		wPart:         0.5,
		wUnigram:      0.3,
		wExpand:       0.5,
		wExpandAbsent: 0.8,
		wOneWay:       0.3,
		expandPow:     0.5,
		expandMaxDF:   0.05,
		expandMinN:    5000,
		maxExpand:     32,
		wGeneral:      0.4,
		wGeneralRev:   0.3,
		maxGeneral:    3,
		wLearned:      0.5,
		maxLearned:    2,
		minLearned:    0.3,
		covPow:        1,
		partialCJK:    true,
		bigramPow:     0.5,
		wDeterminer:   0.3,
		cwPow:         1,
		straddle:      0.5,
	}
}

// Query is a free-text search.
type Query struct {
	// Text is the user's query in any mix of Chinese and English.
	Text string
	// Limit is how many hits to return after Weight; <= 0 means 10.
	Limit int
	// Weight turns a document's relevance into its final score. A score
	// <= 0 (or NaN) excludes the document (filters: expired, future, other
	// layer). It is called at most once per matching document (see
	// MaxWeight), on the goroutine that called Search. Nil means the
	// score is the relevance.
	Weight func(id DocID, relevance float64) float64
	// MaxWeight, when > 0, promises that Weight never returns more than
	// relevance x MaxWeight. Search then skips calling Weight for
	// documents whose relevance cannot reach the current top Limit, which
	// leaves the hits unchanged and saves most calls on broad queries.
	MaxWeight float64
}

// Hit is one search result.
type Hit struct {
	ID DocID
	// Score is the final score, after Query.Weight.
	Score float64
	// Relevance is the BM25F score including dictionary expansion.
	Relevance float64
	// Norm is Relevance divided by the relevance of an ideal match for this
	// query (every typed term once in the title and once in the body of an
	// average-length document), capped at 1. Typed terms no document
	// contains count too, so a hit that matches only part of the query
	// scores low. It is comparable across queries and suits thresholds.
	Norm float64
	// Terms are the index terms of the query that the document matched
	// (typed and expanded), as produced by Tokenize; pass them to Snippet.
	// Only the first 31 query terms are tracked (typed terms first, then
	// the heaviest expansions).
	Terms []string
	// Coverage is the share of the query's concepts (typed words and
	// identifiers, dictionary terms, CJK words) the document matched,
	// each weighted by its rarity: 1 when it matched them all. Relevance
	// already includes it.
	Coverage float64
	// Matched is how many of the query's Concepts the document matched,
	// through typed terms or their expansions.
	Matched, Concepts int
}

// present reports whether every one of toks occurs in the index.
func (ix *Index) present(toks []string) bool {
	for _, t := range toks {
		if !ix.hasLive(ix.terms.get(t)) {
			return false
		}
	}
	return len(toks) > 0
}

// absent reports whether none of toks occurs in the index; an empty list
// (a term made of stop words) is not absent.
func (ix *Index) absent(toks []string) bool {
	for _, t := range toks {
		if ix.hasLive(ix.terms.get(t)) {
			return false
		}
	}
	return len(toks) > 0
}

// searchScratch holds per-search accumulators indexed by slot, pooled so
// that a search allocates little.
type searchScratch struct {
	acc     []accum
	touched []uint32
}

// accum is one document's running score, a mask of the query terms it
// matched and a mask of the query concepts it covers.
type accum struct {
	score float32
	mask  uint32
	cmask uint32
}

func (ix *Index) getScratch() *searchScratch {
	sc, _ := ix.pool.Get().(*searchScratch)
	if sc == nil {
		sc = &searchScratch{}
	}
	if n := len(ix.ids); len(sc.acc) < n {
		sc.acc = make([]accum, n+n/4)
	}
	return sc
}

func (ix *Index) putScratch(sc *searchScratch) {
	if len(sc.touched) > len(sc.acc)/16 {
		// Clearing everything sequentially beats scattered stores.
		clear(sc.acc)
	} else {
		for _, s := range sc.touched {
			sc.acc[s] = accum{}
		}
	}
	sc.touched = sc.touched[:0]
	ix.pool.Put(sc)
}

// idf is the BM25 inverse document frequency.
func idf(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Search returns the best documents for the query, sorted by Score
// descending and then by ID. An empty query returns nil.
func (ix *Index) Search(q Query) []Hit {
	hits, _ := ix.SearchContext(context.Background(), q)
	return hits
}

// searchCheckEvery is how many candidate documents Search weighs between
// two looks at its context.
const searchCheckEvery = 4096

// SearchContext is Search that stops once ctx is done, returning ctx's
// error: it looks at ctx while it plans the query, before each query
// term's postings and every searchCheckEvery candidates.
func (ix *Index) SearchContext(ctx context.Context, q Query) ([]Hit, error) {
	qp, err := ix.planContext(ctx, q.Text)
	if err != nil {
		return nil, err
	}
	terms := qp.terms
	if len(terms) == 0 || ix.live == 0 {
		return nil, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	p := &ix.p
	n := float64(ix.live)
	// ideal is the relevance of a document with every typed term once in
	// its title and once in its body, both of average length.
	x := p.weight[fieldTitle] + p.weight[fieldBody]
	idealSat := x / (p.k1 + x)
	ideal := 0.0

	sc := ix.getScratch()
	defer ix.putScratch(sc)
	acc := sc.acc
	// norm[f][code] is the BM25F factor weight / (1 - b + b*len/avg) of a
	// field whose length has that code.
	var norm [numFields][256]float32
	for f := range norm {
		avg := max(ix.lenSum[f]/float64(ix.live), 1)
		for c, l := range codeLength {
			norm[f][c] = float32(p.weight[f] / (1 - p.b[f] + p.b[f]*float64(l)/avg))
		}
	}
	lenT, lenA, lenG, lenB := ix.lens[fieldTitle], ix.lens[fieldAlias], ix.lens[fieldTags], ix.lens[fieldBody]
	normT, normA, normG, normB := &norm[fieldTitle], &norm[fieldAlias], &norm[fieldTags], &norm[fieldBody]
	k1 := p.k1
	// cw[c] is the weight of concept c in coverage: the largest idf x
	// weight among its typed terms.
	cw := make([]float64, len(qp.concepts))
	cwAbsent := make([]bool, len(qp.concepts))
	for c := range cwAbsent {
		cwAbsent[c] = !qp.concepts[c].dict
	}
	for qi, t := range terms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pl := ix.terms.get(t.text)
		df := float64(ix.liveDF(pl))
		w := idf(n, df) * qp.bm25Weight(t, p.bigramPow)
		if t.concept >= 0 && t.typed {
			cw[t.concept] = max(cw[t.concept], math.Pow(idf(n, max(df, 1)), p.cwPow)*t.w)
			if df > 0 || t.kind != kindBigram {
				cwAbsent[t.concept] = false
			}
		}
		cbit := t.covers
		if t.typed {
			// A typed term no document contains still counts against
			// Norm, as if it were rare; CJK bigrams count half, since
			// about half of them straddle two words.
			c := idf(n, max(df, 1)) * qp.bm25Weight(t, p.bigramPow) * idealSat
			if df == 0 && t.kind == kindBigram {
				c /= 2
			}
			ideal += c
		}
		if df == 0 {
			continue
		}
		if !t.typed && ix.live >= p.expandMinN && df > p.expandMaxDF*n {
			continue
		}
		// Bit 31 marks the document as touched; bits 0-30 say which of
		// the first 31 terms it matched, for Hit.Terms.
		bit := uint32(1) << 31
		if qi < 31 {
			bit |= 1 << uint(qi)
		}
		b := pl.data
		slot := uint32(0)
		for i := 0; i < len(b); {
			// Inline uvarint decoding of the common one-byte case.
			v := uint64(b[i])
			if v < 0x80 {
				i++
			} else {
				v, i = uvarint(b, i)
			}
			slot += uint32(v >> 1)
			var xs float32
			if v&1 != 0 {
				xs = float32(b[i])*normT[lenT[slot]] + float32(b[i+1])*normA[lenA[slot]] + float32(b[i+2])*normG[lenG[slot]]
				i += 3
			}
			if tf := b[i]; tf < 0x80 {
				i++
				xs += float32(tf) * normB[lenB[slot]]
			} else {
				var v2 uint64
				v2, i = uvarint(b, i)
				xs += float32(v2) * normB[lenB[slot]]
			}
			a := &acc[slot]
			if a.mask == 0 {
				sc.touched = append(sc.touched, slot)
			}
			a.mask |= bit
			a.cmask |= cbit
			a.score += float32(w) * xs / (float32(k1) + xs)
		}
	}
	if ideal <= 0 {
		return nil, nil
	}
	// A CJK bigram found nowhere and in no dictionary term most likely
	// straddles two words: it counts less.
	cwSum := 0.0
	nConcepts := 0
	for c := range cw {
		if cwAbsent[c] || qp.concepts[c].straddle {
			cw[c] *= p.straddle
		}
		if cw[c] > 0 {
			nConcepts++
		}
		cwSum += cw[c]
	}
	// Documents share few distinct concept masks: remember the coverage
	// of recent ones in a small direct-mapped cache.
	type covEntry struct {
		mask  uint32
		cov   float64
		k     int
		valid bool
	}
	var covCache [64]covEntry
	gMasks, gBits := qp.groupMasks()
	pConcepts, pMasks, pCounts := qp.partials()
	coverage := func(a *accum) (float64, int) {
		if cwSum == 0 {
			return 1, 0
		}
		cm := a.cmask
		for i, g := range gMasks {
			if a.mask&g == g {
				cm |= gBits[i]
			}
		}
		if len(pConcepts) > 0 {
			// Words covered in part: each bigram found counts its share.
			got, k := 0.0, 0
			for i, c := range pConcepts {
				if cm&(1<<uint(c)) == 0 {
					if n := bits.OnesCount32(a.mask & pMasks[i]); n > 0 {
						frac := float64(n) / float64(pCounts[i])
						got += cw[c] * frac
						if frac >= 0.5 && cw[c] > 0 {
							k++
						}
					}
				}
			}
			for m := cm; m != 0; m &= m - 1 {
				c := bits.TrailingZeros32(m)
				got += cw[c]
				if cw[c] > 0 {
					k++
				}
			}
			return got / cwSum, k
		}
		e := &covCache[(cm*0x9E3779B1)>>26]
		if e.valid && e.mask == cm {
			return e.cov, e.k
		}
		got, k := 0.0, 0
		for m := cm; m != 0; m &= m - 1 {
			c := bits.TrailingZeros32(m)
			got += cw[c]
			if cw[c] > 0 {
				k++
			}
		}
		*e = covEntry{cm, got / cwSum, k, true}
		return e.cov, k
	}

	top := make([]cand, 0, limit)
	prune := q.Weight != nil && q.MaxWeight > 0
	offer := func(s uint32) {
		rel := float64(acc[s].score)
		id := ix.ids[s]
		if prune && len(top) == limit && rel*q.MaxWeight < top[0].score {
			// Even the largest weight cannot beat the worst kept hit
			// (coverage only lowers relevance).
			return
		}
		if p.covPow != 0 {
			cov, _ := coverage(&acc[s])
			if p.covPow != 1 {
				cov = math.Pow(cov, p.covPow)
			}
			if rel *= cov; !(rel > 0) {
				return // it matched answer words only
			}
			if prune && len(top) == limit && rel*q.MaxWeight < top[0].score {
				return
			}
		}
		score := rel
		if q.Weight != nil {
			score = q.Weight(id, rel)
			if !(score > 0) {
				return
			}
		}
		c := cand{score: score, rel: rel, id: id, slot: s}
		if len(top) < limit {
			top = append(top, c)
			siftUp(top, len(top)-1)
		} else if better(c, top[0]) {
			top[0] = c
			siftDown(top, 0)
		}
	}
	// stop looks at ctx every searchCheckEvery candidates.
	seen := 0
	stop := func() bool {
		seen++
		return seen%searchCheckEvery == 0 && ctx.Err() != nil
	}
	if !prune {
		for _, s := range sc.touched {
			if stop() {
				return nil, ctx.Err()
			}
			if ix.alive[s] {
				offer(s)
			}
		}
	} else {
		// The kept hits do not depend on the order candidates are offered
		// in (better is a total order), but pruning does: offering the
		// most relevant half first raises the bar early, so that most of
		// the rest never reach Weight.
		var maxRel float32
		for _, s := range sc.touched {
			maxRel = max(maxRel, acc[s].score)
		}
		cut := maxRel / 2
		for _, s := range sc.touched {
			if stop() {
				return nil, ctx.Err()
			}
			if acc[s].score >= cut && ix.alive[s] {
				offer(s)
			}
		}
		for _, s := range sc.touched {
			if stop() {
				return nil, ctx.Err()
			}
			if acc[s].score < cut && ix.alive[s] {
				offer(s)
			}
		}
	}
	slices.SortFunc(top, func(x, y cand) int {
		if better(x, y) {
			return -1
		}
		return 1
	})
	out := make([]Hit, len(top))
	for i, c := range top {
		cov, k := coverage(&acc[c.slot])
		out[i] = Hit{ID: c.id, Score: c.score, Relevance: c.rel, Norm: math.Min(float64(acc[c.slot].score)/ideal, 1),
			Coverage: cov, Matched: k, Concepts: nConcepts}
		m := acc[c.slot].mask
		for qi, t := range terms[:min(len(terms), 31)] {
			if m&(1<<uint(qi)) != 0 {
				out[i].Terms = append(out[i].Terms, t.text)
			}
		}
	}
	return out, nil
}

// cand is a candidate hit during top-k selection.
type cand struct {
	score, rel float64
	id         DocID
	slot       uint32
}

// better orders hits: higher score first, then lower id.
func better(x, y cand) bool {
	if x.score != y.score {
		return x.score > y.score
	}
	return x.id < y.id
}

// siftUp and siftDown maintain a min-heap (worst candidate at the root).
func siftUp(h []cand, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(h []cand, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		w := l
		if r := l + 1; r < len(h) && better(h[l], h[r]) {
			w = r
		}
		if !better(h[i], h[w]) {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
