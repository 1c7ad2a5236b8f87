package histindex_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/cputime"
	"github.com/memvault/memvault/cmd/memvault/internal/histindex"
	"github.com/memvault/memvault/gitstore"
)

// benchRepo writes, with git fast-import, a repository of n commits each
// adding one memory file in one of 100 folders of .memory/project (the
// web view's bench vault), and returns it with its commits, oldest first.
func benchRepo(b *testing.B, n int) (string, []string) {
	b.Helper()
	root := b.TempDir()
	run := func(stdin string, args ...string) string {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Stdin = strings.NewReader(stdin)
		c.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, err := c.Output()
		if err != nil {
			b.Skipf("git %v: %v", args, err)
		}
		return string(out)
	}
	run("", "init", "-q", "-b", "main")
	var s strings.Builder
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for i := range n {
		id := fmt.Sprintf("01J%023d", i)
		msg := fmt.Sprintf("memory: add project: m%d\n\nbecause\n\nMemory-Id: %s\nMemory-Client: c%d\n", i, id, i%3)
		body := fmt.Sprintf("---\nid: %s\ntitle: m%d\n---\nbody %d\n", id, i, i)
		fmt.Fprintf(&s, "commit refs/heads/main\ncommitter Dev <dev@example.com> %d +0000\ndata %d\n%s", start+int64(i)*1200, len(msg), msg)
		fmt.Fprintf(&s, "M 100644 inline .memory/project/f%02d/m%05d.md\ndata %d\n%s\n", i%100, i, len(body), body)
	}
	run(s.String(), "fast-import", "--quiet")
	return root, strings.Fields(run("", "rev-list", "--reverse", "main"))
}

// BenchmarkIndex measures the history index on a 10k-commit vault: the
// first build (one walk), loading the saved file, and bringing it
// forward by one commit, with the CPU time of each; it reports the heap
// the index holds and the file's size.
func BenchmarkIndex(b *testing.B) {
	const n = 10000
	root, commits := benchRepo(b, n)
	ctx := b.Context()
	s, err := gitstore.Open(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	head := commits[n-1]
	file := filepath.Join(b.TempDir(), "history.idx")

	b.Run("build", func(b *testing.B) {
		c0 := cputime.Process()
		for b.Loop() {
			x := histindex.New(".memory", "Memory-Id")
			if _, err := x.Update(ctx, s, head); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cputime.Process()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	x := histindex.New(".memory", "Memory-Id")
	if _, err := x.Update(ctx, s, head); err != nil {
		b.Fatal(err)
	}
	if err := x.Snapshot().Save(file); err != nil {
		b.Fatal(err)
	}
	b.Run("load", func(b *testing.B) {
		// The heap a loaded index holds: the same structure as a built
		// one, without the store's caches a build fills.
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		y := histindex.New(".memory", "Memory-Id")
		if err := y.Load(file); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held := after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
		runtime.KeepAlive(y)
		c0 := cputime.Process()
		for b.Loop() {
			if err := histindex.New(".memory", "Memory-Id").Load(file); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64((cputime.Process()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(held)/(1<<20), "index-heap-MB")
		fi, err := os.Stat(file)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
	})
	b.Run("one-more-commit", func(b *testing.B) {
		// From the index at commit k-1 to commit k, k near the tip.
		k := n - 200
		y := histindex.New(".memory", "Memory-Id")
		if _, err := y.Update(ctx, s, commits[k-1]); err != nil { // not measured
			b.Fatal(err)
		}
		c0 := cputime.Process()
		defer func() { b.ReportMetric(float64((cputime.Process()-c0).Microseconds())/1000/float64(b.N), "cpu-ms/op") }()
		for b.Loop() {
			if k == n {
				b.Fatal("more iterations than commits")
			}
			if _, err := y.Update(ctx, s, commits[k]); err != nil {
				b.Fatal(err)
			}
			k++
		}
	})
}
