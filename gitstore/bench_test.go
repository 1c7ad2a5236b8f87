package gitstore

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Benchmark repository: 10,000 memory files in four layer folders plus
// 10,000 other files in 100 source folders, committed once. It is generated
// deterministically (fixed clock and author), so two builds are identical
// and the go-git and git CLI benchmarks start from the same repository.
const (
	benchMemFolders  = 4
	benchMemPerDir   = 2500
	benchSrcFolders  = 100
	benchSrcPerDir   = 100
	benchHistoryRevs = 100
)

var benchLayers = []string{"project", "short-term", "preferences", "meta"}

var benchEpoch = time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)

func memoryText(layer string, i, rev int) string {
	return fmt.Sprintf(`---
id: 01J%010d
layer: %s
importance: %d
tags: [build, ci, style]
created_at: 2025-06-01T08:00:00Z
---
# Decision %d in %s

We decided to keep the build reproducible (revision %d). The CI runs the full
test suite with the race detector; flaky tests are quarantined, not retried.
决定：构建必须可复现，CI 使用竞态检测运行全部测试。
`, i, layer, i%10, i, layer, rev)
}

// buildBenchRepo creates the benchmark repository in dir and returns an
// open Store on it. With pack set and git installed, the objects are packed
// with `git gc` as in a repository that has seen some use.
func buildBenchRepo(b *testing.B, dir string, pack bool) *Store {
	b.Helper()
	start := time.Now()
	ctx := context.Background()
	s, err := Init(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	s.Now = clock(benchEpoch)
	// The import is setup, not the thing measured: unsynced, it takes a
	// third of the time. The Store is returned durable, the default.
	s.NoSync = true
	// Nor does it start a background git gc, which the gc below would
	// then find running ("gc is already running") and fail on.
	s.NoHousekeeping = true
	defer func() { s.NoSync, s.NoHousekeeping = false, false }()
	var paths []string
	for l := 0; l < benchMemFolders; l++ {
		for i := 0; i < benchMemPerDir; i++ {
			p := filepath.Join(dir, ".memory", benchLayers[l], fmt.Sprintf("decision-keep-builds-reproducible-%04d.md", i))
			writeFile(b, p, memoryText(benchLayers[l], i, 0))
			paths = append(paths, p)
		}
	}
	for d := 0; d < benchSrcFolders; d++ {
		for i := 0; i < benchSrcPerDir; i++ {
			p := filepath.Join(dir, "src", fmt.Sprintf("pkg%02d", d), fmt.Sprintf("file%03d.go", i))
			writeFile(b, p, fmt.Sprintf("package pkg%02d\n\n// F%d is generated.\nfunc F%d() int { return %d }\n", d, i, i, i*d))
			paths = append(paths, p)
		}
	}
	if _, err := s.Commit(ctx, Change{Paths: paths, Message: "Import the project", Author: testAuthor}); err != nil {
		b.Fatal(err)
	}
	if pack && gitPath() != "" {
		if out, err := gitOutput(dir, nil, "gc", "-q"); err != nil {
			b.Fatalf("git gc: %v %s", err, out)
		}
	}
	b.Logf("built a %d-file repository in %v", len(paths), time.Since(start).Round(time.Millisecond))
	return s
}

// reportPercentiles reports the median and 99th percentile of the
// samples, and the CPU time per operation since cpu0 (this process and the
// git processes it ran).
func reportPercentiles(b *testing.B, samples []time.Duration, cpu0 time.Duration) {
	if len(samples) == 0 {
		return
	}
	if cpu := cpuTime(); cpu > 0 {
		b.ReportMetric(float64(cpu-cpu0)/float64(time.Millisecond)/float64(len(samples)), "cpu-ms/op")
	}
	slices.Sort(samples)
	pct := func(p float64) float64 {
		i := int(p * float64(len(samples)-1))
		return float64(samples[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// benchTarget is the memory file the commit benchmarks rewrite; cycling over
// a few files in different folders keeps the work realistic.
func benchTarget(dir string, i int) string {
	return filepath.Join(dir, ".memory", benchLayers[i%benchMemFolders], fmt.Sprintf("decision-keep-builds-reproducible-%04d.md", (i*37)%benchMemPerDir))
}

// BenchmarkCommit times one memory commit with the default durability
// (objects, ref and index fsynced); BenchmarkCommitNoSync the same without
// fsync, so the difference is the cost of surviving a power loss.
//
//	go test ./gitstore -run '^$' -bench '^BenchmarkCommit(NoSync)?$' -benchtime 100x
func BenchmarkCommit(b *testing.B) { benchCommit(b, false) }

func BenchmarkCommitNoSync(b *testing.B) { benchCommit(b, true) }

func benchCommit(b *testing.B, noSync bool) {
	dir := b.TempDir()
	s := buildBenchRepo(b, dir, true)
	defer s.Close()
	s.NoSync = noSync
	ctx := context.Background()
	var samples []time.Duration
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		i++
		p := benchTarget(dir, i)
		t0 := time.Now()
		if err := os.WriteFile(p, []byte(memoryText("x", i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
		unlock, err := s.Lock(ctx)
		if err != nil {
			b.Fatal(err)
		}
		_, err = s.Commit(ctx, Change{Paths: []string{p}, Message: fmt.Sprintf("Remember %d", i), Author: testAuthor})
		unlock()
		if err != nil {
			b.Fatal(err)
		}
		samples = append(samples, time.Since(t0))
	}
	reportPercentiles(b, samples, cpu0)
	if gitPath() != "" {
		if out, _ := gitOutput(dir, nil, "status", "--porcelain"); out != "" {
			b.Errorf("git status after the benchmark: %q", out)
		}
	}
}

func BenchmarkGitCLICommit(b *testing.B) {
	if gitPath() == "" {
		b.Skip("git CLI not installed")
	}
	dir := b.TempDir()
	s := buildBenchRepo(b, dir, true)
	s.Close()
	env := []string{"GIT_AUTHOR_NAME=" + testAuthor.Name, "GIT_AUTHOR_EMAIL=" + testAuthor.Email,
		"GIT_COMMITTER_NAME=memvault", "GIT_COMMITTER_EMAIL=" + testAuthor.Email}
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	var samples []time.Duration
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		i++
		p := benchTarget(dir, i)
		rel, _ := filepath.Rel(dir, p)
		t0 := time.Now()
		if err := os.WriteFile(p, []byte(memoryText("x", i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
		run("add", "--", rel)
		run("commit", "-q", "-m", fmt.Sprintf("Remember %d", i), "--", rel)
		samples = append(samples, time.Since(t0))
	}
	reportPercentiles(b, samples, cpu0)
}

// BenchmarkHistory lists the history of a memory with 100 revisions (in the
// middle of its 2,500-file folder, so a lookup scans half of each tree),
// interleaved with 100 commits to other memories, in the benchmark
// repository: "cold" opens a new Store per call (a CLI invocation), "warm"
// reuses one (the MCP server); "loose" keeps memvault's loose objects,
// "packed" runs git gc first.
func BenchmarkHistory(b *testing.B) {
	for _, packed := range []bool{false, true} {
		name := "loose"
		if packed {
			name = "packed"
			if gitPath() == "" {
				continue
			}
		}
		dir := b.TempDir()
		s := buildBenchRepo(b, dir, false)
		ctx := context.Background()
		target := filepath.Join(dir, ".memory", "project", "decision-keep-builds-reproducible-1250.md")
		for r := 1; r <= benchHistoryRevs; r++ {
			if err := os.WriteFile(target, []byte(memoryText("project", 1250, r)), 0o644); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Commit(ctx, Change{Paths: []string{target}, Message: fmt.Sprintf("Revise 1250 (%d)", r), Author: testAuthor}); err != nil {
				b.Fatal(err)
			}
			other := benchTarget(dir, r)
			if err := os.WriteFile(other, []byte(memoryText("x", r, r)), 0o644); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Commit(ctx, Change{Paths: []string{other}, Message: fmt.Sprintf("Other %d", r), Author: testAuthor}); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		if packed {
			if out, err := gitOutput(dir, nil, "gc", "-q"); err != nil {
				b.Fatalf("git gc: %v %s", err, out)
			}
		}
		check := func(cs []CommitInfo) {
			if len(cs) != benchHistoryRevs+1 {
				b.Fatalf("History returned %d commits, want %d", len(cs), benchHistoryRevs+1)
			}
		}
		b.Run("cold/"+name, func(b *testing.B) {
			var samples []time.Duration
			cpu0 := cpuTime()
			for b.Loop() {
				t0 := time.Now()
				s, err := Open(ctx, dir)
				if err != nil {
					b.Fatal(err)
				}
				cs, err := s.History(ctx, target, HistoryOptions{})
				if err != nil {
					b.Fatal(err)
				}
				samples = append(samples, time.Since(t0))
				s.Close()
				check(cs)
			}
			reportPercentiles(b, samples, cpu0)
		})
		b.Run("warm/"+name, func(b *testing.B) {
			s, err := Open(ctx, dir)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := s.History(ctx, target, HistoryOptions{}); err != nil {
				b.Fatal(err) // fill the caches
			}
			var samples []time.Duration
			cpu0 := cpuTime()
			for b.Loop() {
				t0 := time.Now()
				cs, err := s.History(ctx, target, HistoryOptions{})
				if err != nil {
					b.Fatal(err)
				}
				samples = append(samples, time.Since(t0))
				check(cs)
			}
			reportPercentiles(b, samples, cpu0)
		})
	}
}
