package index

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// synth generates a deterministic mixed Chinese/English corpus: Zipf-drawn
// words from a vocabulary that includes the dictionary's own terms (so
// expansion is exercised), identifiers and paths, ~80-word bodies.
type synth struct {
	r      *rand.Rand
	enWord []string
	zhWord []string
	enZipf *rand.Zipf
	zhZipf *rand.Zipf
}

// newSynth returns a generator whose word frequencies follow Zipf(s=1.07,
// v=30): the most common word is ~0.6% of tokens and in ~40% of memories,
// like a frequent content word once stop words are gone.
func newSynth(seed uint64) *synth { return newSynthZipf(seed, 1.07, 30) }

// newSynthZipf lets the stress benchmark use a harsher distribution.
func newSynthZipf(seed uint64, zs, zv float64) *synth {
	r := rand.New(rand.NewPCG(seed, 7))
	s := &synth{r: r}
	// Real vocabulary first (the most frequent ranks), then invented words.
	d, _ := parseDictionary(defaultTerms)
	seen := map[string]bool{}
	for _, t := range d.terms {
		for _, u := range t.units {
			switch {
			case u.word != "" && !seen[u.word]:
				seen[u.word] = true
				s.enWord = append(s.enWord, u.word)
			case u.cjk != "" && !seen[u.cjk]:
				seen[u.cjk] = true
				s.zhWord = append(s.zhWord, u.cjk)
			}
		}
	}
	r.Shuffle(len(s.enWord), func(i, j int) { s.enWord[i], s.enWord[j] = s.enWord[j], s.enWord[i] })
	r.Shuffle(len(s.zhWord), func(i, j int) { s.zhWord[i], s.zhWord[j] = s.zhWord[j], s.zhWord[i] })
	const syll = "ba be bi bo bu ca ce ci co da de di do fa fe fi ga ge go ka ke ki ko la le li lo lu ma me mi mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi za ze zo"
	ss := strings.Fields(syll)
	for len(s.enWord) < 30000 {
		n := 2 + r.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(ss[r.IntN(len(ss))])
		}
		s.enWord = append(s.enWord, b.String())
	}
	for len(s.zhWord) < 30000 {
		n := 2 + r.IntN(2)
		var b strings.Builder
		for range n {
			b.WriteRune(rune(0x4E00 + r.IntN(3000)))
		}
		s.zhWord = append(s.zhWord, b.String())
	}
	s.enZipf = rand.NewZipf(r, zs, zv, uint64(len(s.enWord)-1))
	s.zhZipf = rand.NewZipf(r, zs, zv, uint64(len(s.zhWord)-1))
	return s
}

func (s *synth) en() string { return s.enWord[s.enZipf.Uint64()] }
func (s *synth) zh() string { return s.zhWord[s.zhZipf.Uint64()] }

func (s *synth) ident() string {
	a, b := s.en(), s.en()
	switch s.r.IntN(4) {
	case 0:
		return a + "_" + b
	case 1:
		return strings.ToUpper(a[:1]) + a[1:] + strings.ToUpper(b[:1]) + b[1:]
	case 2:
		return "services/" + a + "/" + b + ".py"
	}
	return a + "." + b + ".v1"
}

// doc returns a synthetic memory and the words it was made of.
func (s *synth) doc() (Doc, []string) {
	zh := s.r.IntN(2) == 0
	var body strings.Builder
	var words []string
	for i := range 80 {
		var w string
		switch {
		case s.r.IntN(25) == 0:
			w = s.ident()
			body.WriteString(" " + w + " ")
		case zh:
			w = s.zh()
			body.WriteString(w)
			if i%9 == 8 {
				body.WriteString("，")
			}
		default:
			w = s.en()
			body.WriteString(w + " ")
		}
		words = append(words, w)
	}
	var title strings.Builder
	for range 3 + s.r.IntN(4) {
		var w string
		if zh {
			w = s.zh()
			title.WriteString(w)
		} else {
			w = s.en()
			title.WriteString(w + " ")
		}
		words = append(words, w)
	}
	return Doc{
		Title: title.String(),
		Tags:  []string{s.en(), s.en(), s.en()},
		Body:  body.String(),
	}, words
}

