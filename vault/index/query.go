package index

import (
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
	// work counts the planner's inner-loop steps: what a test checks
	// grows linearly with the query, where time would be noise.
	work int
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
	p := &planner{ix: ix, qp: &queryPlan{text: text}, at: make(map[string]int)}
	units, err := p.typed(ctx, text)
	if err != nil {
		return nil, err
	}
	p.groupLatin()
	p.matchDictionaries(units)
	p.assignConcepts(text)
	if ix.p.partialCJK {
		p.markPartials()
	}
	p.markStraddles()
	p.expandCurated()
	p.expandGeneral()
	if ix.p.wLearned > 0 {
		p.expandLearned()
	}
	p.capTerms()
	p.qp.work = p.work
	return p.qp, nil
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
