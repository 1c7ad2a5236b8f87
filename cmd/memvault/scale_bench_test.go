package main

import (
	"bufio"
	"context"
	"io/fs"
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
)

// The scale benchmarks run the real binary on the 100k-memory vault that
// the vault package's benchmarks generate and keep in
// MEMVAULT_BENCH_CACHE (run `go test ./vault -run '^$' -bench
// 'Load/n=100000$' -benchtime 1x` once to make it):
//
//	MEMVAULT_BENCH_CACHE=/tmp/mvbench go test ./cmd/memvault -run '^$' -bench Scale -benchtime 3x
//
// The vault's files are hard-linked into a fresh git repository, so each
// run starts without an index cache. MEMVAULT_BENCH_BIN runs another
// memvault binary instead of this package's (a build of the base commit,
// to compare).

// scaleBenchVault returns the .memory folder of a new repository holding
// the cached 100k vault, or skips.
func scaleBenchVault(b *testing.B) string {
	b.Helper()
	cache := os.Getenv("MEMVAULT_BENCH_CACHE")
	src := filepath.Join(cache, "vault-100000")
	if _, err := os.Stat(filepath.Join(src, "done")); cache == "" || err != nil {
		b.Skip("needs MEMVAULT_BENCH_CACHE with vault-100000 (see the comment above)")
	}
	root := newRepo(b)
	dst := filepath.Join(root, ".memory")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if strings.HasPrefix(d.Name(), ".") && rel != "." {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(p, ".md") {
			return nil
		}
		return os.Link(p, filepath.Join(dst, rel))
	})
	if err != nil {
		b.Fatal(err)
	}
	return dst
}

// scaleBenchBinary is MEMVAULT_BENCH_BIN, else this package built.
func scaleBenchBinary(b *testing.B) string {
	if bin := os.Getenv("MEMVAULT_BENCH_BIN"); bin != "" {
		return bin
	}
	return buildMemvault(b)
}

// peakRSS returns a process's peak resident set (VmHWM) in MiB.
func peakRSS(b *testing.B, pid int) float64 {
	b.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmHWM in /proc status")
	return 0
}

// scaleBenchPrepare readies the vault for a run of the named case: cold
// removes the index cache, warm leaves the one the previous run wrote,
// edited also edits one memory file after it was written (another
// process's `memvault update`).
func scaleBenchPrepare(b *testing.B, name, vaultDir string, edit func()) {
	switch name {
	case "cold":
		os.RemoveAll(filepath.Join(vaultDir, ".cache"))
	case "edited":
		edit()
	}
}

// scaleBenchEditor returns a function that appends a line to one memory
// file of the vault in the middle of its path order. The file is written
// anew, not through its hard link, which would change the shared copy.
func scaleBenchEditor(b *testing.B, vaultDir string) func() {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(vaultDir, "project", "*.md"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no memory files in %s: %v", vaultDir, err)
	}
	slices.Sort(files)
	p := files[len(files)/2]
	n := 0
	return func() {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		n++
		data = append(data, "\nEdited again ("+strconv.Itoa(n)+"), zqedit.\n"...)
		if err := os.Remove(p); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScaleServe spawns `memvault serve` on the 100k vault, answers
// one recall, and reports the time from spawn to that answer and the
// server's peak RSS then: cold without an index cache, warm with the one
// the previous server wrote, edited with that cache and one memory file
// edited since.
func BenchmarkScaleServe(b *testing.B) {
	bin := scaleBenchBinary(b)
	isolateGit(b)
	vaultDir := scaleBenchVault(b)
	edit := scaleBenchEditor(b, vaultDir)
	for _, name := range []string{"cold", "warm", "edited"} {
		b.Run(name, func(b *testing.B) {
			var first []time.Duration
			var rss, cpu []float64
			for b.Loop() {
				b.StopTimer()
				scaleBenchPrepare(b, name, vaultDir, edit)
				b.StartTimer()
				d, r, c := serveFirstRecall(b, bin, vaultDir)
				first = append(first, d)
				rss = append(rss, r)
				cpu = append(cpu, c)
			}
			reportQuantiles(b, first, "first-recall-")
			b.ReportMetric(medianFloat(rss), "peak-rss-MiB")
			b.ReportMetric(medianFloat(cpu), "cpu-ms")
		})
	}
}

// serveFirstRecall spawns the server, initializes it, asks one recall and
// returns the time from spawn to the answer, the server's peak RSS and the
// CPU time it had used by then (milliseconds; the wall time depends on
// what else the machine runs, the CPU time much less).
func serveFirstRecall(b *testing.B, bin, vaultDir string) (time.Duration, float64, float64) {
	var cmd *exec.Cmd
	start := time.Now()
	c, err := client.NewStdioMCPClientWithOptions(bin, nil,
		[]string{"serve", "--vault", vaultDir, "--no-user-vault", "--log-file", os.DevNull},
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
	benchCall(b, c, "recall", map[string]any{"query": "arkane 两下 deploy"})
	d := time.Since(start)
	return d, peakRSS(b, cmd.Process.Pid), procCPUms(b, cmd.Process.Pid)
}

// procCPUms returns the user and system CPU time a running process has
// used, in milliseconds, from /proc.
func procCPUms(b *testing.B, pid int) float64 {
	b.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) * 10 // clock ticks of 10 ms (USER_HZ 100)
}

// BenchmarkScaleRecallCLI times `memvault recall` on the 100k vault: cold
// is a process with no index cache to use, warm one that finds the cache
// the previous run wrote, edited one that finds it and one memory file
// edited since it was written. The peak RSS of each is reported too.
func BenchmarkScaleRecallCLI(b *testing.B) {
	bin := scaleBenchBinary(b)
	isolateGit(b)
	vaultDir := scaleBenchVault(b)
	run := func(b *testing.B) (time.Duration, float64, float64) {
		cmd := exec.Command(bin, "recall", "--vault", vaultDir, "--limit", "5", "arkane 两下 deploy")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("recall: %v\n%s", err, out)
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		return d, float64(maxRSSKB(cmd.ProcessState)) / 1024, float64(cpu.Microseconds()) / 1000
	}
	edit := scaleBenchEditor(b, vaultDir)
	for _, name := range []string{"cold", "warm", "edited"} {
		b.Run(name, func(b *testing.B) {
			var ds []time.Duration
			var rss, cpu []float64
			for b.Loop() {
				b.StopTimer()
				scaleBenchPrepare(b, name, vaultDir, edit)
				b.StartTimer()
				d, r, c := run(b)
				ds = append(ds, d)
				rss = append(rss, r)
				cpu = append(cpu, c)
			}
			reportQuantiles(b, ds, "wall-")
			b.ReportMetric(medianFloat(rss), "peak-rss-MiB")
			b.ReportMetric(medianFloat(cpu), "cpu-ms")
		})
	}
}

func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
