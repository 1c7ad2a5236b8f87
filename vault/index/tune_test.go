package index

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/memvault/memvault/vault/internal/evalcorpus"
)

var evalTune = flag.Bool("eval.tune", false, "sweep ranking parameters one at a time on dev and held-out")

// TestTune sweeps each ranking parameter around the default and logs dev
// and held-out figures side by side, so a change is judged on both. It
// only runs with -eval.tune.
func TestTune(t *testing.T) {
	t.Parallel()
	if !*evalTune {
		t.Skip("run with -eval.tune")
	}
	c := evalcorpus.Load(t, devCorpus)
	var held evalCorpus
	b, err := os.ReadFile(filepath.Join("testdata", "heldout.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &held); err != nil {
		t.Fatal(err)
	}
	d, err := parseDictionary(defaultTerms)
	if err != nil {
		t.Fatal(err)
	}
	run := func(p params) (evalResult, evalResult) {
		ix := newIndex(p, d)
		for i, m := range c.Memories {
			ix.Put(DocID(i), Doc{Title: m.Title, Tags: m.Tags, Body: m.Content})
		}
		return runEval(ix, c.Memories, c.Queries), runEval(ix, c.Memories, held.Queries)
	}
	sweeps := []struct {
		name string
		vals []float64
		set  func(p *params, v float64)
	}{
		{"k1", []float64{0.6, 0.9, 1.2, 1.6, 2.0}, func(p *params, v float64) { p.k1 = v }},
		{"w.title", []float64{1.5, 2, 3, 4, 5}, func(p *params, v float64) { p.weight[fieldTitle] = v }},
		{"w.tags", []float64{1, 1.5, 2.5, 3.5, 5}, func(p *params, v float64) { p.weight[fieldTags] = v }},
		{"b.title", []float64{0, 0.3, 0.5, 0.75, 1}, func(p *params, v float64) { p.b[fieldTitle] = v }},
		{"b.body", []float64{0.3, 0.5, 0.75, 0.9, 1}, func(p *params, v float64) { p.b[fieldBody] = v }},
		{"wExpand", []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.8}, func(p *params, v float64) { p.wExpand = v }},
		{"wExpandAbsent", []float64{0.5, 0.65, 0.8, 0.9, 1}, func(p *params, v float64) { p.wExpandAbsent = v }},
		{"wOneWay", []float64{0.2, 0.3, 0.4, 0.5, 0.6}, func(p *params, v float64) { p.wOneWay = v }},
		{"expandPow", []float64{0, 0.3, 0.5, 0.75, 1}, func(p *params, v float64) { p.expandPow = v }},
		{"wPart", []float64{0.2, 0.35, 0.5, 0.7, 1}, func(p *params, v float64) { p.wPart = v }},
		{"maxExpand", []float64{8, 16, 32, 64}, func(p *params, v float64) { p.maxExpand = int(v) }},
	}
	for _, s := range sweeps {
		for _, v := range s.vals {
			p := defaultParams()
			s.set(&p, v)
			dev, ho := run(p)
			t.Logf("%-10s %5.2f  dev R@5 %.3f MRR %.3f para %.3f mixed %.3f | held R@5 %.3f MRR %.3f",
				s.name, v, dev.all.Recall5(), dev.all.MRR10(), dev.groups["kind/paraphrase"].Recall5(),
				dev.groups["kind/mixed"].Recall5(), ho.all.Recall5(), ho.all.MRR10())
		}
	}
}
