package vault

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// benchCorpus generates mixed Chinese/English memory text with a Zipf
// word distribution over a few thousand words per language, like real
// project notes: a handful of very common words, a long tail of rare ones.
type benchCorpus struct {
	r      *rand.Rand
	zh, en []string
	zipfZH *rand.Zipf
	zipfEN *rand.Zipf
}

// benchHan is a pool of common Han characters; words are pairs of them.
const benchHan = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严"

func newBenchCorpus(seed uint64) *benchCorpus {
	r := rand.New(rand.NewPCG(seed, 7))
	han := []rune(benchHan)
	syll := []string{"ka", "lo", "mi", "ser", "vo", "tan", "ri", "pe", "dux", "ne", "qu", "bar", "fi", "zon", "te", "gra", "pol", "sim", "ar", "ex"}
	seen := map[string]bool{}
	c := &benchCorpus{r: r}
	for len(c.zh) < 4000 {
		w := string([]rune{han[r.IntN(len(han))], han[r.IntN(len(han))]})
		if !seen[w] {
			seen[w] = true
			c.zh = append(c.zh, w)
		}
	}
	for len(c.en) < 4000 {
		n := 2 + r.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			c.en = append(c.en, w)
		}
	}
	c.zipfZH = rand.NewZipf(r, 1.1, 2, uint64(len(c.zh)-1))
	c.zipfEN = rand.NewZipf(r, 1.1, 2, uint64(len(c.en)-1))
	return c
}

