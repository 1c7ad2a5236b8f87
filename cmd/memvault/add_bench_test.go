package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkAddProcess times whole `memvault add` processes on a repository
// of 10k memories and 10k other files, next to `git add F && git commit -q
// -m MSG -- F` of a file of the same size on an identical copy of that
// repository, alternating the two in one run. It reports each side's p50
// and p95 of wall time (process start to exit), p50 of CPU time (user and
// system), and git's p50 over memvault's. "warm" keeps memvault's header
// cache (.git/memvault) between adds, as it is after any earlier add;
// "cold" removes it before each one.
//
// MEMVAULT_BENCH_BIN=/path/to/memvault times that build instead of this
// package's.
//
//	go test ./cmd/memvault -run '^$' -bench AddProcess -benchtime 40x
func BenchmarkAddProcess(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git CLI not installed")
	}
	// MEMVAULT_BENCH_BIN times another build (an older one, for a
	// before/after comparison in one run).
	bin := os.Getenv("MEMVAULT_BENCH_BIN")
	if bin == "" {
		bin = buildMemvault(b)
	}
	isolateGit(b)
	mv := filepath.Join(b.TempDir(), "mv")
	buildWriteBenchRepo(b, mv)
	// Packed, as a repository that has lived a while is; the import's
	// 20k loose objects would also start git's automatic gc in the
	// background of the first git commit timed.
	if out, err := exec.Command("git", "-C", mv, "gc", "-q").CombinedOutput(); err != nil {
		b.Fatalf("git gc: %v\n%s", err, out)
	}
	gitRoot := filepath.Join(b.TempDir(), "git")
	if out, err := exec.Command("cp", "-a", mv, gitRoot).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v\n%s", err, out)
	}
	// Let git refresh its index stat data once in each, as a user's
	// repository has it.
	for _, root := range []string{mv, gitRoot} {
		if out, err := exec.Command("git", "-C", root, "status", "--porcelain").CombinedOutput(); err != nil || len(out) > 0 {
			b.Fatalf("git status: %v\n%s", err, out)
		}
	}
	dir := filepath.Join(mv, ".memory")
	content := "Retry payment callbacks three times with backoff; 订单回调重试三次。"
	// run runs a process and returns its wall time and CPU time (user and
	// system, its children included: git commit runs none by default).
	run := func(name string, args ...string) (wall, cpu time.Duration) {
		cmd := exec.Command(name, args...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall = time.Since(start)
		if err != nil {
			b.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	i := 0
	for _, cold := range []bool{false, true} {
		b.Run(map[bool]string{false: "warm", true: "cold"}[cold], func(b *testing.B) {
			var mvt, gt, mvc, gc []time.Duration
			for b.Loop() {
				i++
				if cold {
					if err := os.RemoveAll(filepath.Join(mv, ".git", "memvault")); err != nil {
						b.Fatal(err)
					}
				}
				title := fmt.Sprintf("Bench add %d about payment retries", i)
				w, c := run(bin, "--vault", dir, "add", title, "--content", content, "--tags", "payments", "--reason", "benchmark")
				mvt, mvc = append(mvt, w), append(mvc, c)
				rel := fmt.Sprintf(".memory/project/bench-add-%d-about-payment-retries.md", i)
				text := fmt.Sprintf("---\nid: 01BENCH%019d\ntitle: %s\nlayer: project\nimportance: 5\ntags: [payments]\ncreated_at: 2026-01-01T00:00:00Z\nupdated_at: 2026-01-01T00:00:00Z\nstatus: active\nsource: {client: cli, kind: manual}\nversion: 1\n---\n%s\n", i, title, content)
				start := time.Now()
				if err := os.WriteFile(filepath.Join(gitRoot, rel), []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
				w = time.Since(start)
				w1, c1 := run("git", "-C", gitRoot, "add", "--", rel)
				w2, c2 := run("git", "-C", gitRoot, "commit", "-q", "-m", "memory(project): add "+title, "-m", "benchmark", "--", rel)
				gt, gc = append(gt, w+w1+w2), append(gc, c1+c2)
			}
			reportAddProcess(b, mvt, gt, mvc, gc)
		})
	}
}

// reportAddProcess reports the add benchmark's metrics.
func reportAddProcess(b *testing.B, mvt, gt, mvc, gc []time.Duration) {
	q := func(ds []time.Duration, f float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[int(f*float64(len(ds)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(q(mvt, 0.5), "memvault-p50-ms")
	b.ReportMetric(q(mvt, 0.95), "memvault-p95-ms")
	b.ReportMetric(q(gt, 0.5), "git-p50-ms")
	b.ReportMetric(q(gt, 0.95), "git-p95-ms")
	b.ReportMetric(q(gt, 0.5)/q(mvt, 0.5), "git/memvault")
	b.ReportMetric(q(mvc, 0.5), "memvault-cpu-p50-ms")
	b.ReportMetric(q(gc, 0.5), "git-cpu-p50-ms")
	b.ReportMetric(q(gc, 0.5)/q(mvc, 0.5), "git/memvault-cpu")
}
