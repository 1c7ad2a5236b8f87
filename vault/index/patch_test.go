package index

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// liveDump is dumpIndex without the terms no live document holds (a
// patched index keeps them, empty, as one that took deletes does; no
// search can tell) and with the short terms each slot keeps for learned
// translations.
func liveDump(ix *Index) map[string]string {
	out := dumpIndex(ix)
	for k, v := range out {
		if len(k) > 5 && k[:5] == "term " && v[:5] == "df=0 " {
			delete(out, k)
		}
	}
	for s := range ix.ids {
		var b bytes.Buffer
		ix.short.each(uint32(s), func(text []byte, cjk bool) { fmt.Fprintf(&b, "%s/%v ", text, cjk) })
		out[fmt.Sprint("short ", s)] = b.String()
	}
	return out
}

// TestPatchMatchesFreshBuild checks that a snapshot patched for documents
// changed, added (shifting every later id) and removed is laid out
// exactly as a bulk build of the new documents, and searches alike.
func TestPatchMatchesFreshBuild(t *testing.T) {
	t.Parallel()
	corpus, queries := synthCorpus(1200)
	extra, _ := synthCorpusFrom(newSynth(99), 40)
	queries = slices.Clip(queries[:min(len(queries), 12)]) // parallel subtests append to it
	// A document is named by its index in corpus, or -1-i for extra[i].
	doc := func(k int) Doc {
		if k < 0 {
			return extra[-1-k].Doc
		}
		return corpus[k].Doc
	}
	old := make([]int, 1000)
	for i := range old {
		old[i] = i
	}
	tests := []struct {
		name    string
		edit    func([]int) []int
		inPlace bool // kept documents keep their ids, and some slot moves
	}{
		{"nothing", func(l []int) []int { return l }, false},
		{"one changed", func(l []int) []int { l[500] = -1; return l }, true},
		{"first and last changed", func(l []int) []int { l[0], l[len(l)-1] = -1, -2; return l }, true},
		{"a few changed", func(l []int) []int { l[3], l[400], l[401], l[977] = -1, -2, -3, -4; return l }, true},
		{"one added in the middle", func(l []int) []int { return slices.Insert(l, 300, -1) }, false},
		{"one removed in the middle", func(l []int) []int { return slices.Delete(l, 300, 301) }, false},
		{"one added at the end", func(l []int) []int { return append(l, -1) }, false}, // nothing to write anew
		{"first removed", func(l []int) []int { return l[1:] }, false},
		{"added, removed and changed", func(l []int) []int {
			l = slices.Insert(l, 700, -1, -2)
			l = slices.Delete(l, 100, 103)
			l[50], l[900] = -3, 1100
			return slices.Insert(l, 10, 1001)
		}, false},
	}
	build := func(keys []int) *Index {
		ix := New()
		batch := make([]Entry, len(keys))
		for i, k := range keys {
			batch[i] = Entry{ID: DocID(i), Doc: doc(k)}
		}
		ix.PutBatch(batch)
		ix.Trim()
		return ix
	}
	var snap bytes.Buffer
	base := build(old)
	if _, err := base.WriteTo(&snap); err != nil {
		t.Fatal(err)
	}
	postingBytes := 0 // what a pass over all lists reads
	base.terms.each(func(pl *postingList) { postingBytes += len(pl.data) })
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// Each case builds the 1,000 documents three times, about
			// 0.7 s of CPU. -short keeps one edit in place and the one
			// that adds, removes and changes.
			if testing.Short() && tc.name != "one changed" && tc.name != "added, removed and changed" {
				t.Skip("-short runs two edits; all run without -short, as CI does")
			}
			keys := tc.edit(slices.Clone(old))
			at := map[int]DocID{}
			var put []Entry
			kept := map[int]bool{}
			for i, k := range keys {
				if k >= 0 && k < len(old) && !kept[k] {
					at[k], kept[k] = DocID(i), true
					continue
				}
				put = append(put, Entry{ID: DocID(i), Doc: doc(k)})
			}
			// The dropped documents as indexed, none, or wrong ones (a
			// patch must then still come out right).
			var dropped, wrong []Doc
			for _, k := range old {
				if _, ok := at[k]; !ok {
					dropped = append(dropped, doc(k))
					wrong = append(wrong, doc(k+1))
				}
			}
			if dropped == nil {
				dropped, wrong = []Doc{}, []Doc{}
			}
			rewrote := map[string]int{}
			for _, given := range []struct {
				name string
				docs []Doc
			}{{"dropped given", dropped}, {"dropped unknown", nil}, {"wrong dropped given", wrong}} {
				patched := New()
				if err := patched.LoadSnapshot(bytes.Clone(snap.Bytes())); err != nil {
					t.Fatal(err)
				}
				// The check before the change reads every list: the
				// release hook runs as it goes (the cache drops the
				// mapped pages read), and the result is the same.
				var releases atomic.Int64
				patched.SetSnapshotRelease(func() { releases.Add(1) }, 4096)
				patched.Patch(func(d DocID) (DocID, bool) {
					nd, ok := at[old[d]]
					return nd, ok
				}, put, given.docs)
				patched.SetSnapshotRelease(nil, 0)
				if got, want := releases.Load(), int64(postingBytes/8192); got < want || want == 0 {
					t.Errorf("%s: release called %d times over %d bytes of posting lists, every 4096 bytes read; want at least %d", given.name, got, postingBytes, want)
				}
				rewrote[given.name] = patched.patchLists
				fresh := build(keys)
				if a, b := liveDump(fresh), liveDump(patched); !maps.Equal(a, b) {
					t.Fatalf("%s: patched index differs from a fresh build (-fresh +patched):\n%s", given.name, cmp.Diff(a, b))
				}
				for _, q := range append(queries, "kiwi") {
					a, b := fresh.Search(Query{Text: q, Limit: 20}), patched.Search(Query{Text: q, Limit: 20})
					if d := cmp.Diff(a, b); d != "" {
						t.Fatalf("%s: Search(%q) (-fresh +patched):\n%s", given.name, q, d)
					}
				}
				// Later writes work on a patched index as on any other.
				fresh.Put(7, Doc{Title: "kiwi"})
				patched.Put(7, Doc{Title: "kiwi"})
				if a, b := fresh.Search(Query{Text: "kiwi"}), patched.Search(Query{Text: "kiwi"}); !cmp.Equal(a, b) {
					t.Fatalf("%s: after a Put (-fresh +patched):\n%s", given.name, cmp.Diff(a, b))
				}
			}
			// Documents changed in place, given as they were indexed,
			// rewrite only their own posting lists.
			if tc.inPlace != (rewrote["dropped given"] < rewrote["dropped unknown"]/4) {
				t.Errorf("posting lists written anew: %v; want few with the dropped documents given: %v", rewrote, tc.inPlace)
			}
		})
	}
}
