package index

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// Source says where a query term came from.
type Source uint8

// The sources of query terms, from the most to the least trusted.
const (
	// SourceTyped is a term the user typed.
	SourceTyped Source = iota
	// SourceDict is a synonym or translation from the curated dictionary.
	SourceDict
	// SourceParaphrase is a one-way paraphrase from the curated dictionary
	// (question words leading to answer words).
	SourceParaphrase
	// SourceGeneral is a translation from the general Chinese-English
	// dictionary (CC-CEDICT, pruned).
	SourceGeneral
	// SourceLearned is a translation the vault taught: a word of the
	// other language that goes with the query word in the memories that
	// contain it (see cooc.go).
	SourceLearned
)

// MarshalText writes the source's name, as String does.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// String names the source: typed, dictionary, paraphrase, cc-cedict or
// learned.
func (s Source) String() string {
	switch s {
	case SourceTyped:
		return "typed"
	case SourceDict:
		return "dictionary"
	case SourceParaphrase:
		return "paraphrase"
	case SourceGeneral:
		return "cc-cedict"
	case SourceLearned:
		return "learned"
	}
	return "unknown"
}

// qterm is one weighted term of an analysed query.
type qterm struct {
	text  string
	w     float64
	typed bool // typed by the user rather than added by expansion
	kind  tokKind
	src   Source
	// from is, for an expansion, the dictionary spelling that led to it.
	from string
	// concept is the query concept the term stands for (an index into
	// queryPlan.concepts), or -1 when it stands for none (question words);
	// covers has a bit for each concept a document containing the term
	// covers: its own, and any other whose expansion it also is.
	concept    int
	covers     uint32
	start, end int // byte range in the query, typed terms only
}

// concept is one idea of the query: a typed word or identifier, a
// dictionary term, or a CJK bigram that no dictionary term covers. A
// document covers a concept when it contains any of its terms, typed or
// expanded; coverage is what share of the query's concepts it covers.
type concept struct {
	label      string // the query text it stands for
	start, end int
	dict       bool // a dictionary term covers it
	// straddle marks a CJK bigram that crosses the edge of a dictionary
	// word: most likely the end of one word and the start of the next.
	straddle bool
	// partial marks a word of several CJK bigrams, covered in part by
	// each (see queryPlan.partials); bigrams is how many it has.
	partial bool
	bigrams int
}

// maxConcepts is the number of concepts a query tracks: one bit each in
// the typed and expanded halves of a document's concept mask.
const maxConcepts = 32

// queryPlan is an analysed query.
type queryPlan struct {
	text     string
	terms    []qterm
	concepts []concept
	// groups are expansions of several index terms ("dead letter",
	// 超时时间): a document covers their concept only when it has them
	// all, not one word of them.
	groups []termGroup
}

// termGroup is a multi-term expansion of a concept.
type termGroup struct {
	toks    []string
	concept int
}

const maxQueryTerms = 64 // at most this many terms are searched

// analyzeQuery returns the weighted terms of a query (see plan).
func (ix *Index) analyzeQuery(text string) []qterm { return ix.plan(text).terms }

// planCheckEvery is how many query tokens plan analyses between two looks
// at its context: often enough to stop within a millisecond, seldom
// enough to cost nothing.
const planCheckEvery = 256

// plan turns query text into weighted terms grouped into concepts: the
// typed terms, then dictionary expansions of the typed words, weighted
// below them.
func (ix *Index) plan(text string) *queryPlan {
	qp, _ := ix.planContext(context.Background(), text)
	return qp
}

