package index

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestReplacedDocumentsRankAsInAFreshIndex holds a long-lived index (a
// server that took writes) to the ranking a fresh load of the same
// documents gives: retired slots wait for a compaction, and no score,
// coverage or expansion may count them meanwhile.
func TestReplacedDocumentsRankAsInAFreshIndex(t *testing.T) {
	t.Parallel()
	words := []string{"checkout", "strategy", "pattern", "promotion", "refund", "deploy", "script", "订单", "状态", "结算",
		"模块", "order", "state", "OrderState", "ops/deploy.sh", "kafka", "event", "admin", "page", "wallet"}
	queries := []string{"strategy pattern promotions", "结算模块 策略", "deploy script", "order state machine", "订单状态",
		"refund admin page", "kafka events", "wallet"}
	rng := rand.New(rand.NewPCG(7, 11))
	doc := func() Doc {
		pick := func(n int) string {
			s := ""
			for range n {
				s += words[rng.IntN(len(words))] + " "
			}
			return s
		}
		return Doc{Title: pick(3), Tags: []string{words[rng.IntN(len(words))]}, Body: pick(12)}
	}
	for round := range 20 {
		live := New()
		docs := map[DocID]Doc{}
		for range 60 {
			id := DocID(rng.IntN(25))
			if rng.IntN(4) == 0 {
				live.Delete(id)
				delete(docs, id)
				continue
			}
			d := doc()
			live.Put(id, d)
			docs[id] = d
		}
		fresh := New()
		for id := range DocID(25) {
			if d, ok := docs[id]; ok {
				fresh.Put(id, d)
			}
		}
		for _, q := range queries {
			got := live.Search(Query{Text: q, Limit: 30})
			want := fresh.Search(Query{Text: q, Limit: 30})
			if g, w := hitsKey(got), hitsKey(want); g != w {
				t.Fatalf("round %d, %q: the index that took writes ranks\n%s\nbut a fresh one\n%s", round, q, g, w)
			}
		}
	}
}

func hitsKey(hs []Hit) string {
	s := ""
	for _, h := range hs {
		r := func(f float64) float64 { return math.Round(f*1e9) / 1e9 }
		s += fmt.Sprintf("%d score=%v rel=%v cov=%v matched=%d/%d\n", h.ID, r(h.Score), r(h.Relevance), r(h.Coverage), h.Matched, h.Concepts)
	}
	return s
}
