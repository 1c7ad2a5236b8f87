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
// text merge would leave in conflict.
func BenchmarkMergeDriverProcess(b *testing.B) {
	bin := buildMemvault(b)
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
	var wall []time.Duration
	for b.Loop() {
		if err := os.WriteFile(a, []byte(ours), 0o644); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		out, err := exec.Command(bin, "merge-driver", filepath.Join(dir, "base"), a, filepath.Join(dir, "theirs"), ".memory/project/money.md").CombinedOutput()
		wall = append(wall, time.Since(start))
		if err != nil {
			b.Fatalf("merge-driver: %v\n%s", err, out)
		}
	}
	got, err := os.ReadFile(a)
	if err != nil || !strings.Contains(string(got), "importance: 8") || !strings.Contains(string(got), "tags: [money, ledger]") || !strings.Contains(string(got), "Refunds too.") {
		b.Fatalf("not merged (%v):\n%s", err, got)
	}
	b.ReportMetric(quantileMS(wall, 0.5), "p50-ms")
	b.ReportMetric(quantileMS(wall, 0.95), "p95-ms")
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
