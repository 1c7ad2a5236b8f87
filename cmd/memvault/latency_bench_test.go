package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The latency benchmarks compare builds through the real binary and
// mcp-go's stdio client, spawning them in turn on the same machine so that
// the load of the moment falls on all of them alike:
//
//	MEMVAULT_BENCH_BINS=base=/tmp/b/memvault,new=/tmp/n/memvault \
//	MEMVAULT_BENCH_CACHE=/tmp/mvbench \
//	  go test ./cmd/memvault -run '^$' -bench ServeLatency -benchtime 5x
//
// Each round spawns every build once (the order reversed every other
// round) and reports, per build, spawn → initialize → tools/list, spawn →
// first recall, recall p50/p99 over MEMVAULT_BENCH_RECALLS recalls of
// varied queries (default 200), and the server's peak RSS. Each build
// works on its own copy of the repository (builds may keep their index
// caches in different formats) and is spawned once untimed before the
// rounds, so the rounds start warm, as a developer's next session does.
// Without MEMVAULT_BENCH_BINS it runs this package's build alone.

// benchBin is a named build to compare.
type benchBin struct{ name, path string }

// latencyBenchBins reads MEMVAULT_BENCH_BINS (name=path,...).
func latencyBenchBins(b *testing.B) []benchBin {
	b.Helper()
	v := os.Getenv("MEMVAULT_BENCH_BINS")
	if v == "" {
		return []benchBin{{"this", buildMemvault(b)}}
	}
	var bins []benchBin
	for _, f := range strings.Split(v, ",") {
		name, path, ok := strings.Cut(f, "=")
		if !ok || name == "" || path == "" {
			b.Fatalf("MEMVAULT_BENCH_BINS: %q is not name=path", f)
		}
		bins = append(bins, benchBin{name, path})
	}
	return bins
}

// latencyRun is what one spawn of a build measured.
type latencyRun struct {
	list, first time.Duration
	listCPU     float64 // the server's CPU time when tools/list was answered, ms
	recallCPU   float64 // the server's CPU time per recall after the first, ms
	recalls     []time.Duration
	rss         float64
}

// benchQueries are the recalls' queries, in turn: English and Chinese,
// one word and a sentence, common and rare.
var benchQueries = []string{
	"deploy script", "部署脚本", "how do we run the tests", "数据库迁移", "code review",
	"release", "why did we pick postgres", "错误处理", "logging format", "arkane 两下 deploy",
	"api versioning", "缓存失效", "commit message style", "retry with backoff", "配置文件",
}

// spawnLatency spawns bin on vaultDir, times initialize and tools/list,
// the first recall and then n recalls, and reads the server's peak RSS.
func spawnLatency(b *testing.B, bin, vaultDir string, n int) latencyRun {
	b.Helper()
	var cmd *exec.Cmd
	start := time.Now()
	c, err := client.NewStdioMCPClientWithOptions(bin, nil,
		[]string{"serve", "--vault", vaultDir, "--no-user-vault", "--log-file", cmp.Or(os.Getenv("MEMVAULT_BENCH_LOG"), os.DevNull)},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	initClient(b, c, "", "bench", false)
	if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
		b.Fatal(err)
	}
	r := latencyRun{list: time.Since(start), listCPU: procCPUms(b, cmd.Process.Pid)}
	benchCall(b, c, "recall", map[string]any{"query": benchQueries[0]})
	r.first = time.Since(start)
	cpu0 := procCPUms(b, cmd.Process.Pid)
	for i := range n {
		t := time.Now()
		benchCall(b, c, "recall", map[string]any{"query": benchQueries[(i+1)%len(benchQueries)]})
		r.recalls = append(r.recalls, time.Since(t))
	}
	if n > 0 {
		r.recallCPU = (procCPUms(b, cmd.Process.Pid) - cpu0) / float64(n)
	}
	r.rss = peakRSS(b, cmd.Process.Pid)
	return r
}

// loadAverage is /proc/loadavg's first three fields, or "?".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

