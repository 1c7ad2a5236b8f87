package merge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/parser"
)

// BenchmarkMarkerLine measures the loader's marker check over the sample
// vault's files, next to parsing them, which the loader does anyway.
func BenchmarkMarkerLine(b *testing.B) {
	paths, _ := filepath.Glob("../../sample-vault/*/*.md")
	var files [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, data)
	}
	b.Run("MarkerLine", func(b *testing.B) {
		for b.Loop() {
			for _, f := range files {
				if MarkerLine(f) != 0 {
					b.Fatal("marker in the sample vault")
				}
			}
		}
	})
	b.Run("Parse", func(b *testing.B) {
		var s parser.Scratch
		for b.Loop() {
			for _, f := range files {
				parser.Options{Scratch: &s}.Parse("m.md", f)
			}
		}
	})
}

// manyKeys is a memory whose theirs has n front-matter keys, its three
// and n-3 one-line keys memvault does not know: the shape of issue 27's
// slow merge (theirs adds the keys, ours edits the body).
func manyKeys(n int) (base, ours, theirs []byte) {
	const head = "---\nid: 01JDX3Q8W7AAAAAAAAAAAAAAAA\ntitle: Money is int64 cents\nimportance: 5\n"
	const body = "---\nMoney is int64 cents, never float64.\n"
	var extra strings.Builder
	for i := range n - 3 {
		fmt.Fprintf(&extra, "x%05d: v%d\n", i, i)
	}
	base = []byte(head + body)
	ours = []byte(head + body + "Rounding: banker's.\n")
	theirs = []byte(head + extra.String() + body)
	return base, ours, theirs
}

// BenchmarkFilesKeys merges a file whose theirs adds N unknown keys (issue
// 27 finding 2): the time per key must stay flat as N grows. Past MaxKeys
// Files refuses, so "capped" measures what the driver does and "uncapped"
// the merge itself past the limit.
func BenchmarkFilesKeys(b *testing.B) {
	for _, limit := range []struct {
		name string
		max  int
	}{{"capped", MaxKeys}, {"uncapped", 1 << 30}} {
		for _, n := range []int{500, 1000, 4000, 30000} {
			base, ours, theirs := manyKeys(n)
			b.Run(fmt.Sprintf("%s/keys=%d", limit.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(theirs)))
				cpu := cpuTime()
				for b.Loop() {
					files(context.Background(), base, ours, theirs, limit.max)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/key")
			})
		}
	}
}
