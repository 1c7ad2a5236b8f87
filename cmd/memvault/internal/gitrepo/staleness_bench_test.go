package gitrepo

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/staleness"
)

// staleBench is a generated repository for the staleness benchmark.
type staleBench struct {
	root    string
	items   []staleness.Item
	commits []string // commit ids, oldest first; HEAD starts at commits[base-1]
	base    int
}

// benchFile names file i of the generated tree: 20 x 25 folders of 100.
func benchFile(i int) string {
	return fmt.Sprintf("src/a%02d/b%02d/f%03d.go", i/2500, i/100%25, i%100)
}

func benchContent(i, version int) string {
	return fmt.Sprintf("package b\n\n// file %d, version %d\nfunc Get%d() int {\n\treturn %d\n}\n\nfunc Put%d() {}\n", i, version, i, version, i)
}

// buildStaleBench writes, with git fast-import, a repository whose first
// commit holds files files and whose next commits each change two files
// at random, commits+extra commits in all, one minute apart; HEAD is left
// at commit number commits, the extra ones wait to be moved to. Memories
// are written every commits/memories commits, each with 3 refs: files,
// one in ten a folder, one in twenty a #Symbol; each memory's file is
// added in the commit that writes it.
func buildStaleBench(b *testing.B, commits, extra, files, memories int) *staleBench {
	b.Helper()
	root := b.TempDir()
	git := func(stdin string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("", "init", "-q", "-b", "main")
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	version := make([]int, files)
	var sb strings.Builder
	w := bufio.NewWriter(&sb)
	data := func(s string) { fmt.Fprintf(w, "data %d\n%s\n", len(s), s) }
	memoryAt := map[int]int{} // commit -> memory written there
	for m := range memories {
		memoryAt[m*commits/memories] = m
	}
	for c := 0; c < commits+extra; c++ {
		at := t0.Add(time.Duration(c) * time.Minute)
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Ada <ada@example.com> %d +0000\n", c+1, at.Unix())
		data(fmt.Sprintf("change %d", c))
		if m, ok := memoryAt[c]; ok && c < commits {
			fmt.Fprintf(w, "M 100644 inline %s\n", benchMemory(m))
			data(fmt.Sprintf("---\nid: m%d\ntitle: memory %d\nupdated_at: %s\n---\nbody\n", m, m, at.Format(time.RFC3339)))
		}
		if c == 0 {
			for i := range files {
				fmt.Fprintf(w, "M 100644 inline %s\n", benchFile(i))
				data(benchContent(i, 0))
			}
			continue
		}
		for range 2 {
			i := rng.IntN(files)
			version[i]++
			fmt.Fprintf(w, "M 100644 inline %s\n", benchFile(i))
			data(benchContent(i, version[i]))
		}
	}
	w.Flush()
	marks := filepath.Join(b.TempDir(), "marks")
	git(sb.String(), "fast-import", "--quiet", "--export-marks="+marks)
	mb, err := os.ReadFile(marks)
	if err != nil {
		b.Fatal(err)
	}
	sb2 := &staleBench{root: root, base: commits, commits: make([]string, commits+extra)}
	for line := range strings.SplitSeq(strings.TrimSpace(string(mb)), "\n") {
		var n int
		var h string
		if _, err := fmt.Sscanf(line, ":%d %s", &n, &h); err != nil {
			b.Fatal(err)
		}
		sb2.commits[n-1] = h
	}
	sb2.moveHead(b, commits-1)
	for m := range memories {
		since := t0.Add(time.Duration(m*commits/memories) * time.Minute)
		var refs []string
		for k := range 3 {
			i := rng.IntN(files)
			switch {
			case (m*3+k)%10 == 0:
				refs = append(refs, filepath.ToSlash(filepath.Dir(benchFile(i)))+"/")
			case (m*3+k)%20 == 1:
				refs = append(refs, fmt.Sprintf("%s#Get%d", benchFile(i), i))
			default:
				refs = append(refs, benchFile(i))
			}
		}
		sb2.items = append(sb2.items, staleness.Item{ID: fmt.Sprint(m), Since: since, Refs: refs, Path: benchMemory(m)})
	}
	return sb2
}

func benchMemory(m int) string { return fmt.Sprintf(".memory/project/m%05d.md", m) }

// byTime returns items without their files: freshness by time alone,
// as before the memories' own commits were read (settle).
func byTime(items []staleness.Item) []staleness.Item {
	out := slices.Clone(items)
	for i := range out {
		out[i].Path = ""
	}
	return out
}

// moveHead points main at commits[i], as a fetch or a commit would.
func (s *staleBench) moveHead(b *testing.B, i int) {
	b.Helper()
	ref := filepath.Join(s.root, ".git", "refs", "heads", "main")
	if err := os.WriteFile(ref, []byte(s.commits[i]+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStaleness measures the staleness of 10,000 memories with 3
// refs each over a repository of 20,000 commits and 50,000 files: the
// first computation (a new tracker and a new store, so no cache is warm),
// through git and in Go, and the update after HEAD moves one commit.
func BenchmarkStaleness(b *testing.B) {
	commits, files, memories := 20000, 50000, 10000
	if testing.Short() {
		commits, files, memories = 2000, 5000, 1000
	}
	const extra = 200
	bench := buildStaleBench(b, commits, extra, files, memories)
	open := func(b *testing.B) (*gitstore.Store, *staleness.Tracker) {
		s, err := gitstore.Open(b.Context(), bench.root)
		if err != nil {
			b.Fatal(err)
		}
		return s, staleness.NewTracker(Code{store: s})
	}
	// first reads the long history through `git log` (the default when
	// git is installed), first-go in Go (gitstore.Store.NoGitCLIReads);
	// first-by-time leaves out the walk for the memories' own commits.
	for _, name := range []string{"first", "first-go", "first-by-time"} {
		b.Run(name, func(b *testing.B) {
			bench.moveHead(b, commits-1)
			items := bench.items
			if name == "first-by-time" {
				items = byTime(items)
			}
			for b.Loop() {
				s, tr := open(b)
				s.NoGitCLIReads = name == "first-go"
				if err := tr.Update(b.Context(), items); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
	b.Run("incremental", func(b *testing.B) {
		bench.moveHead(b, commits-1)
		s, tr := open(b)
		defer s.Close()
		if err := tr.Update(b.Context(), bench.items); err != nil {
			b.Fatal(err)
		}
		next := commits
		var took []time.Duration
		for b.Loop() {
			if next == len(bench.commits) {
				b.StopTimer()
				bench.moveHead(b, commits-1) // history went back: not an ancestor, start over
				if err := tr.Update(b.Context(), bench.items); err != nil {
					b.Fatal(err)
				}
				next = commits
				b.StartTimer()
			}
			bench.moveHead(b, next)
			next++
			start := time.Now()
			if err := tr.Update(b.Context(), bench.items); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	})
}

// BenchmarkStalenessPerRecall measures what staleness adds to one recall
// in a server whose tracker is current: checking that it is, and reading
// the states of 8 results (3 refs each), which looks at the work tree for
// uncommitted changes. The repository is the small one of
// BenchmarkStaleness, checked out. cache=false reads the work tree at
// every answer (a one-shot Checker, the CLI); cache=true keeps it between
// answers as a server does (LiveChecker: a watcher, and a Sync per
// answer).
func BenchmarkStalenessPerRecall(b *testing.B) {
	bench := buildStaleBench(b, 2000, 1, 5000, 1000)
	cmd := exec.Command("git", "reset", "-q", "--hard")
	cmd.Dir = bench.root
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git reset: %v\n%s", err, out)
	}
	s, err := gitstore.Open(b.Context(), bench.root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, cached := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", cached), func(b *testing.B) {
			code := Code{store: s}
			if cached {
				w, err := newWorkCache(s)
				if err != nil {
					b.Fatal(err)
				}
				defer w.close()
				code.work = w
			}
			tr := staleness.NewTracker(code)
			if err := tr.Update(b.Context(), bench.items); err != nil {
				b.Fatal(err)
			}
			var ds []time.Duration
			i := 0
			for b.Loop() {
				shown := bench.items[i%len(bench.items) : i%len(bench.items)+8]
				// Each answer shows other memories, and the same ones
				// again after 10 answers, as recalls of a session do.
				i = (i + 8) % 80
				start := time.Now()
				head, err := code.Head(b.Context())
				if err != nil {
					b.Fatal(err)
				}
				if !tr.Current(head, shown) {
					b.Fatal("tracker not current")
				}
				ids := make([]string, len(shown))
				for k, it := range shown {
					ids[k] = it.ID
				}
				st, err := tr.States(b.Context(), ids)
				if err != nil || len(st) != len(shown) {
					b.Fatalf("States = %d states, %v", len(st), err)
				}
				ds = append(ds, time.Since(start))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
		})
	}
}
