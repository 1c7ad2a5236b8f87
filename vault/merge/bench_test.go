package merge

import (
	"os"
	"path/filepath"
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
