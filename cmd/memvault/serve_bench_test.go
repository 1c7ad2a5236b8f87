package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/gitstore"
)

// The serve benchmarks drive the real binary through mcp-go's stdio client
// on a committed vault of benchFiles memories, or of MEMVAULT_BENCH_N:
//
//	go test ./cmd/memvault -run '^$' -bench ServeStdio -benchtime 20x
//	MEMVAULT_BENCH_N=100000 MEMVAULT_BENCH_CACHE=/tmp/mvbench \
//	  go test ./cmd/memvault -run '^$' -bench 'ServeStdio/remember' -benchtime 200x
//
// With MEMVAULT_BENCH_CACHE the seeded repository is built once, packed,
// and kept there (serve-repo-N); each run works on a copy of it, because
// remember commits to it. MEMVAULT_BENCH_BIN=/path/to/memvault runs that
// build instead of this package's; MEMVAULT_BENCH_REPO=/path/to/repo
// works in that repository itself (see serveBenchRepo).

// serveBenchSize is the number of memories the serve benchmarks seed.
func serveBenchSize(b *testing.B) int {
	b.Helper()
	v := os.Getenv("MEMVAULT_BENCH_N")
	if v == "" {
		return benchFiles
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("MEMVAULT_BENCH_N=%q: want a positive number", v)
	}
	return n
}

