package index

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ids(hits []Hit) []DocID {
	out := make([]DocID, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// filler pads a corpus so that IDF behaves as in a real vault.
func filler(ix *Index, from DocID, n int) {
	for i := range n {
		ix.Put(from+DocID(i), Doc{
			Title: fmt.Sprintf("note %d about lunch", i),
			Body:  "We had noodles and tea. 今天中午吃了面条，喝了茶。 The weather was fine.",
		})
	}
}

func TestBM25FOrdering(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		docs  map[DocID]Doc
		query string
		want  []DocID // expected order of the first hits
	}{
		{
			name: "title match beats body match",
			docs: map[DocID]Doc{
				1: {Title: "Weekly notes", Body: "The deploy script lives in ops."},
				2: {Title: "Deploy script", Body: "Lives in ops, see the notes."},
			},
			query: "deploy script",
			want:  []DocID{2, 1},
		},
		{
			name: "tag match beats body match",
			docs: map[DocID]Doc{
				1: {Title: "Misc", Body: "mentions kafka once among many other words here"},
				2: {Title: "Misc", Tags: []string{"kafka"}, Body: "consumer groups and topics"},
			},
			query: "kafka",
			want:  []DocID{2, 1},
		},
		{
			name: "more query terms matched wins",
			docs: map[DocID]Doc{
				1: {Title: "Redis", Body: "Redis keys need a TTL."},
				2: {Title: "Redis backup", Body: "Redis backup is a daily snapshot."},
			},
			query: "redis backup",
			want:  []DocID{2, 1},
		},
		{
			name: "rare term outweighs common term",
			docs: map[DocID]Doc{
				1: {Title: "a", Body: "lunch lunch lunch"},
				2: {Title: "b", Body: "pgbackrest"},
			},
			query: "lunch pgbackrest",
			want:  []DocID{2, 1},
		},
		{
			name: "shorter body wins at equal tf",
			docs: map[DocID]Doc{
				1: {Title: "x", Body: "timeout " + repeatWords("filler", 60)},
				2: {Title: "y", Body: "timeout rule"},
			},
			query: "timeout",
			want:  []DocID{2, 1},
		},
		{
			name: "Chinese query finds Chinese text",
			docs: map[DocID]Doc{
				1: {Title: "支付回调必须幂等", Body: "以 out_trade_no 作为幂等键"},
				2: {Title: "退款流程", Body: "退款全程异步"},
			},
			query: "支付回调幂等",
			want:  []DocID{1},
		},
		{
			name: "identifier parts find the identifier",
			docs: map[DocID]Doc{
				1: {Title: "Events", Body: "core events OrderCreated and OrderPaid"},
				2: {Title: "Orders", Body: "an order is created by checkout"},
			},
			query: "OrderCreated",
			want:  []DocID{1, 2},
		},
		{
			name: "expansion finds the other language",
			docs: map[DocID]Doc{
				1: {Title: "Production deploy via Helm", Body: "Run ops/deploy.sh with the image tag."},
				2: {Title: "Coffee", Body: "The coffee machine is on floor two."},
			},
			query: "怎么部署到生产环境",
			want:  []DocID{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := New()
			for id, d := range tt.docs {
				ix.Put(id, d)
			}
			filler(ix, 1000, 30)
			got := ids(ix.Search(Query{Text: tt.query, Limit: len(tt.want)}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Search(%q) order mismatch (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

func repeatWords(w string, n int) string {
	s := ""
	for i := range n {
		s += fmt.Sprintf("%s%d ", w, i)
	}
	return s
}

func TestSearchSemantics(t *testing.T) {
	t.Parallel()
	ix := New()
	ix.Put(1, Doc{Title: "Redis key naming", Body: "Keys follow service:entity:id and need a TTL."})
	ix.Put(2, Doc{Title: "Redis backup", Body: "Aliyun snapshots, kept 7 days."})
	ix.Put(3, Doc{Title: "Redis key naming", Body: "Keys follow service:entity:id and need a TTL."})
	filler(ix, 100, 20)

	t.Run("empty query", func(t *testing.T) {
		for _, q := range []string{"", "   ", "，。", "the of and"} {
			if got := ix.Search(Query{Text: q}); got != nil {
				t.Errorf("Search(%q) = %v, want nil", q, got)
			}
		}
	})
	t.Run("ties broken by id", func(t *testing.T) {
		got := ids(ix.Search(Query{Text: "redis key naming", Limit: 2}))
		if diff := cmp.Diff([]DocID{1, 3}, got); diff != "" {
			t.Errorf("tie order (-want +got):\n%s", diff)
		}
	})
	t.Run("limit", func(t *testing.T) {
		if got := ix.Search(Query{Text: "redis", Limit: 1}); len(got) != 1 {
			t.Errorf("got %d hits, want 1", len(got))
		}
		if got := ix.Search(Query{Text: "redis"}); len(got) != 3 {
			t.Errorf("default limit: got %d hits, want all 3 matches", len(got))
		}
	})
	t.Run("weight excludes and reorders", func(t *testing.T) {
		got := ix.Search(Query{Text: "redis", Weight: func(id DocID, rel float64) float64 {
			switch id {
			case 1:
				return 0 // filtered out
			case 2:
				return rel * 10
			}
			return rel
		}})
		if diff := cmp.Diff([]DocID{2, 3}, ids(got)); diff != "" {
			t.Errorf("weighted order (-want +got):\n%s", diff)
		}
		if got[0].Score <= got[0].Relevance {
			t.Errorf("Score %v should be the weighted relevance %v*10", got[0].Score, got[0].Relevance)
		}
	})
	t.Run("norm and terms", func(t *testing.T) {
		hits := ix.Search(Query{Text: "redis backup"})
		if len(hits) == 0 || hits[0].ID != 2 {
			t.Fatalf("want doc 2 first, got %v", ids(hits))
		}
		if n := hits[0].Norm; n < 0.5 || n > 1 {
			t.Errorf("Norm of a title+body match = %v, want in [0.5, 1]", n)
		}
		for _, h := range hits[1:] {
			if h.Norm >= hits[0].Norm {
				t.Errorf("partial match %d has Norm %v >= full match %v", h.ID, h.Norm, hits[0].Norm)
			}
		}
		if diff := cmp.Diff([]string{"redis", "backup"}, hits[0].Terms[:2]); diff != "" {
			t.Errorf("Terms (-want +got):\n%s", diff)
		}
	})
	t.Run("unrelated query matches nothing", func(t *testing.T) {
		if got := ix.Search(Query{Text: "kubernetes"}); len(got) != 0 {
			t.Errorf("got %v, want no hits", ids(got))
		}
	})
}

func TestPutDeleteReplace(t *testing.T) {
	t.Parallel()
	ix := New()
	ix.Put(1, Doc{Title: "alpha", Body: "first version mentions zebra"})
	ix.Put(2, Doc{Title: "beta", Body: "zebra too"})
	if ix.Len() != 2 {
		t.Fatalf("Len = %d, want 2", ix.Len())
	}
	ix.Put(1, Doc{Title: "alpha", Body: "second version mentions giraffe"})
	if ix.Len() != 2 {
		t.Fatalf("Len after replace = %d, want 2", ix.Len())
	}
	if got := ids(ix.Search(Query{Text: "zebra"})); !cmp.Equal(got, []DocID{2}) {
		t.Errorf("zebra after replace: got %v, want [2]", got)
	}
	if got := ids(ix.Search(Query{Text: "giraffe"})); !cmp.Equal(got, []DocID{1}) {
		t.Errorf("giraffe after replace: got %v, want [1]", got)
	}
	ix.Delete(2)
	ix.Delete(42) // unknown: no-op
	if ix.Len() != 1 {
		t.Fatalf("Len after delete = %d, want 1", ix.Len())
	}
	if got := ix.Search(Query{Text: "zebra"}); len(got) != 0 {
		t.Errorf("zebra after delete: got %v, want none", ids(got))
	}
}

// TestCompaction churns an index past the compaction threshold and checks
// that it answers exactly like an index built fresh from the survivors.
func TestCompaction(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"订单", "支付", "deploy", "redis", "kafka", "超时", "retry", "token", "缓存", "index"}
	doc := func() Doc {
		var b []byte
		for range 12 {
			b = append(b, words[r.IntN(len(words))]...)
			b = append(b, ' ')
		}
		return Doc{Title: words[r.IntN(len(words))], Body: string(b)}
	}
	churned := New()
	final := map[DocID]Doc{}
	for range 6000 {
		id := DocID(r.IntN(1500))
		if r.IntN(5) == 0 {
			churned.Delete(id)
			delete(final, id)
			continue
		}
		d := doc()
		churned.Put(id, d)
		final[id] = d
	}
	fresh := New()
	for id := DocID(0); id < 1500; id++ {
		if d, ok := final[id]; ok {
			fresh.Put(id, d)
		}
	}
	if churned.Len() != fresh.Len() {
		t.Fatalf("Len = %d, want %d", churned.Len(), fresh.Len())
	}
	if churned.dead >= len(churned.ids) {
		t.Fatalf("no compaction happened: %d dead of %d slots", churned.dead, len(churned.ids))
	}
	queries := []string{"订单 支付", "deploy redis", "超时 retry", "缓存", "kafka index token"}
	rel := func(ix *Index, q string) map[DocID]float64 {
		m := map[DocID]float64{}
		for _, h := range ix.Search(Query{Text: q, Limit: 5000}) {
			m[h.ID] = h.Relevance
		}
		return m
	}
	for _, q := range queries {
		// Retired slots still count in N until compaction, so scores may
		// differ a little; the matching set must not.
		got, want := rel(churned, q), rel(fresh, q)
		if len(got) != len(want) {
			t.Errorf("Search(%q): %d hits after churn, want %d", q, len(got), len(want))
		}
		for id, w := range want {
			if g, ok := got[id]; !ok || g < w*0.9 || g > w*1.1 {
				t.Errorf("Search(%q): doc %d relevance %v after churn, want ~%v", q, id, g, w)
				break
			}
		}
	}
	// Fully compacted, the two must answer identically.
	churned.compact()
	for _, q := range queries {
		got, want := churned.Search(Query{Text: q, Limit: 50}), fresh.Search(Query{Text: q, Limit: 50})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Search(%q) after compaction (-fresh +churned):\n%s", q, diff)
		}
	}
}

func TestPutBatchMatchesPut(t *testing.T) {
	t.Parallel()
	entries, queries := synthCorpus(1300)
	// Replacements inside the batch must behave as sequential Puts.
	entries = append(entries, Entry{ID: 5, Doc: Doc{Title: "replaced", Body: "kiwi"}})
	one := New()
	for _, e := range entries {
		one.Put(e.ID, e.Doc)
	}
	batch := New()
	batch.PutBatch(entries)
	if one.Len() != batch.Len() {
		t.Fatalf("Len: Put %d, PutBatch %d", one.Len(), batch.Len())
	}
	queries = append(queries, "kiwi", "replaced")
	for _, q := range queries {
		a, b := one.Search(Query{Text: q, Limit: 10}), batch.Search(Query{Text: q, Limit: 10})
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("Search(%q): Put vs PutBatch (-put +batch):\n%s", q, diff)
		}
	}
}

func TestPutPreparedMatchesPut(t *testing.T) {
	t.Parallel()
	entries, queries := synthCorpus(1300)
	entries = append(entries, Entry{ID: 5, Doc: Doc{Title: "replaced", Body: "kiwi"}})
	one := New()
	for _, e := range entries {
		one.Put(e.ID, e.Doc)
	}
	// Prepare on another goroutine while inserting, as the vault loader
	// does; the race detector checks that the two do not collide.
	prep := New()
	ch := make(chan *Prepared, 8)
	go func() {
		pr := prep.NewPreparer()
		for _, e := range entries {
			p := new(Prepared)
			pr.Prepare(e.Doc, p)
			ch <- p
		}
		close(ch)
	}()
	i := 0
	for p := range ch {
		prep.PutPrepared(entries[i].ID, p)
		i++
	}
	if one.Len() != prep.Len() {
		t.Fatalf("Len: Put %d, PutPrepared %d", one.Len(), prep.Len())
	}
	queries = append(queries, "kiwi", "replaced")
	for _, q := range queries {
		a, b := one.Search(Query{Text: q, Limit: 10}), prep.Search(Query{Text: q, Limit: 10})
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("Search(%q): Put vs PutPrepared (-put +prepared):\n%s", q, diff)
		}
	}
}

func TestMaxWeightKeepsHits(t *testing.T) {
	t.Parallel()
	entries, queries := synthCorpus(1300)
	ix := New()
	ix.PutBatch(entries)
	// A weight in (0, 1.35] that varies by document, with some documents
	// filtered out, as the vault's layer, decay and importance factors do.
	weight := func(id DocID, rel float64) float64 {
		if id%7 == 3 {
			return 0
		}
		return rel * (0.05 + 1.3*float64(id*2654435761%1000)/999)
	}
	for _, q := range queries {
		for _, limit := range []int{1, 5, 20} {
			want := ix.Search(Query{Text: q, Limit: limit, Weight: weight})
			got := ix.Search(Query{Text: q, Limit: limit, Weight: weight, MaxWeight: 1.35})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Search(%q, limit %d): without vs with MaxWeight (-want +got):\n%s", q, limit, diff)
			}
		}
	}
}

func TestTrimKeepsResults(t *testing.T) {
	t.Parallel()
	entries, queries := synthCorpus(1300)
	ix := New()
	ix.PutBatch(entries)
	want := make([][]Hit, len(queries))
	for i, q := range queries {
		want[i] = ix.Search(Query{Text: q, Limit: 10})
	}
	ix.Trim()
	for i, q := range queries {
		if diff := cmp.Diff(want[i], ix.Search(Query{Text: q, Limit: 10})); diff != "" {
			t.Fatalf("Search(%q) after Trim (-before +after):\n%s", q, diff)
		}
	}
	// Writes after Trim must not spill into neighbouring lists.
	ref := New()
	ref.PutBatch(entries)
	more, _ := synthCorpus(300)
	for _, e := range more {
		e.ID += 5000
		ix.Put(e.ID, e.Doc)
		ref.Put(e.ID, e.Doc)
	}
	ix.Delete(3)
	ref.Delete(3)
	for _, q := range queries {
		if diff := cmp.Diff(ref.Search(Query{Text: q, Limit: 10}), ix.Search(Query{Text: q, Limit: 10})); diff != "" {
			t.Fatalf("Search(%q) after Trim and Puts (-untrimmed +trimmed):\n%s", q, diff)
		}
	}
}

func TestConcurrentSearch(t *testing.T) {
	t.Parallel()
	entries, queries := synthCorpus(800)
	ix := New()
	ix.PutBatch(entries)
	want := make([][]Hit, len(queries))
	for i, q := range queries {
		want[i] = ix.Search(Query{Text: q, Limit: 5})
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range queries {
				k := (i + g*7) % len(queries)
				if got := ix.Search(Query{Text: queries[k], Limit: 5}); !cmp.Equal(got, want[k]) {
					t.Errorf("concurrent Search(%q) differs", queries[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestRankMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ranked, gold []string
		h1, h5       bool
		rr           float64
	}{
		{[]string{"a", "b"}, []string{"a"}, true, true, 1},
		{[]string{"x", "y", "a"}, []string{"a", "b"}, false, true, 1.0 / 3},
		{[]string{"1", "2", "3", "4", "5", "6", "a"}, []string{"a"}, false, false, 1.0 / 7},
		{[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a"}, []string{"a"}, false, false, 0},
		{nil, []string{"a"}, false, false, 0},
	}
	for _, tt := range tests {
		h1, h5, rr := RankMetrics(tt.ranked, tt.gold)
		if h1 != tt.h1 || h5 != tt.h5 || rr != tt.rr {
			t.Errorf("RankMetrics(%v, %v) = %v, %v, %v; want %v, %v, %v", tt.ranked, tt.gold, h1, h5, rr, tt.h1, tt.h5, tt.rr)
		}
	}
	var tl Tally
	tl.Add([]string{"a"}, []string{"a"})
	tl.Add([]string{"b", "a"}, []string{"a"})
	if tl.Recall1() != 0.5 || tl.Recall5() != 1 || tl.MRR10() != 0.75 {
		t.Errorf("Tally = %+v: R@1 %v R@5 %v MRR %v", tl, tl.Recall1(), tl.Recall5(), tl.MRR10())
	}
}

func TestLengthCode(t *testing.T) {
	t.Parallel()
	prev := uint8(0)
	for n := 0; n < 200000; n += 1 + n/50 {
		c := lengthCode(n)
		if c < prev {
			t.Fatalf("lengthCode(%d) = %d, below the code of a shorter length (%d)", n, c, prev)
		}
		prev = c
		got := int(codeLength[c])
		switch {
		case n < 32 && got != n:
			t.Errorf("length %d decodes to %d, want exact", n, got)
		case n <= int(codeLength[255]) && (got > n || float64(got) < float64(n)/1.04):
			t.Errorf("length %d decodes to %d, want within 4%% below", n, got)
		}
	}
}