// planContext is plan that stops with ctx's error once ctx is done. Its
// work grows linearly with the length of the query (see
// BenchmarkRecallQueryLength in package vault): terms are found through a
// map, and the spans that group and cross them through sorted lists, never
// by comparing every pair.
func (ix *Index) planContext(ctx context.Context, text string) (*queryPlan, error) {
	var a analyzer
	a.keepStops = true
	a.runs = true
	qp := &queryPlan{text: text}
	var units []unit
	work := 0                  // inner-loop steps, for Index.planWork
	at := make(map[string]int) // term text -> index in qp.terms
	add := func(t qterm) {
		work++
		if i, ok := at[t.text]; ok {
			old := qp.terms[i]
			covers := old.covers | t.covers
			if t.w > old.w {
				t.start, t.end = old.start, old.end
				if old.typed {
					t.concept = old.concept
				}
				qp.terms[i] = t
			}
			qp.terms[i].covers = covers
			return
		}
		at[t.text] = len(qp.terms)
		qp.terms = append(qp.terms, t)
	}
	tokens, stopped := 0, false
	a.analyze(text, func(t *token) {
		if stopped {
			return
		}
		if tokens++; tokens%planCheckEvery == 0 && ctx.Err() != nil {
			stopped = true
			return
		}
		switch t.kind {
		case kindCJKRun:
			units = append(units, unit{cjk: string(t.text), start: t.start, end: t.end})
			return
		case kindWord, kindPart:
			units = append(units, unit{word: string(t.text), start: t.start, end: t.end})
		}
		if t.stop {
			return
		}
		w := 1.0
		switch t.kind {
		case kindPart:
			w = ix.p.wPart
		case kindUnigram:
			w = ix.p.wUnigram
		case kindBigram:
			if _, ok := cjkDeterminers[string(t.text)]; ok {
				w = ix.p.wDeterminer
			}
		}
		add(qterm{text: string(t.text), w: w, typed: true, kind: t.kind, src: SourceTyped,
			start: t.start, end: t.end, concept: -1})
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nTyped := len(qp.terms)

	// Group typed terms into concepts: the pieces of one identifier are
	// one concept, and so is everything a dictionary term covers.
	parent := make([]int, nTyped)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	union := func(i, j int) { parent[find(i)] = find(j) }
	latin := func(k tokKind) bool { return k == kindWord || k == kindPart || k == kindCompound }
	// byStart orders the typed terms by where they start. Overlapping
	// Latin terms form one concept: sweeping them in that order, a term
	// overlaps the group before it when it starts before the group's end.
	byStart := make([]int, nTyped)
	for i := range byStart {
		byStart[i] = i
	}
	slices.SortStableFunc(byStart, func(i, j int) int { return cmp.Compare(qp.terms[i].start, qp.terms[j].start) })
	starts := make([]int, nTyped)
	for k, i := range byStart {
		starts[k] = qp.terms[i].start
	}
	group, reach := -1, 0
	for _, i := range byStart {
		t := &qp.terms[i]
		if !latin(t.kind) {
			continue
		}
		work++
		if group >= 0 && t.start < reach {
			union(i, group)
			reach = max(reach, t.end)
		} else {
			group, reach = i, t.end
		}
	}
	// within calls fn for each typed term inside [s, e), in no order.
	within := func(s, e int, fn func(i int)) {
		k, _ := slices.BinarySearch(starts, s)
		for ; k < len(starts) && starts[k] < e; k++ {
			work++
			if i := byStart[k]; qp.terms[i].end <= e {
				fn(i)
			}
		}
	}
	type span struct {
		id         int32
		start, end int
		rep        int // a typed term inside, or -1
	}
	var spans []span
	dictCovered := make([]bool, nTyped)
	if ix.dict != nil {
		ix.dict.match(units, func(id int32, s, e int) {
			rep := -1
			within(s, e, func(i int) {
				dictCovered[i] = true
				if rep < 0 || i < rep {
					rep = i
				}
			})
			within(s, e, func(i int) { union(i, rep) })
			spans = append(spans, span{id, s, e, rep})
		})
	}
	curated := newSpanSet(len(spans))
	for _, sp := range spans {
		curated.add(sp.start, sp.end)
	}
	curated.build()
	// The general dictionary segments Chinese text the curated one does
	// not cover; its words never cross a curated term.
	var general generalLexicon
	var gspans []span
	if ix.general != nil {
		general = ix.general()
	}
	if general != nil {
		general.match(units, func(id int32, s, e int) {
			work++
			if curated.crosses(s, e) {
				return
			}
			rep := -1
			within(s, e, func(i int) {
				if rep < 0 || i < rep {
					rep = i
				}
			})
			within(s, e, func(i int) { union(i, rep) })
			gspans = append(gspans, span{id, s, e, rep})
		})
	}
	root := make(map[int]int)
	for i := range nTyped {
		r := find(i)
		c, ok := root[r]
		if !ok {
			if len(qp.concepts) == maxConcepts {
				continue
			}
			c = len(qp.concepts)
			root[r] = c
			qp.concepts = append(qp.concepts, concept{start: qp.terms[i].start, end: qp.terms[i].end})
		}
		qp.terms[i].concept = c
		qp.terms[i].covers = 1 << uint(c)
		k := &qp.concepts[c]
		k.start, k.end = min(k.start, qp.terms[i].start), max(k.end, qp.terms[i].end)
		k.dict = k.dict || dictCovered[i]
	}
	for i := range qp.concepts {
		qp.concepts[i].label = text[qp.concepts[i].start:qp.concepts[i].end]
	}
	// A concept of several CJK bigrams (a Chinese word of three or more
	// characters) is covered in part by each of them: 覆盖 alone is not
	// 覆盖率. Its typed bigrams cover it only together (see partials);
	// a translation of the whole word still covers it at once.
	if ix.p.partialCJK {
		nb := make([]int, len(qp.concepts))
		for i := range nTyped {
			if t := qp.terms[i]; t.concept >= 0 {
				if t.kind == kindBigram {
					nb[t.concept]++
				} else {
					nb[t.concept] = -1 << 20 // mixed concepts stay whole
				}
			}
		}
		for i := range nTyped {
			if t := &qp.terms[i]; t.concept >= 0 && nb[t.concept] > 1 {
				t.covers = 0
				qp.concepts[t.concept].partial = true
				qp.concepts[t.concept].bigrams = nb[t.concept]
			}
		}
	}
	// A bigram that no dictionary word holds but that crosses the edge of
	// one, or holds a shorter one, straddles two words.
	all := newSpanSet(len(spans) + len(gspans))
	for _, sp := range append(spans, gspans...) {
		all.add(sp.start, sp.end)
	}
	all.build()
	for i := range nTyped {
		t := &qp.terms[i]
		if t.kind != kindBigram || t.concept < 0 || qp.concepts[t.concept].dict {
			continue
		}
		work++
		if all.crosses(t.start, t.end) || all.holds(t.start, t.end) {
			qp.concepts[t.concept].straddle = true
		}
	}

	for _, sp := range spans {
		c := -1
		if sp.rep >= 0 {
			c = qp.terms[sp.rep].concept
		}
		from := ix.dict.terms[sp.id].text
		expand := func(targets []int32, w0 float64, src Source, c int) {
			for _, to := range targets {
				toks := ix.dict.terms[to].toks
				w := w0 / math.Pow(float64(len(toks)), ix.p.expandPow)
				cov := coverBit(c)
				if len(toks) > 1 {
					qp.groups = append(qp.groups, termGroup{toks, c})
					cov = 0
				}
				for _, tok := range toks {
					add(qterm{text: tok, w: w, kind: kindWord, src: src, from: from, concept: c, covers: cov})
				}
			}
		}
		// A typed word the index has never seen can only be found
		// through its synonyms and translations: weigh them more.
		w := ix.p.wExpand
		if ix.absent(ix.dict.terms[sp.id].toks) {
			w = ix.p.wExpandAbsent
		}
		expand(ix.dict.expand[sp.id], w, SourceDict, c)
		// Answer words stand for no concept of the query.
		expand(ix.dict.oneWay[sp.id], ix.p.wOneWay, SourceParaphrase, -1)
	}

	for _, sp := range gspans {
		if sp.rep < 0 {
			continue
		}
		c := qp.terms[sp.rep].concept
		from := general.text(sp.id)
		// Chinese words lead to their English senses and one-word
		// English senses back to their Chinese words. A general
		// dictionary knows many senses; only those the vault uses count.
		targets := general.senses(sp.id)
		w0 := ix.p.wGeneral
		if len(targets) == 0 {
			targets, w0 = general.headwords(sp.id), ix.p.wGeneralRev
		}
		var keep [][]string
		for _, to := range targets {
			if toks := general.toks(to); ix.present(toks) {
				keep = append(keep, toks)
			}
		}
		if len(keep) > ix.p.maxGeneral {
			keep = keep[:ix.p.maxGeneral]
		}
		for _, toks := range keep {
			w := w0 / math.Pow(float64(len(toks)), ix.p.expandPow)
			cov := coverBit(c)
			if len(toks) > 1 {
				qp.groups = append(qp.groups, termGroup{toks, c})
				cov = 0
			}
			for _, tok := range toks {
				add(qterm{text: tok, w: w, kind: kindWord, src: SourceGeneral, from: from, concept: c, covers: cov})
			}
		}
	}

	// Translations the vault itself teaches, weighted by confidence, for
	// the words the dictionaries could not translate: what the vault
	// calls things that no dictionary knows.
	if ix.p.wLearned > 0 {
		crossed := make([]bool, len(qp.concepts))
		for _, t := range qp.terms[nTyped:] {
			if t.concept >= 0 && t.src != SourceParaphrase {
				c := qp.concepts[t.concept]
				if termIsCJK([]byte(t.text)) != termIsCJK([]byte(qp.text[c.start:c.end])) {
					crossed[t.concept] = true
				}
			}
		}
		for i := range nTyped {
			t := qp.terms[i]
			if t.concept < 0 || t.kind == kindPart || t.kind == kindUnigram || !t.typed || crossed[t.concept] {
				continue
			}
			for _, l := range ix.translations(t.text, ix.p.maxLearned, ix.p.minLearned) {
				add(qterm{text: l.text, w: ix.p.wLearned * l.conf, kind: kindWord, src: SourceLearned,
					from: t.text, concept: t.concept, covers: coverBit(t.concept)})
			}
		}
	}

	// Typed terms first, then the heaviest expansions, within the caps.
	terms := qp.terms
	slices.SortStableFunc(terms[nTyped:], func(x, y qterm) int {
		switch {
		case x.w > y.w:
			return -1
		case x.w < y.w:
			return 1
		}
		return 0
	})
	if len(terms)-nTyped > ix.p.maxExpand {
		terms = terms[:nTyped+ix.p.maxExpand]
	}
	if len(terms) > maxQueryTerms {
		slices.SortStableFunc(terms, func(x, y qterm) int {
			switch {
			case x.w > y.w:
				return -1
			case x.w < y.w:
				return 1
			}
			return 0
		})
		terms = terms[:maxQueryTerms]
	}
	qp.terms = terms
	if ix.planWork != nil {
		ix.planWork(work)
	}
	return qp, nil
}

// bm25Weight is the query weight of term t in BM25: its weight, except
// that the n overlapping bigrams of one Chinese word of three or more
// characters (覆盖率: 覆盖, 盖率) share it, each weighing 1/n^pow. Summed
// in full, a four-character word counted three times against a one-word
// concept typed in English or a two-character word, and its straddling
// middle bigram (营后 in 运营后台) as much as its real parts; √n is the
// share a multi-word expansion gets too (expandPow).
func (qp *queryPlan) bm25Weight(t qterm, pow float64) float64 {
	if t.typed && t.kind == kindBigram && t.concept >= 0 {
		if n := qp.concepts[t.concept].bigrams; n > 1 {
			return t.w / math.Pow(float64(n), pow)
		}
	}
	return t.w
}

// coverBit is the concept mask bit of concept c, or 0 for none.
func coverBit(c int) uint32 {
	if c < 0 {
		return 0
	}
	return 1 << uint(c)
}

// groupMasks returns, for each multi-term expansion whose terms are all
// among the first 31 query terms (those the term mask tracks), the mask
// of its terms and the concept bit it covers.
func (qp *queryPlan) groupMasks() (masks, bits []uint32) {
	for _, g := range qp.groups {
		if g.concept < 0 {
			continue
		}
		var m uint32
		for _, tok := range g.toks {
			i := slices.IndexFunc(qp.terms, func(t qterm) bool { return t.text == tok })
			if i < 0 || i >= 31 {
				m = 0
				break
			}
			m |= 1 << uint(i)
		}
		if m != 0 {
			masks, bits = append(masks, m), append(bits, coverBit(g.concept))
		}
	}
	return masks, bits
}

// partials returns, for each concept covered in part by its typed CJK
// bigrams, the mask of those bigrams among the first 31 terms and how
// many of them there are.
func (qp *queryPlan) partials() (concepts []int, masks []uint32, counts []int) {
	for c, k := range qp.concepts {
		if !k.partial {
			continue
		}
		var m uint32
		n := 0
		for i, t := range qp.terms {
			if t.typed && t.concept == c && t.kind == kindBigram {
				n++
				if i < 31 {
					m |= 1 << uint(i)
				}
			}
		}
		if n > 0 {
			concepts, masks, counts = append(concepts, c), append(masks, m), append(counts, n)
		}
	}
	return concepts, masks, counts
}
