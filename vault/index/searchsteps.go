package index

import (
	"context"
	"math"
	"math/bits"
	"slices"
)

// search is the state of one SearchContext: the planned query, the
// scratch accumulators, and what its steps hand each other. Each step is
// one method, called in order.
type search struct {
	ix    *Index
	q     Query
	qp    *queryPlan
	sc    *searchScratch
	limit int
	// ideal is the relevance of a document with every typed term once in
	// its title and once in its body, both of average length.
	ideal float64
	// cw[c] is the weight of concept c in coverage: the largest idf x
	// weight among its typed terms; cwAbsent[c] is set while no typed
	// term of c is in the index or in a dictionary term.
	cw        []float64
	cwAbsent  []bool
	cwSum     float64
	nConcepts int
	cover     coverer
	top       []cand
	prune     bool
}

// accumulate adds each query term's BM25F score to the accumulators of
// the documents its postings list, and sums ideal and the concepts'
// weights as it goes. It looks at ctx before each term.
func (s *search) accumulate(ctx context.Context) error {
	ix, qp, sc := s.ix, s.qp, s.sc
	p := &ix.p
	n := float64(ix.live)
	x := p.weight[fieldTitle] + p.weight[fieldBody]
	idealSat := x / (p.k1 + x)
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
	s.cw = make([]float64, len(qp.concepts))
	s.cwAbsent = make([]bool, len(qp.concepts))
	for c := range s.cwAbsent {
		s.cwAbsent[c] = !qp.concepts[c].dict
	}
	for qi, t := range qp.terms {
		if err := ctx.Err(); err != nil {
			return err
		}
		pl := ix.terms.get(t.text)
		df := float64(ix.liveDF(pl))
		w := idf(n, df) * qp.bm25Weight(t, p.bigramPow)
		if t.concept >= 0 && t.typed {
			s.cw[t.concept] = max(s.cw[t.concept], math.Pow(idf(n, max(df, 1)), p.cwPow)*t.w)
			if df > 0 || t.kind != kindBigram {
				s.cwAbsent[t.concept] = false
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
			s.ideal += c
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
	return nil
}

// weighConcepts settles the concepts' weights in coverage: a CJK bigram
// found nowhere and in no dictionary term most likely straddles two
// words, so it counts less.
func (s *search) weighConcepts() {
	for c := range s.cw {
		if s.cwAbsent[c] || s.qp.concepts[c].straddle {
			s.cw[c] *= s.ix.p.straddle
		}
		if s.cw[c] > 0 {
			s.nConcepts++
		}
		s.cwSum += s.cw[c]
	}
	s.cover = coverer{cw: s.cw, cwSum: s.cwSum}
	s.cover.gMasks, s.cover.gBits = s.qp.groupMasks()
	s.cover.pConcepts, s.cover.pMasks, s.cover.pCounts = s.qp.partials()
}

// coverer measures what share of the query's concepts a document covers.
type coverer struct {
	cw            []float64
	cwSum         float64
	gMasks, gBits []uint32
	pConcepts     []int
	pMasks        []uint32
	pCounts       []int
	cache         [64]covEntry
}

// covEntry is a cached coverage: documents share few distinct concept
// masks, so coverer remembers those of recent ones in a small
// direct-mapped cache.
type covEntry struct {
	mask  uint32
	cov   float64
	k     int
	valid bool
}

// coverage returns the share of the concepts' weight a covers, and how
// many concepts of positive weight it covers.
func (cv *coverer) coverage(a *accum) (float64, int) {
	if cv.cwSum == 0 {
		return 1, 0
	}
	cw := cv.cw
	cm := a.cmask
	for i, g := range cv.gMasks {
		if a.mask&g == g {
			cm |= cv.gBits[i]
		}
	}
	if len(cv.pConcepts) > 0 {
		// Words covered in part: each bigram found counts its share.
		got, k := 0.0, 0
		for i, c := range cv.pConcepts {
			if cm&(1<<uint(c)) == 0 {
				if n := bits.OnesCount32(a.mask & cv.pMasks[i]); n > 0 {
					frac := float64(n) / float64(cv.pCounts[i])
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
		return got / cv.cwSum, k
	}
	e := &cv.cache[(cm*0x9E3779B1)>>26]
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
	*e = covEntry{cm, got / cv.cwSum, k, true}
	return e.cov, k
}

// offer weighs the document in slot sl and keeps it among the top hits
// when it ranks there.
func (s *search) offer(sl uint32) {
	acc, q, p := s.sc.acc, s.q, &s.ix.p
	top, limit, prune := s.top, s.limit, s.prune
	rel := float64(acc[sl].score)
	id := s.ix.ids[sl]
	if prune && len(top) == limit && rel*q.MaxWeight < top[0].score {
		// Even the largest weight cannot beat the worst kept hit
		// (coverage only lowers relevance).
		return
	}
	if p.covPow != 0 {
		cov, _ := s.cover.coverage(&acc[sl])
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
	c := cand{score: score, rel: rel, id: id, slot: sl}
	if len(top) < limit {
		s.top = append(top, c)
		siftUp(s.top, len(s.top)-1)
	} else if better(c, top[0]) {
		top[0] = c
		siftDown(top, 0)
	}
}

// selectTop offers every live document touched to the top hits, looking at
// ctx every searchCheckEvery candidates.
func (s *search) selectTop(ctx context.Context) error {
	acc, touched, alive := s.sc.acc, s.sc.touched, s.ix.alive
	seen := 0
	stop := func() bool {
		seen++
		return seen%searchCheckEvery == 0 && ctx.Err() != nil
	}
	if !s.prune {
		for _, sl := range touched {
			if stop() {
				return ctx.Err()
			}
			if alive[sl] {
				s.offer(sl)
			}
		}
		return nil
	}
	// The kept hits do not depend on the order candidates are offered
	// in (better is a total order), but pruning does: offering the most
	// relevant half first raises the bar early, so that most of the rest
	// never reach Weight.
	var maxRel float32
	for _, sl := range touched {
		maxRel = max(maxRel, acc[sl].score)
	}
	cut := maxRel / 2
	for _, sl := range touched {
		if stop() {
			return ctx.Err()
		}
		if acc[sl].score >= cut && alive[sl] {
			s.offer(sl)
		}
	}
	for _, sl := range touched {
		if stop() {
			return ctx.Err()
		}
		if acc[sl].score < cut && alive[sl] {
			s.offer(sl)
		}
	}
	return nil
}

// hits renders the top candidates, best first.
func (s *search) hits() []Hit {
	top, acc, terms := s.top, s.sc.acc, s.qp.terms
	slices.SortFunc(top, func(x, y cand) int {
		if better(x, y) {
			return -1
		}
		return 1
	})
	out := make([]Hit, len(top))
	for i, c := range top {
		cov, k := s.cover.coverage(&acc[c.slot])
		out[i] = Hit{ID: c.id, Score: c.score, Relevance: c.rel, Norm: math.Min(float64(acc[c.slot].score)/s.ideal, 1),
			Coverage: cov, Matched: k, Concepts: s.nConcepts}
		m := acc[c.slot].mask
		for qi, t := range terms[:min(len(terms), 31)] {
			if m&(1<<uint(qi)) != 0 {
				out[i].Terms = append(out[i].Terms, t.text)
			}
		}
	}
	return out
}
