package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The team benchmarks run the real binary, process start included, as git
// does:
//
//	go test ./cmd/memvault -run '^$' -bench 'MergeDriverProcess' -benchtime 50x
//	go test ./cmd/memvault -run '^$' -bench 'Sync1000' -benchtime 1x

// benchMemory is a memory file as memvault writes it.
func benchMemory(id, title string, importance int, tags, body string) string {
	return fmt.Sprintf(`---
id: %s
title: %s
layer: project
importance: %d
tags: [%s]
created_at: 2026-11-01T10:00:00Z
updated_at: 2026-11-20T10:00:00Z
status: active
source: {client: cli, kind: manual}
version: 2
---
%s
`, id, title, importance, tags, body)
}

// BenchmarkMergeDriverProcess times one run of `memvault merge-driver` as
// git starts it for one file (process start, three reads, the field merge,
// the write): the two sides changed neighbouring fields, which git's own
// text merge would leave in conflict. Besides wall time it reports the
// driver's CPU time (user + system, from the child's rusage), which the
// load of a shared machine moves far less: git starts one driver per file
// changed on both sides, so a sync of 800 such files pays it 800 times.
// With MEMVAULT_BENCH_BINS (name=path,..., as the latency benchmarks) it
// runs the builds in turn, each iteration one start of each, the order
// reversed every other iteration:
//
//	MEMVAULT_BENCH_BINS=main=/tmp/m/memvault,new=/tmp/n/memvault \
//	  go test ./cmd/memvault -run '^$' -bench MergeDriverProcess -benchtime 100x
func BenchmarkMergeDriverProcess(b *testing.B) {
	bins := latencyBenchBins(b)
	dir := b.TempDir()
	const id = "01JDX3Q8W7AAAAAAAAAAAAAAAA"
	body := strings.Repeat("Money is int64 cents, never float64; 金额用 int64 分。\n", 20)
	base := benchMemory(id, "Money is int64 cents", 5, "money", body)
	ours := benchMemory(id, "Money is int64 cents", 5, "money, ledger", body)
	theirs := benchMemory(id, "Money is int64 cents", 8, "money", body+"Refunds too.\n")
	paths := map[string]string{"base": base, "theirs": theirs}
	for name, data := range paths {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	a := filepath.Join(dir, "ours")
	run := func(bin string) (wall, cpu time.Duration) {
		if err := os.WriteFile(a, []byte(ours), 0o644); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin, "merge-driver", filepath.Join(dir, "base"), a, filepath.Join(dir, "theirs"), ".memory/project/money.md")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall = time.Since(start)
		if err != nil {
			b.Fatalf("%s merge-driver: %v\n%s", bin, err, out)
		}
		got, err := os.ReadFile(a)
		if err != nil || !strings.Contains(string(got), "importance: 8") || !strings.Contains(string(got), "tags: [money, ledger]") || !strings.Contains(string(got), "Refunds too.") {
			b.Fatalf("%s: not merged (%v):\n%s", bin, err, got)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	walls := make([][]time.Duration, len(bins))
	cpus := make([][]time.Duration, len(bins))
	round := 0
	for b.Loop() {
		for k := range bins {
			i := k
			if round%2 == 1 {
				i = len(bins) - 1 - k
			}
			w, c := run(bins[i].path)
			walls[i], cpus[i] = append(walls[i], w), append(cpus[i], c)
		}
		round++
	}
	for i, bin := range bins {
		prefix := ""
		if len(bins) > 1 {
			prefix = bin.name + "-"
		}
		b.ReportMetric(quantileMS(walls[i], 0.5), prefix+"p50-ms")
		b.ReportMetric(quantileMS(walls[i], 0.95), prefix+"p95-ms")
		b.ReportMetric(quantileMS(cpus[i], 0.5), prefix+"cpu-p50-ms")
	}
}

// BenchmarkSync1000 times `memvault sync --merge` in a clone where 1,000
// memories changed on each side (the other clone raised their importance
// and pushed, this one added a tag to each): git runs the merge driver
// once per file. Setup (two clones of a 1,000-memory origin, the changes,
// the other clone's push) is not timed.
func BenchmarkSync1000(b *testing.B) {
	bin := buildMemvault(b)
	const n = 1000
	for b.Loop() {
		b.StopTimer()
		root := b.TempDir()
		origin := filepath.Join(root, "origin.git")
		git := func(dir string, args ...string) {
			b.Helper()
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
		git(root, "init", "-q", "--bare", "-b", "main", origin)
		a, c := filepath.Join(root, "a"), filepath.Join(root, "c")
		git(root, "clone", "-q", origin, a)
		writeAll := func(clone string, importance int, tags string) {
			for i := range n {
				id := fmt.Sprintf("01JDX3Q8W7%016d", i)
				p := filepath.Join(clone, ".memory", "project", fmt.Sprintf("memory-%04d.md", i))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(benchMemory(id, fmt.Sprintf("Memory %d", i), importance, tags, fmt.Sprintf("Body of memory %d.", i))), 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
		writeAll(a, 5, "t")
		if err := os.WriteFile(filepath.Join(a, ".memory", ".gitattributes"), []byte("*.md merge=memvault\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		git(a, "add", "-A")
		git(a, "commit", "-q", "-m", "1,000 memories")
		git(a, "push", "-q", "origin", "main")
		git(root, "clone", "-q", origin, c)
		writeAll(a, 8, "t")
		git(a, "commit", "-q", "-am", "importance 8")
		git(a, "push", "-q", "origin", "main")
		writeAll(c, 5, "t, team")
		git(c, "commit", "-q", "-am", "tag team")
		cmd := exec.Command(bin, "sync", "--merge", "--no-push")
		cmd.Dir = c
		b.StartTimer()
		out, err := cmd.CombinedOutput()
		b.StopTimer()
		if err != nil {
			b.Fatalf("sync: %v\n%s", err, out)
		}
		got, err := os.ReadFile(filepath.Join(c, ".memory", "project", "memory-0999.md"))
		if err != nil || !strings.Contains(string(got), "importance: 8") || !strings.Contains(string(got), "tags: [t, team]") {
			b.Fatalf("not merged (%v):\n%s\n%s", err, got, out)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(n), "memories/side")
}

// quantileMS is the q-quantile of ds in milliseconds.
func quantileMS(ds []time.Duration, q float64) float64 {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[int(q*float64(len(ds)-1))]) / float64(time.Millisecond)
}
