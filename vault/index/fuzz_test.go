package index

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds returns the held-out queries plus tricky strings, to seed the
// fuzz targets from testdata.
func fuzzSeeds(t testing.TB) []string {
	seeds := []string{
		"", "OrderCreated", "ops/deploy.sh", "order.events.v1", "3.8.0", "v2订单",
		"ＯｒｄｅｒＩＤ，订单", "a_b-c.d/e\\f", "..--__//", "\xff\xfe订\xe8单", "订单\u200b服务",
		strings.Repeat("x", 300), strings.Repeat("订单", 100), "𠀀𠀁 emoji 😀 test", "İstanbul ǅ",
	}
	b, err := os.ReadFile(filepath.Join("testdata", "heldout.json"))
	if err != nil {
		t.Fatal(err)
	}
	var held evalCorpus
	if err := json.Unmarshal(b, &held); err != nil {
		t.Fatal(err)
	}
	for _, q := range held.Queries {
		seeds = append(seeds, q.Q)
	}
	return seeds
}

func FuzzTokenize(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s) {
			if tok == "" {
				t.Fatalf("Tokenize(%q) produced an empty token", s)
			}
			if !utf8.ValidString(tok) {
				t.Fatalf("Tokenize(%q) produced invalid UTF-8 %q", s, tok)
			}
			if len(tok) > maxCompoundBytes {
				t.Fatalf("Tokenize(%q) produced a %d-byte token", s, len(tok))
			}
		}
		checkPlainWords(t, s)
		var a analyzer
		a.keepStops, a.runs = true, true
		a.analyze(s, func(tk *token) {
			if tk.start < 0 || tk.end > len(s) || tk.start >= tk.end {
				t.Fatalf("token %q has offsets [%d,%d) in %d bytes", tk.text, tk.start, tk.end, len(s))
			}
		})
	})
}

func FuzzSnippet(f *testing.F) {
	for i, s := range fuzzSeeds(f) {
		f.Add(s, "订单 deploy", 5+i%40)
	}
	f.Fuzz(func(t *testing.T, text, terms string, max int) {
		max %= 500
		got := Snippet(text, strings.Fields(terms), max)
		n := utf8.RuneCountInString(got)
		switch {
		case max <= 0 && got != "":
			t.Fatalf("Snippet(max=%d) = %q, want empty", max, got)
		case n > max && max > 0:
			t.Fatalf("Snippet(max=%d) has %d runes: %q", max, n, got)
		case utf8.ValidString(text) && !utf8.ValidString(got):
			t.Fatalf("Snippet of valid text is invalid UTF-8: %q", got)
		case max > 0 && utf8.RuneCountInString(text) <= max && got != text:
			t.Fatalf("Snippet of a short text = %q, want it whole", got)
		}
		// A text analysed once cuts the same snippets.
		if pre := AnalyseSnippetText(text).Snippet(strings.Fields(terms), max); pre != got {
			t.Fatalf("SnippetText.Snippet(max=%d) = %q, Snippet = %q", max, pre, got)
		}
	})
}

func FuzzSearch(f *testing.F) {
	ix := New()
	for i, s := range fuzzSeeds(f) {
		ix.Put(DocID(i), Doc{Title: s, Tags: []string{s}, Body: s + " " + s})
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		hits := ix.Search(Query{Text: q, Limit: 5})
		for i, h := range hits {
			if h.Norm < 0 || h.Norm > 1 || h.Relevance <= 0 || h.Score != h.Relevance {
				t.Fatalf("Search(%q) hit %+v out of range", q, h)
			}
			if i > 0 && better(cand{score: h.Score, id: h.ID}, cand{score: hits[i-1].Score, id: hits[i-1].ID}) {
				t.Fatalf("Search(%q) not sorted at %d", q, i)
			}
		}
	})
}

// FuzzLearned feeds any content to the learned translation table: short
// fields of any script and size, replaced and deleted documents. It must
// never panic, keep at most maxShort terms per document, and learn only
// translations of the other script with a confidence in (0, 1].
func FuzzLearned(f *testing.F) {
	seeds := fuzzSeeds(f)
	for i := 0; i+2 < len(seeds); i += 3 {
		f.Add(seeds[i], seeds[i+1], seeds[i+2], uint8(i))
	}
	f.Add("结算页价格 checkout", "checkout", "结算 Checkout 结算", uint8(3))
	f.Fuzz(func(t *testing.T, title, tag, query string, n uint8) {
		ix := New()
		docs := int(n%16) + 2
		for i := range docs {
			d := Doc{Title: title, Aliases: []string{tag + title}, Tags: []string{tag, query}, Body: query + " " + title}
			if i%3 == 1 {
				d.Title, d.Tags = query, []string{title}
			}
			ix.Put(DocID(i%(docs/2+1)), d) // some ids are replaced
		}
		ix.Delete(0)
		for s := range uint32(len(ix.ids)) {
			k := 0
			ix.short.each(s, func(text []byte, cjk bool) {
				k++
				if len(text) == 0 || len(text) > 0x7f || cjk != termIsCJK(text) {
					t.Fatalf("slot %d: short term %q (cjk %v) malformed", s, text, cjk)
				}
			})
			if k > maxShort {
				t.Fatalf("slot %d keeps %d short terms, want <= %d", s, k, maxShort)
			}
		}
		if got := len(ix.short.offs); got != len(ix.ids)+1 {
			t.Fatalf("%d short-field offsets for %d slots", got, len(ix.ids))
		}
		for _, w := range append(Tokenize(query), Tokenize(title)...) {
			got := ix.translations(w, 4, 0)
			if len(got) > 4 {
				t.Fatalf("translations(%q) = %d, want <= 4", w, len(got))
			}
			for _, l := range got {
				if !(l.conf > 0 && l.conf <= 1) || termIsCJK([]byte(l.text)) == termIsCJK([]byte(w)) {
					t.Fatalf("translations(%q) has %+v: want the other script, confidence in (0, 1]", w, l)
				}
			}
		}
		ix.Search(Query{Text: query, Limit: 5})
	})
}