func (c *benchCorpus) sentence(words int) string {
	var b strings.Builder
	for range words {
		switch x := c.r.IntN(10); {
		case x < 4:
			b.WriteString(c.zh[c.zipfZH.Uint64()])
		case x < 9:
			b.WriteString(" " + c.en[c.zipfEN.Uint64()] + " ")
		default:
			// An identifier made of two words, as code mentions are.
			b.WriteString(" `" + c.en[c.zipfEN.Uint64()] + "_" + c.en[c.zipfEN.Uint64()] + "` ")
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// queries returns n queries of 2-4 words of middle frequency (ranks 10 to
// 1500), half Chinese, half English, some mixed.
func (c *benchCorpus) queries(n int) []string {
	out := make([]string, n)
	for i := range out {
		var parts []string
		for range 2 + c.r.IntN(3) {
			rank := 10 + c.r.IntN(1490)
			if (i+len(parts))%2 == 0 {
				parts = append(parts, c.zh[rank])
			} else {
				parts = append(parts, c.en[rank])
			}
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

// writeBenchVault writes n synthetic memory files (~80 words each) in the
// layout memvault writes, spread over the five layers. With rich set, half
// the bodies also use the Markdown people write in notes (bold, a link, a
// wiki link, an ordered list, a fenced block), which the parser's fast path
// hands to goldmark.
func writeBenchVault(b *testing.B, dir string, n int, rich bool) {
	b.Helper()
	c := newBenchCorpus(1)
	r := c.r
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	layers := []Layer{Transient, ShortTerm, Project, Project, Project, Project, Preference, Meta}
	for _, l := range AllLayers() {
		if err := os.MkdirAll(filepath.Join(dir, l.Dir()), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for i := range n {
		l := layers[r.IntN(len(layers))]
		created := base.Add(time.Duration(r.IntN(300*24)) * time.Hour)
		id, _ := NewULID(created, r2reader{r})
		title := c.sentence(6)
		body := fmt.Sprintf("# %s\n\n%s\n\n- %s\n- %s\n", title, c.sentence(50), c.sentence(12), c.sentence(12))
		if rich && i%2 == 0 {
			body = fmt.Sprintf("# %s\n\n%s **%s**, see [[%s]] and [the doc](https://example.com/%s).\n\n1. %s\n2. %s\n\n```\n%s\n```\n",
				title, c.sentence(40), c.sentence(3), c.sentence(3), c.en[c.zipfEN.Uint64()], c.sentence(10), c.sentence(10), c.sentence(6))
		}
		text := fmt.Sprintf("---\nid: %s\ntitle: %q\nlayer: %s\nimportance: %d\ntags: [%s, %s]\ncreated_at: %s\nupdated_at: %s\nstatus: active\nsource: {client: bench, kind: auto}\nversion: 1\n---\n%s",
			id, title, l, 1+r.IntN(10), c.en[c.zipfEN.Uint64()], c.zh[c.zipfZH.Uint64()],
			created.Format(time.RFC3339), created.Format(time.RFC3339), body)
		p := filepath.Join(dir, l.Dir(), fmt.Sprintf("m%06d.md", i))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

type r2reader struct{ r *rand.Rand }

func (x r2reader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(x.r.UintN(256))
	}
	return len(p), nil
}

// benchVaultDirs caches generated vaults per name within one go test run.
var benchVaultDirs = map[string]string{}

func benchVault(b *testing.B, n int) string { return benchVaultOf(b, n, false) }

func benchVaultOf(b *testing.B, n int, rich bool) string {
	b.Helper()
	name := fmt.Sprintf("vault-%d", n)
	if rich {
		name = fmt.Sprintf("vault-rich-%d", n)
	}
	if dir, ok := benchVaultDirs[name]; ok {
		return dir
	}
	// MEMVAULT_BENCH_CACHE keeps generated vaults between runs (profiling).
	if cache := os.Getenv("MEMVAULT_BENCH_CACHE"); cache != "" {
		dir := filepath.Join(cache, name)
		if _, err := os.Stat(filepath.Join(dir, "done")); err != nil {
			os.RemoveAll(dir)
			writeBenchVault(b, dir, n, rich)
			os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
		}
		return dir
	}
	dir, err := os.MkdirTemp("", "memvault-bench-"+name+"-*")
	if err != nil {
		b.Fatal(err)
	}
	writeBenchVault(b, dir, n, rich)
	benchVaultDirs[name] = dir
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range benchVaultDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func heapMB() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

// BenchmarkLoad measures opening a vault of n files (read, parse, index)
// and the heap the loaded vault keeps. cpu-s/op is the process CPU time per
// load, all threads and the garbage collector included: on a busy machine
// it moves far less than the wall clock.
func BenchmarkLoad(b *testing.B) {
	for _, rich := range []bool{false, true} {
		for _, n := range []int{10_000, 100_000} {
			name := fmt.Sprintf("n=%d", n)
			if rich {
				// Half the bodies with bold, links, wiki links, lists and
				// fences, as hand-written notes have: the parser's fast
				// path leaves those to goldmark.
				name = fmt.Sprintf("rich/n=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				dir := benchVaultOf(b, n, rich)
				var v *Vault
				before := heapMB()
				cpu := processCPU()
				loops := 0
				for b.Loop() {
					loops++
					v = nil
					var err error
					if v, err = Open(context.Background(), dir, Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((processCPU()-cpu).Seconds()/float64(loops), "cpu-s/op")
				b.ReportMetric(heapMB()-before, "heap-MB")
				if got := len(v.All()); got != n {
					b.Fatalf("loaded %d memories, want %d", got, n)
				}
				runtime.KeepAlive(v)
			})
		}
	}
}

// BenchmarkLoadCached measures a warm start: opening the 100k vault
// with the index cache a previous open wrote (what each CLI command and a
// restarted server do). cpu-s/op is as in BenchmarkLoad.
func BenchmarkLoadCached(b *testing.B) {
	dir := benchVaultOf(b, 100_000, false)
	opts := Options{IndexCache: true}
	if _, err := Open(context.Background(), dir, opts); err != nil {
		b.Fatal(err)
	}
	cpu := processCPU()
	loops := 0
	for b.Loop() {
		loops++
		v, err := Open(context.Background(), dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		if !v.load.stats.FromCache || v.load.stats.Read != 0 {
			b.Fatalf("from cache %v, %d files read", v.load.stats.FromCache, v.load.stats.Read)
		}
	}
	b.ReportMetric((processCPU()-cpu).Seconds()/float64(loops), "cpu-s/op")
}

// BenchmarkRecall measures recall latency over a fixed query mix and
// reports its median and 99th percentile.
func BenchmarkRecall(b *testing.B) {
	for _, bc := range []struct {
		n     int
		cache bool
	}{{10_000, false}, {100_000, false}, {100_000, true}} {
		n := bc.n
		name := fmt.Sprintf("n=%d", n)
		if bc.cache {
			// Opened twice with the index cache, so that the vault
			// recalled from is the second, loaded from the cache: its
			// memories and postings point into the mapped cache file.
			name += "/cached"
		}
		b.Run(name, func(b *testing.B) {
			opts := Options{IndexCache: bc.cache}
			v, err := Open(context.Background(), benchVault(b, n), opts)
			if err == nil && bc.cache {
				v, err = Open(context.Background(), benchVault(b, n), opts)
			}
			if err != nil {
				b.Fatal(err)
			}
			if bc.cache && !v.load.stats.FromCache {
				b.Fatal("the second open did not use the index cache")
			}
			queries := newBenchCorpus(1).queries(200)
			var lat, cpu []time.Duration
			i := 0
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for b.Loop() {
				q := queries[i%len(queries)]
				i++
				start, c0 := time.Now(), threadCPU()
				rs := v.Recall(Query{Text: q})
				cpu = append(cpu, threadCPU()-c0)
				lat = append(lat, time.Since(start))
				if len(rs) == 0 && n >= 10_000 {
					b.Fatalf("no results for %q", q)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
			// Thread CPU time: what a recall costs, whatever the load.
			sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
			b.ReportMetric(float64(cpu[len(cpu)/2])/1e6, "p50-cpu-ms")
			b.ReportMetric(float64(cpu[int(0.99*float64(len(cpu)-1))])/1e6, "p99-cpu-ms")
		})
	}
}

// BenchmarkLoadHeaders measures a warm headers-only open of the 10k
// vault (what `memvault add` does): every file stat'ed, every header
// taken from the header cache a previous open wrote.
func BenchmarkLoadHeaders(b *testing.B) {
	dir := benchVault(b, 10_000)
	opts := Options{HeadersOnly: true, HeaderCache: filepath.Join(b.TempDir(), HeaderCacheName(dir))}
	if _, err := Open(b.Context(), dir, opts); err != nil {
		b.Fatal(err)
	}
	cpu := processCPU()
	loops := 0
	for b.Loop() {
		loops++
		v, err := Open(b.Context(), dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		if v.Len() != 10_000 {
			b.Fatalf("loaded %d memories, want 10000", v.Len())
		}
	}
	b.ReportMetric((processCPU()-cpu).Seconds()/float64(loops), "cpu-s/op")
}
