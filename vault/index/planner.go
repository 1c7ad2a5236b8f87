package index

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// planner is the state of one planContext: the plan being built and what
// its steps hand each other. Each step is one method, called in order.
type planner struct {
	ix   *Index
	qp   *queryPlan
	work int            // inner-loop steps, reported as queryPlan.work
	at   map[string]int // term text -> index in qp.terms
	// nTyped is how many of qp.terms were typed; expansions follow them.
	nTyped int
	// parent is the union-find forest grouping typed terms into concepts.
	parent []int
	// byStart orders the typed terms by where they start; starts holds
	// those starts, for binary search.
	byStart, starts []int
	// spans are the curated dictionary's terms found in the query,
	// gspans the general dictionary's; dictCovered marks the typed terms
	// a curated term covers.
	spans, gspans []dictSpan
	dictCovered   []bool
	general       generalLexicon
}

// dictSpan is a dictionary term found in the query.
type dictSpan struct {
	id         int32
	start, end int
	rep        int // a typed term inside, or -1
}

// add adds a term to the plan, or merges it into the term of the same
// text: the heavier weight wins, and the covers add up.
func (p *planner) add(t qterm) {
	p.work++
	qp := p.qp
	if i, ok := p.at[t.text]; ok {
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
	p.at[t.text] = len(qp.terms)
	qp.terms = append(qp.terms, t)
}

// typed analyses the query text into its typed terms and returns its
// units for the dictionaries to match; it stops with ctx's error.
func (p *planner) typed(ctx context.Context, text string) ([]unit, error) {
	var a analyzer
	a.keepStops = true
	a.runs = true
	var units []unit
	ix := p.ix
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
		p.add(qterm{text: string(t.text), w: w, typed: true, kind: t.kind, src: SourceTyped,
			start: t.start, end: t.end, concept: -1})
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.nTyped = len(p.qp.terms)
	return units, nil
}

func (p *planner) find(i int) int {
	for p.parent[i] != i {
		p.parent[i] = p.parent[p.parent[i]]
		i = p.parent[i]
	}
	return i
}

func (p *planner) union(i, j int) { p.parent[p.find(i)] = p.find(j) }

// groupLatin starts grouping typed terms into concepts: the pieces of one
// identifier are one concept. Overlapping Latin terms form one concept:
// sweeping them in the order they start, a term overlaps the group before
// it when it starts before the group's end.
func (p *planner) groupLatin() {
	nTyped, terms := p.nTyped, p.qp.terms
	p.parent = make([]int, nTyped)
	for i := range p.parent {
		p.parent[i] = i
	}
	latin := func(k tokKind) bool { return k == kindWord || k == kindPart || k == kindCompound }
	p.byStart = make([]int, nTyped)
	for i := range p.byStart {
		p.byStart[i] = i
	}
	slices.SortStableFunc(p.byStart, func(i, j int) int { return cmp.Compare(terms[i].start, terms[j].start) })
	p.starts = make([]int, nTyped)
	for k, i := range p.byStart {
		p.starts[k] = terms[i].start
	}
	group, reach := -1, 0
	for _, i := range p.byStart {
		t := &terms[i]
		if !latin(t.kind) {
			continue
		}
		p.work++
		if group >= 0 && t.start < reach {
			p.union(i, group)
			reach = max(reach, t.end)
		} else {
			group, reach = i, t.end
		}
	}
}

// within calls fn for each typed term inside [s, e), in no order.
func (p *planner) within(s, e int, fn func(i int)) {
	k, _ := slices.BinarySearch(p.starts, s)
	for ; k < len(p.starts) && p.starts[k] < e; k++ {
		p.work++
		if i := p.byStart[k]; p.qp.terms[i].end <= e {
			fn(i)
		}
	}
}

// matchDictionaries finds the dictionaries' terms in the query's units:
// everything a dictionary term covers is one concept. The general
// dictionary segments Chinese text the curated one does not cover; its
// words never cross a curated term.
func (p *planner) matchDictionaries(units []unit) {
	ix := p.ix
	p.dictCovered = make([]bool, p.nTyped)
	if ix.dict != nil {
		ix.dict.match(units, func(id int32, s, e int) {
			rep := -1
			p.within(s, e, func(i int) {
				p.dictCovered[i] = true
				if rep < 0 || i < rep {
					rep = i
				}
			})
			p.within(s, e, func(i int) { p.union(i, rep) })
			p.spans = append(p.spans, dictSpan{id, s, e, rep})
		})
	}
	curated := newSpanSet(len(p.spans))
	for _, sp := range p.spans {
		curated.add(sp.start, sp.end)
	}
	curated.build()
	if ix.general != nil {
		p.general = ix.general()
	}
	if p.general != nil {
		p.general.match(units, func(id int32, s, e int) {
			p.work++
			if curated.crosses(s, e) {
				return
			}
			rep := -1
			p.within(s, e, func(i int) {
				if rep < 0 || i < rep {
					rep = i
				}
			})
			p.within(s, e, func(i int) { p.union(i, rep) })
			p.gspans = append(p.gspans, dictSpan{id, s, e, rep})
		})
	}
}

// assignConcepts makes each group of typed terms a concept (at most
// maxConcepts) and labels it with the query text it spans.
func (p *planner) assignConcepts(text string) {
	qp := p.qp
	root := make(map[int]int)
	for i := range p.nTyped {
		r := p.find(i)
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
		k.dict = k.dict || p.dictCovered[i]
	}
	for i := range qp.concepts {
		qp.concepts[i].label = text[qp.concepts[i].start:qp.concepts[i].end]
	}
}

// markPartials marks the concepts of several CJK bigrams (a Chinese word
// of three or more characters), each covered in part by each of them:
// 覆盖 alone is not 覆盖率. Its typed bigrams cover it only together (see
// partials); a translation of the whole word still covers it at once.
func (p *planner) markPartials() {
	qp := p.qp
	nb := make([]int, len(qp.concepts))
	for i := range p.nTyped {
		if t := qp.terms[i]; t.concept >= 0 {
			if t.kind == kindBigram {
				nb[t.concept]++
			} else {
				nb[t.concept] = -1 << 20 // mixed concepts stay whole
			}
		}
	}
	for i := range p.nTyped {
		if t := &qp.terms[i]; t.concept >= 0 && nb[t.concept] > 1 {
			t.covers = 0
			qp.concepts[t.concept].partial = true
			qp.concepts[t.concept].bigrams = nb[t.concept]
		}
	}
}

// markStraddles marks the bigrams that no dictionary word holds but that
// cross the edge of one, or hold a shorter one: they straddle two words.
func (p *planner) markStraddles() {
	qp := p.qp
	all := newSpanSet(len(p.spans) + len(p.gspans))
	for _, sp := range append(p.spans, p.gspans...) {
		all.add(sp.start, sp.end)
	}
	all.build()
	for i := range p.nTyped {
		t := &qp.terms[i]
		if t.kind != kindBigram || t.concept < 0 || qp.concepts[t.concept].dict {
			continue
		}
		p.work++
		if all.crosses(t.start, t.end) || all.holds(t.start, t.end) {
			qp.concepts[t.concept].straddle = true
		}
	}
}

// expansion adds the terms of one expansion toks of concept c: a
// multi-term expansion covers c only whole (a group), so its terms cover
// nothing on their own.
func (p *planner) expansion(toks []string, w0 float64, src Source, from string, c int) {
	w := w0 / math.Pow(float64(len(toks)), p.ix.p.expandPow)
	cov := coverBit(c)
	if len(toks) > 1 {
		p.qp.groups = append(p.qp.groups, termGroup{toks, c})
		cov = 0
	}
	for _, tok := range toks {
		p.add(qterm{text: tok, w: w, kind: kindWord, src: src, from: from, concept: c, covers: cov})
	}
}

// expandCurated adds the curated dictionary's synonyms, translations and
// paraphrases of the terms it found.
func (p *planner) expandCurated() {
	ix := p.ix
	for _, sp := range p.spans {
		c := -1
		if sp.rep >= 0 {
			c = p.qp.terms[sp.rep].concept
		}
		from := ix.dict.terms[sp.id].text
		expand := func(targets []int32, w0 float64, src Source, c int) {
			for _, to := range targets {
				p.expansion(ix.dict.terms[to].toks, w0, src, from, c)
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
}

// expandGeneral adds the general dictionary's translations: Chinese words
// lead to their English senses and one-word English senses back to their
// Chinese words. A general dictionary knows many senses; only those the
// vault uses count.
func (p *planner) expandGeneral() {
	ix, general := p.ix, p.general
	for _, sp := range p.gspans {
		if sp.rep < 0 {
			continue
		}
		c := p.qp.terms[sp.rep].concept
		from := general.text(sp.id)
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
			p.expansion(toks, w0, SourceGeneral, from, c)
		}
	}
}

// expandLearned adds the translations the vault itself teaches, weighted
// by confidence, for the words the dictionaries could not translate: what
// the vault calls things that no dictionary knows.
func (p *planner) expandLearned() {
	ix, qp := p.ix, p.qp
	crossed := make([]bool, len(qp.concepts))
	for _, t := range qp.terms[p.nTyped:] {
		if t.concept >= 0 && t.src != SourceParaphrase {
			c := qp.concepts[t.concept]
			if termIsCJK([]byte(t.text)) != termIsCJK([]byte(qp.text[c.start:c.end])) {
				crossed[t.concept] = true
			}
		}
	}
	for i := range p.nTyped {
		t := qp.terms[i]
		if t.concept < 0 || t.kind == kindPart || t.kind == kindUnigram || !t.typed || crossed[t.concept] {
			continue
		}
		for _, l := range ix.translations(t.text, ix.p.maxLearned, ix.p.minLearned) {
			p.add(qterm{text: l.text, w: ix.p.wLearned * l.conf, kind: kindWord, src: SourceLearned,
				from: t.text, concept: t.concept, covers: coverBit(t.concept)})
		}
	}
}

// capTerms keeps the typed terms first, then the heaviest expansions,
// within the caps.
func (p *planner) capTerms() {
	heavier := func(x, y qterm) int {
		switch {
		case x.w > y.w:
			return -1
		case x.w < y.w:
			return 1
		}
		return 0
	}
	terms := p.qp.terms
	slices.SortStableFunc(terms[p.nTyped:], heavier)
	if len(terms)-p.nTyped > p.ix.p.maxExpand {
		terms = terms[:p.nTyped+p.ix.p.maxExpand]
	}
	if len(terms) > maxQueryTerms {
		slices.SortStableFunc(terms, heavier)
		terms = terms[:maxQueryTerms]
	}
	p.qp.terms = terms
}