// serveBenchRepo builds the repository and the binary once. The memories
// are committed and packed, so a remember pays what it would in a real
// repository (a git index of n entries to update).
func serveBenchRepo(b *testing.B) (bin, vaultDir string) {
	b.Helper()
	// MEMVAULT_BENCH_BIN runs another build (an older one, for a
	// before/after comparison).
	if bin = os.Getenv("MEMVAULT_BENCH_BIN"); bin == "" {
		bin = buildMemvault(b)
	}
	isolateGit(b)
	// MEMVAULT_BENCH_REPO names a repository to work in as it is, not a
	// copy: a second run then starts warm (its index cache written by
	// the first, for that binary), which a copy never does; remember
	// commits to it.
	if repo := os.Getenv("MEMVAULT_BENCH_REPO"); repo != "" {
		return bin, filepath.Join(repo, ".memory")
	}
	n := serveBenchSize(b)
	cache := os.Getenv("MEMVAULT_BENCH_CACHE")
	if cache == "" {
		root := newRepo(b)
		seedServeRepo(b, root, n)
		return bin, filepath.Join(root, ".memory")
	}
	src := filepath.Join(cache, fmt.Sprintf("serve-repo-%d", n))
	if _, err := os.Stat(filepath.Join(src, ".git", "memvault-bench-done")); err != nil {
		os.RemoveAll(src)
		s, err := gitstore.Init(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
		seedServeRepo(b, src, n)
		if err := os.WriteFile(filepath.Join(src, ".git", "memvault-bench-done"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root := filepath.Join(b.TempDir(), "repo")
	start := time.Now()
	if out, err := exec.Command("cp", "-a", src, root).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v\n%s", src, err, out)
	}
	// The copy has new inodes and change times: refresh git's stat data,
	// as a user's repository has it fresh.
	if out, err := exec.Command("git", "-C", root, "update-index", "-q", "--refresh").CombinedOutput(); err != nil {
		b.Fatalf("git update-index: %v\n%s", err, out)
	}
	b.Logf("copied the %d-memory repository in %v", n, time.Since(start).Round(time.Millisecond))
	return bin, filepath.Join(root, ".memory")
}

// seedServeRepo commits n memories to the repository at root, then packs
// it with git gc when git is installed.
func seedServeRepo(b *testing.B, root string, n int) {
	b.Helper()
	start := time.Now()
	s, err := gitstore.Open(context.Background(), root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.NoSync = true         // setup: a throwaway repository
	s.NoHousekeeping = true // packed below; a gc of its own would race that one
	commitFiles(b, s, benchMemories(b, n, gitTestNow.Add(-24*time.Hour)), gitTestNow.Add(-time.Hour), "seed the vault")
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "-C", root, "gc", "-q").CombinedOutput(); err != nil {
			b.Fatalf("git gc: %v\n%s", err, out)
		}
	}
	b.Logf("seeded %d memories in %v", n, time.Since(start).Round(time.Millisecond))
}

// startBenchClient spawns the server and initializes it.
func startBenchClient(b *testing.B, bin, vaultDir string) *client.Client {
	c, _ := startBenchServer(b, bin, vaultDir)
	return c
}

// startBenchServer is startBenchClient that also returns the server's
// process id, for a benchmark to read the server's CPU time.
func startBenchServer(b *testing.B, bin, vaultDir string) (*client.Client, int) {
	b.Helper()
	var cmd *exec.Cmd
	c, err := client.NewStdioMCPClientWithOptions(bin, nil, []string{"serve", "--vault", vaultDir, "--log-file", os.DevNull},
		transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			// As the transport does by default.
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			return cmd, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	initClient(b, c, "", "bench", false)
	return c, cmd.Process.Pid
}

func benchCall(b *testing.B, c *client.Client, name string, args map[string]any) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %s", name, err, resultText(res))
	}
}

// reportQuantiles reports p50 and p99 of ds in milliseconds.
func reportQuantiles(b *testing.B, ds []time.Duration, prefix string) {
	if len(ds) == 0 {
		return
	}
	b.ReportMetric(quantileMs(ds, 0.5), prefix+"p50-ms")
	b.ReportMetric(quantileMs(ds, 0.99), prefix+"p99-ms")
}

func BenchmarkServeStdio(b *testing.B) {
	bin, vaultDir := serveBenchRepo(b)

	b.Run("cold-start", func(b *testing.B) {
		// spawn to tools/list answered, and spawn to the first recall
		// answered (which waits for the index).
		var list, first []time.Duration
		for b.Loop() {
			start := time.Now()
			c := startBenchClient(b, bin, vaultDir)
			if _, err := c.ListTools(context.Background(), mcp.ListToolsRequest{}); err != nil {
				b.Fatal(err)
			}
			list = append(list, time.Since(start))
			benchCall(b, c, "recall", map[string]any{"query": "deploy"})
			first = append(first, time.Since(start))
			c.Close()
		}
		reportQuantiles(b, list, "tools-list-")
		reportQuantiles(b, first, "first-recall-")
	})

	c := startBenchClient(b, bin, vaultDir)
	defer c.Close()
	benchCall(b, c, "memory_stats", map[string]any{}) // wait for the index

	b.Run("recall", func(b *testing.B) {
		queries := []string{"deploy script", "部署脚本", "how do we run the tests", "数据库迁移", "code review", "release"}
		var ds []time.Duration
		i := 0
		for b.Loop() {
			start := time.Now()
			benchCall(b, c, "recall", map[string]any{"query": queries[i%len(queries)]})
			ds = append(ds, time.Since(start))
			i++
		}
		reportQuantiles(b, ds, "")
	})

	b.Run("remember", func(b *testing.B) {
		var ds []time.Duration
		cpu0, cpuOK := childrenCPU(filepath.Base(bin))
		for b.Loop() {
			start := time.Now()
			benchCall(b, c, "remember", map[string]any{"title": "bench note " + time.Now().Format(time.RFC3339Nano), "content": "a note", "reason": "bench"})
			ds = append(ds, time.Since(start))
		}
		reportQuantiles(b, ds, "")
		// The server's CPU per write: what the commit costs, whatever the
		// load (10 ms resolution, over all writes).
		if cpu1, ok := childrenCPU(filepath.Base(bin)); ok && cpuOK && len(ds) > 0 {
			b.ReportMetric(float64(cpu1-cpu0)/float64(time.Millisecond)/float64(len(ds)), "server-cpu-ms/op")
		}
	})
}
