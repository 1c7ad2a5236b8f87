package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// The benchmarks build their repository once per run (setup is not timed)
// and time whole in-process command runs, the way a person or a hook runs
// them, minus process start-up.
//
//	go test ./cmd/memvault -run '^$' -bench 'History100|RecallAsOf' -benchtime 20x

// benchFiles is the size of the repositories the benchmarks build.
const benchFiles = 10_000

// timer records each timed run's wall time and the process CPU time it
// used (all cores, GC included).
type timer struct {
	wall, cpu []time.Duration
}

// time runs fn once and records it.
func (t *timer) time(fn func()) {
	w, c := time.Now(), processCPU()
	fn()
	t.wall = append(t.wall, time.Since(w))
	t.cpu = append(t.cpu, processCPU()-c)
}

// report reports p50 and p95 of the wall times and p50 of the CPU times in
// milliseconds.
func (t *timer) report(b *testing.B) {
	if len(t.wall) == 0 {
		return
	}
	ms := func(ds []time.Duration, q float64) float64 {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return float64(ds[int(q*float64(len(ds)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(t.wall, 0.5), "p50-ms")
	b.ReportMetric(ms(t.wall, 0.95), "p95-ms")
	b.ReportMetric(ms(t.cpu, 0.5), "cpu-p50-ms")
}

// benchRun runs memvault in-process with stdout discarded and fails the
// benchmark on a non-zero exit.
func benchRun(b *testing.B, now time.Time, args ...string) {
	var errb bytes.Buffer
	m := NewMain(strings.NewReader(""), io.Discard, &errb)
	m.Now = func() time.Time { return now }
	if code := m.Run(context.Background(), args); code != 0 {
		b.Fatalf("memvault %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
}

// commitFiles writes files (repository-relative path -> content) and
// commits them in one commit dated when.
func commitFiles(b testing.TB, s *gitstore.Store, files map[string]string, when time.Time, msg string) {
	b.Helper()
	paths := make([]string, 0, len(files))
	for rel, text := range files {
		p := filepath.Join(s.Root(), filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	s.Now = func() time.Time { return when }
	if _, err := s.Commit(context.Background(), gitstore.Change{Paths: paths, Message: msg,
		Author: &gitstore.Signature{Name: "Bench", Email: "bench@example.com"}}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHistory100 times `memvault history ID --json` for a memory with
// 100 revisions in a repository with 10k other files, where every revision
// is followed by a commit to another file (201 commits in all).
func BenchmarkHistory100(b *testing.B) {
	isolateGit(b)
	root := b.TempDir()
	s, err := gitstore.Init(context.Background(), root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	others := make(map[string]string, benchFiles)
	for i := range benchFiles {
		others[fmt.Sprintf("src/pkg%03d/file%04d.go", i/100, i)] = fmt.Sprintf("package pkg%03d\n\n// File %d.\nvar X%d = %d\n", i/100, i, i, i)
	}
	commitFiles(b, s, others, clock, "import the code base")

	dir := filepath.Join(root, ".memory")
	v, err := vault.Open(context.Background(), dir, vault.Options{Now: func() time.Time { return clock },
		Committer: gitrepo.Committer{Store: s}})
	if err != nil {
		b.Fatal(err)
	}
	s.Now = func() time.Time { return clock }
	res, err := v.Create(context.Background(), vault.NewMemory{Title: "Checkout uses the strategy pattern",
		Content: "One strategy per promotion type.\n", Tags: []string{"checkout"}}, vault.Author{Reason: "revision 1"})
	if err != nil {
		b.Fatal(err)
	}
	id := res.Memory.ID
	for i := 2; i <= 100; i++ {
		clock = clock.Add(time.Hour)
		s.Now = func() time.Time { return clock }
		content := fmt.Sprintf("One strategy per promotion type.\n\nRevision %d: %d promotion types now.\n", i, i)
		imp := 5 + i%5
		if _, err := v.Update(context.Background(), id, 0, vault.Patch{Content: &content, Importance: &imp},
			vault.Author{Reason: fmt.Sprintf("revision %d", i)}); err != nil {
			b.Fatal(err)
		}
		clock = clock.Add(time.Minute)
		commitFiles(b, s, map[string]string{fmt.Sprintf("src/pkg%03d/file%04d.go", i%100, i*37%benchFiles): fmt.Sprintf("package x\n// edit %d\n", i)}, clock, "edit code")
	}
	s.Close()

	// Check once that the command sees all 100 revisions.
	var out bytes.Buffer
	m := NewMain(strings.NewReader(""), &out, io.Discard)
	if code := m.Run(context.Background(), []string{"--vault", dir, "history", id, "--json"}); code != 0 {
		b.Fatalf("history: exit %d", code)
	}
	var h struct{ Revisions []json.RawMessage }
	if err := json.Unmarshal(out.Bytes(), &h); err != nil || len(h.Revisions) != 100 {
		b.Fatalf("history lists %d revisions (%v), want 100", len(h.Revisions), err)
	}

	benchLoosePacked(b, root, func(b *testing.B) {
		var t timer
		for b.Loop() {
			t.time(func() { benchRun(b, clock, "--vault", dir, "history", id, "--json") })
		}
		t.report(b)
	})
}

// benchLoosePacked runs fn on the repository as memvault left it (loose
// objects, the worst case) and, when the git CLI is installed, again after
// `git gc` packed the objects, as in a repository that has lived a while.
func benchLoosePacked(b *testing.B, root string, fn func(b *testing.B)) {
	b.Run("loose", fn)
	if _, err := exec.LookPath("git"); err != nil {
		b.Log("git CLI not installed: packed variant skipped")
		return
	}
	if out, err := exec.Command("git", "-C", root, "gc", "-q").CombinedOutput(); err != nil {
		b.Fatalf("git gc: %v\n%s", err, out)
	}
	b.Run("packed", fn)
}

// benchMemories generates n memory files from the sample vault's
// memories, numbered so titles and ids are unique.
func benchMemories(b *testing.B, n int, created time.Time) map[string]string {
	b.Helper()
	var seeds []*vault.Memory
	sample := filepath.Join("..", "..", "sample-vault")
	err := filepath.WalkDir(sample, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(sample, p)
		rel = filepath.ToSlash(rel)
		if !vault.IsMemoryPath(rel) || strings.HasPrefix(rel, "transient/") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if m, _ := vault.ParseMemory(rel, data, created); m != nil {
			seeds = append(seeds, m)
		}
		return nil
	})
	if err != nil || len(seeds) == 0 {
		b.Fatalf("sample vault: %d memories, %v", len(seeds), err)
	}
	q := func(s string) string { j, _ := json.Marshal(s); return string(j) }
	files := make(map[string]string, n)
	for i := range n {
		m := seeds[i%len(seeds)]
		tags := make([]string, len(m.Tags))
		for j, t := range m.Tags {
			tags[j] = q(t)
		}
		title := fmt.Sprintf("%s (%d)", m.Title, i)
		files[fmt.Sprintf(".memory/%s/bench-%05d.md", m.Layer.Dir(), i)] = fmt.Sprintf(
			"---\nid: BENCH%05d\ntitle: %s\nlayer: %s\nimportance: %d\ntags: [%s]\ncreated_at: %s\nupdated_at: %s\nstatus: active\nversion: 1\n---\n\n%s",
			i, q(title), m.Layer, m.Importance, strings.Join(tags, ", "), created.Format(time.RFC3339), created.Format(time.RFC3339), m.Body)
	}
	return files
}

// BenchmarkRecallAsOf times `memvault recall QUERY --as-of DATE --json` on
// a vault of 10k memories committed in git: resolve the date to a commit,
// read the 10k files from git objects, build the snapshot's index, recall.
func BenchmarkRecallAsOf(b *testing.B) {
	isolateGit(b)
	root := b.TempDir()
	s, err := gitstore.Init(context.Background(), root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	created := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	files := benchMemories(b, benchFiles, created)
	commitFiles(b, s, files, created, "import 10k memories")
	later := map[string]string{}
	for rel, text := range files {
		if len(later) == 10 {
			break
		}
		later[rel] = text + "\nRevised in September.\n"
	}
	commitFiles(b, s, later, created.AddDate(0, 3, 0), "revise 10 memories")
	s.Close()

	dir := filepath.Join(root, ".memory")
	now := created.AddDate(0, 5, 0)
	// The baseline: a plain recall, which loads the same 10k memories from
	// the work tree.
	b.Run("worktree", func(b *testing.B) {
		var t timer
		for b.Loop() {
			t.time(func() { benchRun(b, now, "--vault", dir, "recall", "结算模块怎么设计的", "--json") })
		}
		t.report(b)
	})
	benchLoosePacked(b, root, func(b *testing.B) {
		var t timer
		for b.Loop() {
			t.time(func() {
				benchRun(b, now, "--vault", dir, "recall", "结算模块怎么设计的", "--as-of", "2026-07-01", "--json")
			})
		}
		t.report(b)
	})
}
