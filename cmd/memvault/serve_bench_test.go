package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/gitstore"
)

// The serve benchmarks drive the real binary through mcp-go's stdio client
// on a committed vault of benchFiles memories:
//
//	go test ./cmd/memvault -run '^$' -bench ServeStdio -benchtime 20x

// serveBenchRepo builds the repository and the binary once. The memories
// are committed, so a remember pays what it would in a real repository (a
// 10k-entry git index to update).
func serveBenchRepo(b *testing.B) (bin, vaultDir string) {
	b.Helper()
	bin = buildMemvault(b)
	isolateGit(b)
	root := newRepo(b)
	s, err := gitstore.Open(context.Background(), root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	commitFiles(b, s, benchMemories(b, benchFiles, gitTestNow.Add(-24*time.Hour)), gitTestNow.Add(-time.Hour), "seed the vault")
	return bin, filepath.Join(root, ".memory")
}

// startBenchClient spawns the server and initializes it.
func startBenchClient(b *testing.B, bin, vaultDir string) *client.Client {
	b.Helper()
	c, err := client.NewStdioMCPClient(bin, nil, "serve", "--vault", vaultDir, "--log-file", os.DevNull)
	if err != nil {
		b.Fatal(err)
	}
	initClient(b, c, "", "bench", false)
	return c
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
	ds = slices.Clone(ds)
	slices.Sort(ds)
	q := func(f float64) float64 { return float64(ds[int(f*float64(len(ds)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.5), prefix+"p50-ms")
	b.ReportMetric(q(0.99), prefix+"p99-ms")
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
		for b.Loop() {
			start := time.Now()
			benchCall(b, c, "remember", map[string]any{"title": "bench note " + time.Now().Format(time.RFC3339Nano), "content": "a note", "reason": "bench"})
			ds = append(ds, time.Since(start))
		}
		reportQuantiles(b, ds, "")
	})
}
