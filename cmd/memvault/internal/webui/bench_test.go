package webui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/cputime"
)

// benchWord is the k-th word of the bench vault's vocabulary.
func benchWord(k int) string { return fmt.Sprintf("w%x", (k*7919)%2000+4096) }

// buildBenchVault writes, with git fast-import, a repository whose vault
// has n memories (in 100 folders of the project layer, as a big vault
// spreads them) added by n commits of memvault's message shape, and
// checks it out.
func buildBenchVault(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	git := func(stdin string, args ...string) {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Stdin = strings.NewReader(stdin)
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := c.CombinedOutput(); err != nil {
			b.Skipf("git %v: %v\n%s", args, err, out)
		}
	}
	git("", "init", "-q", "-b", "main")
	var s strings.Builder
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Titles of five words from a 2,000-word vocabulary and three tags of
	// 200, as vault/review's BenchmarkBuild: realistic overlap, not every
	// memory sharing its title's terms with a thousand others.
	rnd := uint64(1)
	next := func(n int) int {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return int(rnd>>33) % n
	}
	for i := range n {
		id := fmt.Sprintf("01J%023d", i)
		at := start.Add(time.Duration(i) * 20 * time.Minute)
		var ws []string
		for range 5 {
			ws = append(ws, benchWord(next(2000)))
		}
		title := strings.Join(ws, " ")
		tags := fmt.Sprintf("t%d, t%d, t%d", next(200), next(200), next(200))
		content := fmt.Sprintf("---\nid: %s\ntitle: %s\nlayer: project\ntags: [%s]\ncreated_at: %s\nupdated_at: %s\n---\n# %s\n\nWe keep %s for %s; see %s and %s when %s changes.\n",
			id, title, tags, at.Format(time.RFC3339), at.Format(time.RFC3339), title, ws[0], ws[1], benchWord(next(2000)), benchWord(next(2000)), ws[2])
		msg := fmt.Sprintf("memory: add project: %s\n\nlearned while working on %s\n\nMemory-Id: %s\nMemory-Layer: project\nMemory-Client: client%d\n", title, ws[0], id, i%3)
		fmt.Fprintf(&s, "commit refs/heads/main\ncommitter Dev%d <dev%d@example.com> %d +0000\ndata %d\n%s", i%7, i%7, at.Unix(), len(msg), msg)
		fmt.Fprintf(&s, "M 100644 inline .memory/project/f%02d/m%05d.md\ndata %d\n%s\n", i%100, i, len(content), content)
	}
	git(s.String(), "fast-import", "--quiet")
	git("", "checkout", "-q", "-f", "main")
	return filepath.Join(root, ".memory")
}

// BenchmarkPages measures the server time of each page (the handler,
// without the network) on a vault of 10k memories with a 10k-commit
// history, and reports the median and p90 in ms, and the median CPU time
// of the process per page (which a loaded machine does not inflate).
// Targets (issue 26): median under 50 ms for /, /search and /m/ID; under
// 100 ms for the timeline's first page.
//
// Each page is loaded once before it is measured: the first load builds
// the caches (the review's, the staleness tracker's, and on the first
// memory page the history index, which BenchmarkIndex in histindex
// measures). memory-first then shows a memory not shown before at each
// iteration: its story is not cached, the history index is.
func BenchmarkPages(b *testing.B) {
	const n = 10000
	dir := buildBenchVault(b, n)
	now := func() time.Time { return time.Date(2026, 6, 20, 0, 0, 0, 0, time.UTC) }
	src, err := NewLocal(b.Context(), dir, now)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	s, err := New(Config{Source: src, Now: now, Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	pages := []struct{ name, path string }{
		{"overview", "/"},
		{"search", "/search?q=" + url.QueryEscape(fmt.Sprintf("how do we keep %s and %s", benchWord(17), benchWord(400)))},
		{"search-zh", "/search?q=" + url.QueryEscape("结算模块怎么设计的")},
		// A memory seen for the first time (each iteration another one),
		// and the same memory again (its story cached until HEAD moves).
		{"memory-first", ""},
		{"memory-again", "/m/" + fmt.Sprintf("01J%023d", n/2)},
		{"timeline", "/timeline"},
		{"timeline-filtered", "/timeline?client=client1&layer=project"},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			i := 0
			var cpus []float64
			serve := func() time.Duration {
				path := p.path
				if path == "" {
					i++
					path = "/m/" + fmt.Sprintf("01J%023d", (i*7919)%n)
				}
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, path, nil)
				t0, c0 := time.Now(), cputime.Process()
				h.ServeHTTP(rec, req)
				d := time.Since(t0)
				cpus = append(cpus, float64((cputime.Process()-c0).Microseconds())/1000)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: status %d", path, rec.Code)
				}
				return d
			}
			serve() // the first load of a page builds caches (the review's, the tracker's)
			cpus = cpus[:0]
			var ds []float64
			for b.Loop() {
				ds = append(ds, float64(serve().Microseconds())/1000)
			}
			slices.Sort(ds)
			b.ReportMetric(ds[len(ds)/2], "median-ms")
			b.ReportMetric(ds[len(ds)*9/10], "p90-ms")
			slices.Sort(cpus)
			b.ReportMetric(cpus[len(cpus)/2], "cpu-median-ms")
		})
	}
}
