package index

import (
	"context"
	"math"
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

	cwPow float64 // a concept weighs idf^cwPow x its typed weight in coverage

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
	if len(qp.terms) == 0 || ix.live == 0 {
		return nil, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	sc := ix.getScratch()
	defer ix.putScratch(sc)
	s := &search{ix: ix, q: q, qp: qp, sc: sc, limit: limit, prune: q.Weight != nil && q.MaxWeight > 0}
	if err := s.accumulate(ctx); err != nil {
		return nil, err
	}
	if s.ideal <= 0 {
		return nil, nil
	}
	s.weighConcepts()
	s.top = make([]cand, 0, limit)
	if err := s.selectTop(ctx); err != nil {
		return nil, err
	}
	return s.hits(), nil
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
