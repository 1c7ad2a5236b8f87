package index

import (
	"fmt"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// dumpIndex renders everything an index holds that affects results:
// slots, lengths and each term's postings, keyed by term text (term ids
// depend on insertion order and do not matter).
func dumpIndex(ix *Index) map[string]string {
	out := map[string]string{
		"ids":    fmt.Sprint(ix.ids),
		"alive":  fmt.Sprint(ix.alive),
		"lens":   fmt.Sprint(ix.lens),
		"lenSum": fmt.Sprint(ix.lenSum),
		"live":   fmt.Sprint(ix.live, ix.dead),
	}
	for s := range ix.terms.shards {
		t := &ix.terms.shards[s]
		for id := range t.n {
			p := t.post(id)
			out["term "+string(t.arena[t.offs[id]:t.offs[id+1]])] = fmt.Sprintf("df=%d last=%d %x", p.df, p.last, p.data)
		}
	}
	return out
}

func TestBulkMatchesPutPrepared(t *testing.T) {
	t.Parallel()
	entries, queries := synthCorpus(200)
	// A replacement, as PutPrepared allows.
	entries = append(entries, Entry{ID: 5, Doc: Doc{Title: "replaced", Body: "kiwi"}})
	for _, max := range []int{1, 2000, bulkBatch} {
		t.Run(fmt.Sprintf("batch=%d", max), func(t *testing.T) {
			t.Parallel()
			one, bulk := New(), New()
			prOne, prBulk := one.NewPreparer(), bulk.NewPreparer()
			bk := bulk.NewBulk()
			bk.max = max
			var p Prepared
			for _, e := range entries {
				prOne.Prepare(e.Doc, &p)
				one.PutPrepared(e.ID, &p)
				prBulk.Prepare(e.Doc, &p)
				bk.Put(e.ID, &p)
			}
			bk.Flush()
			// cmp.Diff sorts and walks every term even when the dumps are
			// equal; maps.Equal answers that case for a fraction of it.
			if a, b := dumpIndex(one), dumpIndex(bulk); !maps.Equal(a, b) {
				t.Fatalf("Bulk differs from PutPrepared (-prepared +bulk):\n%s", cmp.Diff(a, b))
			}
			queries := append(queries[:min(len(queries), 40)], "kiwi", "replaced")
			for _, q := range queries {
				a, b := one.Search(Query{Text: q, Limit: 10}), bulk.Search(Query{Text: q, Limit: 10})
				if d := cmp.Diff(a, b); d != "" {
					t.Fatalf("Search(%q) (-prepared +bulk):\n%s", q, d)
				}
			}
		})
	}
}