// query returns 2-6 words of one memory, the way a user recalls it:
// Chinese words run together, others separated by spaces.
func (s *synth) query(words []string) string {
	n := 2 + s.r.IntN(5)
	var b strings.Builder
	for range n {
		w := words[s.r.IntN(len(words))]
		if b.Len() > 0 && (w[0] < 0x80 || s.r.IntN(2) == 0) {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

func heapMB() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// synthCorpus generates n documents and, from every 100th, 2-6 word
// queries.
func synthCorpus(n int) ([]Entry, []string) { return synthCorpusFrom(newSynth(1), n) }

func synthCorpusFrom(s *synth, n int) ([]Entry, []string) {
	entries := make([]Entry, n)
	var queries []string
	for i := range entries {
		d, words := s.doc()
		entries[i] = Entry{ID: DocID(i), Doc: d}
		if i%100 == 0 {
			queries = append(queries, s.query(words))
		}
	}
	return entries, queries
}

// BenchmarkSearch reports per-query latency percentiles for 2-6 word
// mixed-language queries, plus the index's heap and build time (Put one by
// one, and PutBatch). The stress cases use a Zipf(1.1, 2) vocabulary whose
// top words are ~10% of all tokens, as if stop words were indexed: every
// query then scans lists that cover most documents.
func BenchmarkSearch(b *testing.B) {
	cases := []struct {
		name string
		n    int
		gen  func() *synth
	}{
		{"docs=10000", 10_000, func() *synth { return newSynth(1) }},
		{"docs=100000", 100_000, func() *synth { return newSynth(1) }},
		{"docs=100000/stress", 100_000, func() *synth { return newSynthZipf(1, 1.1, 2) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			entries, queries := synthCorpusFrom(c.gen(), c.n)
			base := heapMB()
			ix := New()
			t0, c0 := time.Now(), processCPU()
			for _, e := range entries {
				ix.Put(e.ID, e.Doc)
			}
			build, buildCPU := time.Since(t0), processCPU()-c0
			heap := heapMB() - base
			t0 = time.Now()
			New().PutBatch(entries)
			buildBatch := time.Since(t0)

			weight := func(id DocID, rel float64) float64 { return rel * (0.9 + float64(id%3)*0.05) }
			var lat, cpu []time.Duration
			i := 0
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for b.Loop() {
				t0, c0 := time.Now(), threadCPU()
				ix.Search(Query{Text: queries[i%len(queries)], Limit: 10, Weight: weight})
				cpu = append(cpu, threadCPU()-c0)
				lat = append(lat, time.Since(t0))
				i++
			}
			pct := func(xs []time.Duration, p float64) float64 {
				slices.Sort(xs)
				return float64(xs[min(len(xs)-1, int(p*float64(len(xs))))]) / 1e6
			}
			b.ReportMetric(pct(lat, 0.50), "p50-ms")
			b.ReportMetric(pct(lat, 0.99), "p99-ms")
			b.ReportMetric(pct(cpu, 0.50), "p50-cpu-ms")
			b.ReportMetric(pct(cpu, 0.99), "p99-cpu-ms")
			b.ReportMetric(heap, "heap-MB")
			b.ReportMetric(float64(build)/1e6, "put-build-ms")
			b.ReportMetric(float64(buildCPU)/1e6, "put-build-cpu-ms")
			b.ReportMetric(float64(buildBatch)/1e6, "batch-build-ms")
		})
	}
}

// BenchmarkPut measures adding one ~80-word document to a growing index.
func BenchmarkPut(b *testing.B) {
	s := newSynth(3)
	docs := make([]Doc, 4096)
	for i := range docs {
		docs[i], _ = s.doc()
	}
	ix := New()
	i := 0
	for b.Loop() {
		ix.Put(DocID(i), docs[i%len(docs)])
		i++
	}
}

// BenchmarkTokenize measures the analyzer on a mixed-language memory.
func BenchmarkTokenize(b *testing.B) {
	s := newSynth(4)
	d, _ := s.doc()
	b.SetBytes(int64(len(d.Body)))
	for b.Loop() {
		Tokenize(d.Body)
	}
}

// BenchmarkSnapshot reports the size of a 100k-memory snapshot and the
// time to write it and to load it back (the alternative to rebuilding).
func BenchmarkSnapshot(b *testing.B) {
	entries, _ := synthCorpus(100_000)
	ix := New()
	ix.PutBatch(entries)
	var buf bytes.Buffer
	t0 := time.Now()
	if _, err := ix.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	write := time.Since(t0)
	var read time.Duration
	n := 0
	for b.Loop() {
		loaded := New()
		t0 := time.Now()
		if _, err := loaded.ReadFrom(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
		read += time.Since(t0)
		n++
	}
	b.ReportMetric(float64(buf.Len())/(1<<20), "size-MB")
	b.ReportMetric(float64(write)/1e6, "write-ms")
	b.ReportMetric(float64(read)/float64(n)/1e6, "read-ms")
}
