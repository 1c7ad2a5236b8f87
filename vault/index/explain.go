package index

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Explanation says why a document ranks where it does for a query: which
// query terms it matched, in which fields, where each term came from and
// what it added to the relevance.
type Explanation struct {
	// Query is the query text.
	Query string `json:"query"`
	// Relevance is the document's relevance (Hit.Relevance): the sum of
	// the term scores times Coverage^CoveragePower.
	Relevance float64 `json:"relevance"`
	// Coverage is Hit.Coverage; CoveragePower is how much it weighs.
	Coverage      float64 `json:"coverage"`
	CoveragePower float64 `json:"coverage_power"`
	// Concepts are the query's concepts, matched or not.
	Concepts []ConceptMatch `json:"concepts"`
	// Terms are the query terms the document matched, heaviest first.
	Terms []TermMatch `json:"terms"`
}

// ConceptMatch is one concept of the query and how the document covered it.
type ConceptMatch struct {
	// Label is the query text the concept stands for.
	Label string `json:"label"`
	// Weight is the concept's share of the query's coverage weight (the
	// weights of all concepts add up to 1).
	Weight float64 `json:"weight"`
	// How is "typed" when the document contains a typed term of the
	// concept, "expanded" when it contains only an expansion, "" when
	// it contains neither.
	How string `json:"how,omitempty"`
}

// TermMatch is one query term found in the document.
type TermMatch struct {
	// Term is the index term (as Tokenize produces it).
	Term string `json:"term"`
	// Source says where the term came from; From is, for an expansion,
	// the dictionary spelling of the query word it translates.
	Source Source `json:"source"`
	From   string `json:"from,omitempty"`
	// Concept is the label of the query concept the term stands for, or
	// empty for a question word's paraphrase.
	Concept string `json:"concept,omitempty"`
	// Weight is the term's query weight (1 for a typed word; less for
	// identifier parts, lone Chinese characters and expansions).
	Weight float64 `json:"weight"`
	// Title, Aliases, Tags and Body count the term's occurrences in each
	// field.
	Title   int `json:"title,omitempty"`
	Aliases int `json:"aliases,omitempty"`
	Tags    int `json:"tags,omitempty"`
	Body    int `json:"body,omitempty"`
	// Score is what the term added to the relevance before coverage.
	Score float64 `json:"score"`
}

// fieldList names the fields the term occurs in, with counts.
func (t TermMatch) fieldList() string {
	var parts []string
	for _, f := range []struct {
		name string
		n    int
	}{{"title", t.Title}, {"aliases", t.Aliases}, {"tags", t.Tags}, {"body", t.Body}} {
		if f.n > 0 {
			parts = append(parts, fmt.Sprintf("%s×%d", f.name, f.n))
		}
	}
	return strings.Join(parts, " ")
}

