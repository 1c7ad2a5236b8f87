package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/memvault/memvault/gitstore"
)

// BenchmarkServeRecallRefs compares recall through `memvault serve` on
// two copies of the bench vault (10,000 memories), one server each,
// called in turn: without refs, and with
// 3 refs per memory (two files and a folder of 500 committed code files,
// a tenth of them edited after the memories were written). The
// difference is what staleness costs a recall: the tracker is current
// after the first call, so it is the check and the states of the results.
func BenchmarkServeRecallRefs(b *testing.B) {
	bin := buildMemvault(b)
	isolateGit(b)
	build := func(refs bool) string {
		root := newRepo(b)
		s, err := gitstore.Open(context.Background(), root)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		files := benchMemories(b, benchFiles, gitTestNow.Add(-24*time.Hour))
		code := map[string]string{}
		for i := range 500 {
			code[fmt.Sprintf("src/d%02d/f%03d.go", i/25, i)] = fmt.Sprintf("package d\n\nfunc F%d() {}\n", i)
		}
		if refs {
			i := 0
			for p, text := range files {
				files[p] = strings.Replace(text, "\nstatus: active\n", fmt.Sprintf("\nstatus: active\nrefs: [src/d%02d/f%03d.go, src/d%02d/f%03d.go, src/d%02d/]\n",
					i%500/25, i%500, (i+7)%500/25, (i+7)%500, (i+3)%20), 1)
				i++
			}
		}
		commitFiles(b, s, code, gitTestNow.Add(-48*time.Hour), "code")
		commitFiles(b, s, files, gitTestNow.Add(-time.Hour), "seed the vault")
		edited := map[string]string{}
		for i := 0; i < 500; i += 10 {
			edited[fmt.Sprintf("src/d%02d/f%03d.go", i/25, i)] = fmt.Sprintf("package d\n\nfunc F%d() { _ = 1 }\n", i)
		}
		commitFiles(b, s, edited, gitTestNow.Add(-30*time.Minute), "edit code")
		return filepath.Join(root, ".memory")
	}
	queries := []string{"deploy script", "部署脚本", "how do we run the tests", "数据库迁移", "code review", "release"}
	// A pair of servers, without and with refs, of one binary.
	type pair struct {
		prefix      string
		plain, refs *client.Client
		pidP, pidR  int
		dp, dr      []time.Duration
		cpuP, cpuR  time.Duration // CPU time at the start of the loop
		cpuOK       bool
	}
	start := func(prefix, bin string) *pair {
		p := &pair{prefix: prefix}
		p.plain, p.pidP = startBenchServer(b, bin, build(false))
		p.refs, p.pidR = startBenchServer(b, bin, build(true))
		for _, c := range []*client.Client{p.plain, p.refs} {
			benchCall(b, c, "recall", map[string]any{"query": "deploy"}) // load, and the first staleness walk
		}
		return p
	}
	pairs := []*pair{start("", bin)}
	// MEMVAULT_BENCH_BASE names other memvault binaries (say, main's; a
	// list like PATH) to measure in the same loop, on vaults of their own:
	// their ratios are reported with the prefixes base-, base2-, …, under
	// the same load as this one's.
	for k, base := range filepath.SplitList(os.Getenv("MEMVAULT_BENCH_BASE")) {
		prefix := "base-"
		if k > 0 {
			prefix = fmt.Sprintf("base%d-", k+1)
		}
		pairs = append(pairs, start(prefix, base))
	}
	defer func() {
		for _, p := range pairs {
			p.plain.Close()
			p.refs.Close()
		}
	}()
	call := func(c *client.Client, q string) time.Duration {
		start := time.Now()
		benchCall(b, c, "recall", map[string]any{"query": q})
		return time.Since(start)
	}
	// The servers answer in turn, in alternating order, so the load of
	// the shared machine weighs on all alike: the ratios are the figures.
	for _, p := range pairs {
		var okP, okR bool
		p.cpuP, okP = pidCPU(p.pidP)
		p.cpuR, okR = pidCPU(p.pidR)
		p.cpuOK = okP && okR
	}
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		for k := range pairs {
			p := pairs[(k+i/2)%len(pairs)]
			if i%2 == 0 {
				p.dp = append(p.dp, call(p.plain, q))
				p.dr = append(p.dr, call(p.refs, q))
			} else {
				p.dr = append(p.dr, call(p.refs, q))
				p.dp = append(p.dp, call(p.plain, q))
			}
		}
		i++
	}
	for _, p := range pairs {
		// The servers' own CPU time per call moves far less than latency
		// on a shared machine: a second view of the same cost.
		cpuP, okP := pidCPU(p.pidP)
		cpuR, okR := pidCPU(p.pidR)
		if p.cpuOK && okP && okR && cpuP > p.cpuP {
			b.ReportMetric(float64(cpuR-p.cpuR)/float64(cpuP-p.cpuP), p.prefix+"refs/norefs-cpu")
		}
		reportQuantiles(b, p.dp, p.prefix+"norefs-")
		reportQuantiles(b, p.dr, p.prefix+"refs-")
		slices.Sort(p.dp)
		slices.Sort(p.dr)
		b.ReportMetric(float64(p.dr[len(p.dr)/2])/float64(p.dp[len(p.dp)/2]), p.prefix+"refs/norefs-p50")
	}
}
