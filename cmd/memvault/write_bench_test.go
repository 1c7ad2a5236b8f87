package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// buildWriteBenchRepo makes a repository with 10k memories (in the layer
// folders memvault writes) and 10k other files, all committed.
func buildWriteBenchRepo(b *testing.B, root string) { buildMemoryRepo(b, root, benchFiles) }

// buildMemoryRepo is buildWriteBenchRepo with n memories and n code files.
func buildMemoryRepo(b *testing.B, root string, n int) {
	b.Helper()
	s, err := gitstore.Init(context.Background(), root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	files := make(map[string]string, 2*n)
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	layers := []vault.Layer{vault.ShortTerm, vault.Project, vault.Project, vault.Project, vault.Preference, vault.Meta}
	for i := range n {
		files[fmt.Sprintf("src/pkg%03d/file%04d.go", i/100, i)] = fmt.Sprintf("package pkg%03d\n\n// File %d.\nvar X%d = %d\n", i/100, i, i, i)
		l := layers[i%len(layers)]
		id, _ := vault.NewULID(when.Add(time.Duration(i)*time.Minute), nil)
		files[fmt.Sprintf(".memory/%s/note-%05d.md", l.Dir(), i)] = fmt.Sprintf(
			"---\nid: %s\ntitle: Note %d about service %d\nlayer: %s\nimportance: 5\ntags: [svc%d]\ncreated_at: %s\nupdated_at: %s\nstatus: active\nversion: 1\n---\n订单服务 %d uses retry policy %d; see ops/deploy.sh.\n",
			id, i, i%50, l, i%50, when.Format(time.RFC3339), when.Format(time.RFC3339), i, i%7)
	}
	files[".memory/.gitignore"] = vault.GitignoreContent
	commitFiles(b, s, files, when, "import")
}

// BenchmarkWriteCommit times one memory write through the vault, as the
// MCP server does it (vault open, index warm): validate, journal, atomic
// file write, commit with git plumbing, index update. It reports p50/p95 of
// wall time next to BenchmarkWriteGitCLI on an identical repository.
//
//	go test ./cmd/memvault -run '^$' -bench 'WriteCommit|WriteGitCLI' -benchtime 50x
func BenchmarkWriteCommit(b *testing.B) {
	isolateGit(b)
	root := b.TempDir()
	buildWriteBenchRepo(b, root)
	v, s := openVaultOnRepo(b, root, "bench")
	defer s.Close()
	var tm timer
	i := 0
	for b.Loop() {
		i++
		tm.time(func() {
			if _, err := v.Create(context.Background(), vault.NewMemory{Title: fmt.Sprintf("Bench write %d", i),
				Content: "Retry payment callbacks three times with backoff.", Tags: []string{"payments"}},
				vault.Author{Reason: "benchmark"}); err != nil {
				b.Fatal(err)
			}
		})
	}
	tm.report(b)
}

// BenchmarkWriteGitCLI does the same write with the git command line:
// write the file, then `git add FILE && git commit -m MSG -- FILE`.
func BenchmarkWriteGitCLI(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git CLI not installed")
	}
	isolateGit(b)
	root := b.TempDir()
	buildWriteBenchRepo(b, root)
	// Let git refresh its index stat data once, as a user's repository has.
	if out, err := exec.Command("git", "-C", root, "status", "--porcelain").CombinedOutput(); err != nil {
		b.Fatalf("git status: %v\n%s", err, out)
	}
	var tm timer
	i := 0
	for b.Loop() {
		i++
		rel := fmt.Sprintf(".memory/project/bench-write-%d.md", i)
		tm.time(func() {
			text := fmt.Sprintf("---\nid: bench-%d\ntitle: Bench write %d\n---\nRetry payment callbacks three times with backoff.\n", i, i)
			if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
			for _, args := range [][]string{{"add", rel}, {"commit", "-q", "-m", "memory(project): add", "--", rel}} {
				if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
		})
	}
	tm.report(b)
}