// Explain returns why document id matches the query text, or nil when the
// index does not hold it. It costs a scan of each query term's postings,
// so call it for the few results a user asked to have explained.
func (ix *Index) Explain(text string, id DocID) *Explanation {
	slot, ok := ix.slot(id)
	if !ok {
		return nil
	}
	qp := ix.plan(text)
	p := &ix.p
	n := float64(ix.live)
	var norm [numFields]float64
	for f := range norm {
		avg := max(ix.lenSum[f]/float64(ix.live), 1)
		l := float64(codeLength[ix.lens[f][slot]])
		norm[f] = p.weight[f] / (1 - p.b[f] + p.b[f]*l/avg)
	}
	e := &Explanation{Query: text, CoveragePower: p.covPow}
	cw := make([]float64, len(qp.concepts))
	absent := make([]bool, len(qp.concepts))
	for c := range absent {
		absent[c] = !qp.concepts[c].dict
	}
	how := make([]string, len(qp.concepts))
	part := make([]int, len(qp.concepts)) // typed bigrams found, of a word covered in part
	matched := map[string]bool{}
	sum := 0.0
	for _, t := range qp.terms {
		pl := ix.terms.get(t.text)
		df := float64(ix.liveDF(pl))
		if t.concept >= 0 && t.typed {
			cw[t.concept] = max(cw[t.concept], math.Pow(idf(n, max(df, 1)), p.cwPow)*t.w)
			if df > 0 || t.kind != kindBigram {
				absent[t.concept] = false
			}
		}
		if df == 0 || (!t.typed && ix.live >= p.expandMinN && df > p.expandMaxDF*n) {
			continue
		}
		var tf [numFields]uint8
		found := false
		pl.each(func(s uint32, f [numFields]uint8) {
			if s == slot {
				tf, found = f, true
			}
		})
		if !found {
			continue
		}
		xs := 0.0
		for f := range tf {
			xs += float64(tf[f]) * float64(float32(norm[f]))
		}
		sc := idf(n, df) * qp.bm25Weight(t, p.bigramPow) * xs / (p.k1 + xs)
		sum += sc
		tm := TermMatch{Term: t.text, Source: t.src, From: t.from, Weight: qp.bm25Weight(t, p.bigramPow), Score: sc,
			Title: int(tf[fieldTitle]), Aliases: int(tf[fieldAlias]), Tags: int(tf[fieldTags]), Body: int(tf[fieldBody])}
		if t.concept >= 0 {
			tm.Concept = qp.concepts[t.concept].label
		}
		if t.typed && t.concept >= 0 && qp.concepts[t.concept].partial && t.kind == kindBigram {
			part[t.concept]++
		}
		for c := range qp.concepts {
			switch {
			case t.covers&(1<<uint(c)) == 0:
			case t.typed && c == t.concept:
				how[c] = "typed"
			case how[c] == "":
				how[c] = "expanded"
			}
		}
		e.Terms = append(e.Terms, tm)
		matched[t.text] = true
	}
	for _, g := range qp.groups {
		all := g.concept >= 0
		for _, tok := range g.toks {
			all = all && matched[tok]
		}
		if all && how[g.concept] == "" {
			how[g.concept] = "expanded"
		}
	}
	total, got := 0.0, 0.0
	for c := range cw {
		if absent[c] || qp.concepts[c].straddle {
			cw[c] *= p.straddle
		}
		total += cw[c]
	}
	for c, k := range qp.concepts {
		w := 0.0
		if total > 0 {
			w = cw[c] / total
		}
		switch {
		case how[c] != "":
			got += w
		case part[c] > 0:
			n := 0
			for _, t := range qp.terms {
				if t.typed && t.concept == c && t.kind == kindBigram {
					n++
				}
			}
			got += w * float64(part[c]) / float64(n)
			how[c] = fmt.Sprintf("partly (%d of %d)", part[c], n)
		}
		e.Concepts = append(e.Concepts, ConceptMatch{Label: k.label, Weight: w, How: how[c]})
	}
	if total == 0 {
		got = 1
	}
	e.Coverage = got
	e.Relevance = sum * math.Pow(got, p.covPow)
	sortTerms(e.Terms)
	return e
}

func sortTerms(ts []TermMatch) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Score > ts[j-1].Score; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// Format writes the explanation as indented text, one line per concept
// and per matched term, for `recall --explain`.
func (e *Explanation) Format(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "relevance %.3f = term scores %.3f × coverage %.2f^%g\n", e.Relevance, e.termSum(), e.Coverage, e.CoveragePower)
	b.WriteString("concepts:\n")
	for _, c := range e.Concepts {
		how := c.How
		if how == "" {
			how = "missing"
		}
		fmt.Fprintf(&b, "  %-24s weight %.2f  %s\n", quote(c.Label), c.Weight, how)
	}
	b.WriteString("matched terms:\n")
	for _, t := range e.Terms {
		src := t.Source.String()
		if t.From != "" {
			src += " of " + quote(t.From)
		}
		fmt.Fprintf(&b, "  %-16s %+.3f  weight %.2f  %-30s %s\n", quote(t.Term), t.Score, t.Weight, src, t.fieldList())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (e *Explanation) termSum() float64 {
	s := 0.0
	for _, t := range e.Terms {
		s += t.Score
	}
	return s
}

func quote(s string) string { return `"` + s + `"` }
