package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/gitstore"
)

// writeGraph writes an MCP memory.jsonl of n bilingual entities, each
// related to the next.
func writeGraph(tb testing.TB, path string, n int) {
	tb.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i := range n {
		_ = enc.Encode(map[string]any{"type": "entity", "name": fmt.Sprintf("service-%04d", i), "entityType": "service",
			"observations": []string{
				fmt.Sprintf("Service %d owns the orders of region %d and publishes to orders.%d.created", i, i%7, i%7),
				fmt.Sprintf("服务 %d 负责第 %d 区的订单，迁移文件只能追加", i, i%7),
				"Deployed with the shared Helm chart; alerts go to the on-call channel",
			}})
	}
	for i := range n - 1 {
		_ = enc.Encode(map[string]any{"type": "relation", "from": fmt.Sprintf("service-%04d", i), "to": fmt.Sprintf("service-%04d", i+1), "relationType": "calls"})
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkImport imports a 1,000-entity memory.jsonl into an empty vault
// of a fresh git repository through the CLI: read, guard, validate, write
// 1,000 files, one commit.
func BenchmarkImport(b *testing.B) {
	const n = 1000
	isolateGit(b)
	src := filepath.Join(b.TempDir(), "memory.jsonl")
	writeGraph(b, src, n)
	for _, dry := range []bool{false, true} {
		name := "commit"
		if dry {
			name = "dry-run"
		}
		b.Run(fmt.Sprintf("mcp-%d/%s", n, name), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				root := b.TempDir()
				s, err := gitstore.Init(context.Background(), root)
				if err != nil {
					b.Fatal(err)
				}
				s.Close()
				args := []string{"--vault", filepath.Join(root, ".memory"), "import", src}
				if dry {
					args = append(args, "--dry-run")
				}
				var out, errb strings.Builder
				m := NewMain(strings.NewReader(""), &out, &errb)
				b.StartTimer()
				if code := m.Run(context.Background(), args); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
				if !strings.Contains(out.String(), fmt.Sprintf("%d memories from", n)) {
					b.Fatalf("output: %s", out.String())
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "memories/s")
		})
	}
}
