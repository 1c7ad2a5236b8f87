package index

import (
	"fmt"
	"testing"

	"github.com/memvault/memvault/vault/internal/evalcorpus"
)

const devCorpusV2 = "../../../shared/eval/dev-v2.json"

// answerable drops the queries that no memory answers (kind none).
func answerable(qs []evalQuery) []evalQuery {
	var out []evalQuery
	for _, q := range qs {
		if len(q.Gold) > 0 {
			out = append(out, q)
		}
	}
	return out
}

func TestEvalV2Sweep(t *testing.T) {
	if !*evalTune {
		t.Skip("run with -eval.tune")
	}
	c := evalcorpus.Load(t, devCorpusV2)
	d, err := parseDictionary(defaultTerms)
	if err != nil {
		t.Fatal(err)
	}
	qa, qb := evalcorpus.SplitHalves(answerable(c.Queries))
	run := func(p params, curated bool) (evalResult, evalResult) {
		ix := newIndex(p, d)
		if !curated {
			ix.dict = nil
		}
		for i, m := range c.Memories {
			ix.Put(DocID(i), Doc{Title: m.Title, Tags: m.Tags, Body: m.Content})
		}
		// The vault's layer weights (vault/layer.go) and importance boost;
		// fresh memories do not decay.
		lw := map[int]float64{1: 1.1, 2: 1.05, 3: 1, 4: 0.9, 5: 0.6}
		w := func(id DocID, rel float64) float64 {
			m := c.Memories[id]
			return rel * lw[m.Layer] * (1 + 0.025*float64(min(10, max(1, m.Importance))-5))
		}
		return runEvalWeighted(ix, c.Memories, qa, w), runEvalWeighted(ix, c.Memories, qb, w)
	}
	line := func(r evalResult) string {
		g := r.groups
		return fmt.Sprintf("R1 %.3f R5 %.3f MRR %.3f | para %.2f/%.2f mixed %.2f/%.2f zh %.2f en %.2f",
			r.all.Recall1(), r.all.Recall5(), r.all.MRR10(),
			g["kind/paraphrase"].Recall1(), g["kind/paraphrase"].Recall5(),
			g["kind/mixed"].Recall1(), g["kind/mixed"].Recall5(),
			g["lang/zh"].Recall1(), g["lang/en"].Recall1())
	}
	sweeps := []struct {
		name string
		vals []float64
		set  func(p *params, v float64)
	}{
		{"covPow", []float64{0, 0.5, 1, 1.5, 2, 3}, func(p *params, v float64) { p.covPow = v }},
		{"partialCJK", []float64{0, 1}, func(p *params, v float64) { p.partialCJK = v == 1 }},
		{"cwPow", []float64{0, 0.5, 1, 1.5}, func(p *params, v float64) { p.cwPow = v }},
		{"k1", []float64{0.9, 1.2, 1.6, 2.0}, func(p *params, v float64) { p.k1 = v }},
		{"w.title", []float64{2, 3, 4}, func(p *params, v float64) { p.weight[fieldTitle] = v }},
		{"w.tags", []float64{1.5, 2.5, 3.5}, func(p *params, v float64) { p.weight[fieldTags] = v }},
		{"b.body", []float64{0.5, 0.75, 0.9}, func(p *params, v float64) { p.b[fieldBody] = v }},
		{"wOneWay", []float64{0, 0.15, 0.3, 0.5}, func(p *params, v float64) { p.wOneWay = v }},
		{"wPart", []float64{0.3, 0.5, 0.7}, func(p *params, v float64) { p.wPart = v }},
		{"wLearned", []float64{0, 0.3, 0.5, 0.7}, func(p *params, v float64) { p.wLearned = v }},
		{"maxLearned", []float64{1, 2, 3, 5}, func(p *params, v float64) { p.maxLearned = int(v) }},
		{"minLearned", []float64{0.1, 0.2, 0.3, 0.5}, func(p *params, v float64) { p.minLearned = v }},
		{"wGeneral", []float64{0, 0.2, 0.3, 0.4, 0.6}, func(p *params, v float64) { p.wGeneral = v }},
		{"wGeneralRev", []float64{0, 0.2, 0.3, 0.4, 0.6}, func(p *params, v float64) { p.wGeneralRev = v }},
		{"straddle", []float64{0, 0.25, 0.5, 1}, func(p *params, v float64) { p.straddle = v }},
		{"wExpand", []float64{0.3, 0.5, 0.7}, func(p *params, v float64) { p.wExpand = v }},
	}
	// Without the curated dictionary, which was written with dev-v1 in
	// view, the general mechanisms show what they are worth on a vault
	// whose vocabulary nobody curated.
	for _, v := range []struct {
		name string
		set  func(p *params)
	}{
		{"bare", func(p *params) { p.wGeneral, p.wGeneralRev, p.wLearned = 0, 0, 0 }},
		{"+general", func(p *params) { p.wLearned = 0 }},
		{"+learned", func(p *params) { p.wGeneral, p.wGeneralRev = 0, 0 }},
		{"+both", func(p *params) {}},
	} {
		p := defaultParams()
		v.set(&p)
		a, b := run(p, false)
		t.Logf("no curated %-9s A: %s\n                 B: %s", v.name, line(a), line(b))
	}
	for _, s := range sweeps {
		for _, v := range s.vals {
			p := defaultParams()
			s.set(&p, v)
			a, b := run(p, true)
			t.Logf("%-10s %5.2f A: %s\n                 B: %s", s.name, v, line(a), line(b))
		}
	}
}