func BenchmarkServeLatency(b *testing.B) {
	bins := latencyBenchBins(b)
	_, vaultDir := serveBenchRepo(b)
	recalls := 200
	if v := os.Getenv("MEMVAULT_BENCH_RECALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("MEMVAULT_BENCH_RECALLS=%q: want a positive number", v)
		}
		recalls = n
	}
	// A copy of the repository per build, warmed by one spawn.
	dirs := make([]string, len(bins))
	for i, bin := range bins {
		root := filepath.Join(b.TempDir(), "repo")
		if out, err := exec.Command("cp", "-a", filepath.Dir(vaultDir), root).CombinedOutput(); err != nil {
			b.Fatalf("copy: %v\n%s", err, out)
		}
		dirs[i] = filepath.Join(root, ".memory")
		spawnLatency(b, bin.path, dirs[i], 1)
	}
	runs := make([][]latencyRun, len(bins))
	load := []string{loadAverage()}
	round := 0
	for b.Loop() {
		order := make([]int, len(bins))
		for i := range order {
			order[i] = i
		}
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			runs[i] = append(runs[i], spawnLatency(b, bins[i].path, dirs[i], recalls))
		}
		round++
	}
	load = append(load, loadAverage())
	var tab strings.Builder
	fmt.Fprintf(&tab, "load average %s → %s; %d rounds, %d recalls per spawn\n", load[0], load[1], round, recalls)
	fmt.Fprintf(&tab, "%-8s %14s %14s %14s %10s %10s %10s %12s\n", "build", "tools/list ms", "its CPU ms", "1st recall ms", "p50 ms", "p99 ms", "CPU/recall", "peak RSS MiB")
	for i, bin := range bins {
		var list, first, all []time.Duration
		var rss, cpu, rcpu []float64
		for _, r := range runs[i] {
			rcpu = append(rcpu, r.recallCPU)
			list, first = append(list, r.list), append(first, r.first)
			cpu = append(cpu, r.listCPU)
			all = append(all, r.recalls...)
			rss = append(rss, r.rss)
		}
		p := func(ds []time.Duration, f float64) float64 { return quantileMs(ds, f) }
		fmt.Fprintf(&tab, "%-8s %14.1f %14.1f %14.1f %10.3f %10.3f %10.3f %12.1f\n", bin.name, p(list, 0.5), meanFloat(cpu), p(first, 0.5), p(all, 0.5), p(all, 0.99), meanFloat(rcpu), medianFloat(rss))
		b.ReportMetric(meanFloat(rcpu), bin.name+"-recall-cpu-ms")
		b.ReportMetric(p(list, 0.5), bin.name+"-tools-list-ms")
		b.ReportMetric(meanFloat(cpu), bin.name+"-tools-list-cpu-ms")
		b.ReportMetric(p(first, 0.5), bin.name+"-first-recall-ms")
		b.ReportMetric(p(all, 0.5), bin.name+"-recall-p50-ms")
		b.ReportMetric(p(all, 0.99), bin.name+"-recall-p99-ms")
		b.ReportMetric(medianFloat(rss), bin.name+"-peak-rss-MiB")
	}
	b.Log("\n" + tab.String())
}

// quantileMs is the f quantile of ds in milliseconds.
func quantileMs(ds []time.Duration, f float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[int(f*float64(len(ds)-1))]) / float64(time.Millisecond)
}

// BenchmarkServeFresh writes a vault of MEMVAULT_BENCH_N memories
// (default 100,000) the way a script does, file by file, commits them with
// git, and spawns each build of MEMVAULT_BENCH_BINS three times on it, as
// a developer's first sessions do, the second through a copy of the
// binary at another path (a CLI on PATH beside the binary the MCP client
// runs): it reports spawn → first recall of each spawn and the servers'
// highest peak RSS. The second and third spawns should find the vault
// warm (the first spawn's index cache). MEMVAULT_BENCH_KEEP
// names a folder to keep the repositories in (one per build), and
// MEMVAULT_BENCH_LOG a file for the servers' logs.
//
//	MEMVAULT_BENCH_BINS=base=/tmp/b/memvault,new=/tmp/n/memvault \
//	  go test ./cmd/memvault -run '^$' -bench ServeFresh -benchtime 1x
func BenchmarkServeFresh(b *testing.B) {
	bins := latencyBenchBins(b)
	isolateGit(b)
	n := 100_000
	if os.Getenv("MEMVAULT_BENCH_N") != "" {
		n = serveBenchSize(b)
	}
	files := benchMemories(b, n, gitTestNow.Add(-24*time.Hour))
	const spawns = 3
	firsts := make([][spawns][]time.Duration, len(bins))
	rss := make([][]float64, len(bins))
	for b.Loop() {
		for i, bin := range bins {
			root := newRepo(b)
			if keep := os.Getenv("MEMVAULT_BENCH_KEEP"); keep != "" {
				// Keep the repository there, to look into it.
				root = filepath.Join(keep, bin.name)
				if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
					b.Fatalf("git init: %v\n%s", err, out)
				}
			}
			start := time.Now()
			for rel, text := range files {
				p := filepath.Join(root, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "import"}} {
				if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			b.Logf("%s: wrote and committed %d memories in %v", bin.name, n, time.Since(start).Round(time.Millisecond))
			// The second spawn runs a copy of the build from another
			// path, as a CLI on PATH and the binary an MCP client is
			// configured with are: the same program, whose caches
			// should serve each other.
			data, err := os.ReadFile(bin.path)
			if err != nil {
				b.Fatal(err)
			}
			cp := filepath.Join(b.TempDir(), "memvault-copy")
			if err := os.WriteFile(cp, data, 0o755); err != nil {
				b.Fatal(err)
			}
			peak := 0.0
			for s, path := range []string{bin.path, cp, bin.path} {
				r := spawnLatency(b, path, filepath.Join(root, ".memory"), 0)
				firsts[i][s] = append(firsts[i][s], r.first)
				peak = max(peak, r.rss)
				b.Logf("%s spawn %d: first recall %v, peak RSS %.0f MiB, load average %s", bin.name, s+1, r.first.Round(time.Millisecond), r.rss, loadAverage())
			}
			rss[i] = append(rss[i], peak)
			if os.Getenv("MEMVAULT_BENCH_KEEP") == "" {
				os.RemoveAll(root)
			}
		}
	}
	for i, bin := range bins {
		for s := range spawns {
			b.ReportMetric(quantileMs(firsts[i][s], 0.5), fmt.Sprintf("%s-spawn%d-first-recall-ms", bin.name, s+1))
		}
		b.ReportMetric(medianFloat(rss[i]), bin.name+"-peak-rss-MiB")
	}
}

// meanFloat is the mean of xs: of CPU times read in 10 ms ticks, a
// median would be one of a few values.
func meanFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
