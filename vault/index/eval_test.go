package index

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/internal/evalcorpus"
)

var evalVerbose = flag.Bool("eval.v", false, "log every eval query that misses the top 1")

// devCorpus is the shared bilingual retrieval corpus, beside the clone.
const devCorpus = "../../../shared/eval/dev-v1.json"

// The corpus types shared with the vault's eval tests.
type (
	evalMemory = evalcorpus.Memory
	evalQuery  = evalcorpus.Query
	evalCorpus = evalcorpus.Corpus
)

// layerWeight and importanceBoost mirror the vault's final ranking so that
// the eval measures what a user sees (time decay is ~1 for fresh memories).
func layerWeight(l int) float64 {
	switch l {
	case 4:
		return 0.9
	case 5:
		return 0.6
	}
	return 1
}

func importanceBoost(imp int) float64 {
	return min(max(1+float64(imp-5)*0.025, 0.9), 1.1)
}

// evalResult is the tally of one query set, overall and by kind and lang.
type evalResult struct {
	all    Tally
	groups map[string]*Tally
	misses []string
}

func runEval(ix *Index, mems []evalMemory, queries []evalQuery) evalResult {
	return runEvalWeighted(ix, mems, queries, func(id DocID, rel float64) float64 {
		m := mems[id]
		return rel * layerWeight(m.Layer) * importanceBoost(m.Importance)
	})
}

func runEvalWeighted(ix *Index, mems []evalMemory, queries []evalQuery, weight func(DocID, float64) float64) evalResult {
	r := evalResult{groups: map[string]*Tally{}}
	for _, q := range queries {
		hits := ix.Search(Query{Text: q.Q, Limit: 10, Weight: weight})
		ranked := make([]string, len(hits))
		for i, h := range hits {
			ranked[i] = mems[h.ID].Key
		}
		r.all.Add(ranked, q.Gold)
		for _, g := range []string{"kind/" + q.Kind, "lang/" + q.Lang} {
			if r.groups[g] == nil {
				r.groups[g] = &Tally{}
			}
			r.groups[g].Add(ranked, q.Gold)
		}
		if h1, _, rr := RankMetrics(ranked, q.Gold); !h1 {
			top := ranked[:min(3, len(ranked))]
			r.misses = append(r.misses, fmt.Sprintf("%-10s %s rr=%.2f gold=%v top=%v  %s", q.Kind, q.Lang, rr, q.Gold, top, q.Q))
		}
	}
	return r
}

func (r evalResult) table(name string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-18s %4s %6s %6s %6s\n", name, "n", "R@1", "R@5", "MRR10")
	row := func(label string, t Tally) {
		fmt.Fprintf(&sb, "%-18s %4d %6.3f %6.3f %6.3f\n", label, t.N, t.Recall1(), t.Recall5(), t.MRR10())
	}
	row("overall", r.all)
	keys := make([]string, 0, len(r.groups))
	for k := range r.groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		row(k, *r.groups[k])
	}
	return sb.String()
}

func buildEvalIndex(mems []evalMemory) *Index {
	ix := New()
	for i, m := range mems {
		ix.Put(DocID(i), Doc{Title: m.Title, Tags: m.Tags, Body: m.Content})
	}
	return ix
}

// TestEval measures retrieval on the shared dev corpus and on the held-out
// queries in testdata/heldout.json, and fails if a dev target is missed.
func TestEval(t *testing.T) {
	t.Parallel()
	c := evalcorpus.Load(t, devCorpus)
	ix := buildEvalIndex(c.Memories)

	dev := runEval(ix, c.Memories, c.Queries)
	t.Logf("dev (%s, %d memories)\n%s", c.Name, len(c.Memories), dev.table("dev"))

	var held evalCorpus
	b, err := os.ReadFile(filepath.Join("testdata", "heldout.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &held); err != nil {
		t.Fatal(err)
	}
	ho := runEval(ix, c.Memories, held.Queries)
	t.Logf("held-out (%s)\n%s", held.Name, ho.table("held-out"))
	if *evalVerbose {
		t.Logf("dev misses at rank 1:\n%s", strings.Join(dev.misses, "\n"))
		t.Logf("held-out misses at rank 1:\n%s", strings.Join(ho.misses, "\n"))
	}

	targets := []struct {
		name   string
		got    float64
		atLeat float64
	}{
		{"overall R@5", dev.all.Recall5(), 0.93},
		{"overall MRR@10", dev.all.MRR10(), 0.88},
		{"zh R@5", dev.groups["lang/zh"].Recall5(), 0.90},
		{"en R@5", dev.groups["lang/en"].Recall5(), 0.90},
		{"paraphrase R@5", dev.groups["kind/paraphrase"].Recall5(), 0.80},
		{"mixed R@5", dev.groups["kind/mixed"].Recall5(), 0.80},
	}
	for _, tg := range targets {
		if tg.got < tg.atLeat {
			t.Errorf("dev %s = %.3f, want >= %.2f", tg.name, tg.got, tg.atLeat)
		}
	}
}
