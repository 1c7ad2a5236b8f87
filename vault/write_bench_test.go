package vault

import (
	"fmt"
	"testing"
)

// BenchmarkCreate measures one Create into a vault that already holds a
// few memories: validation, the journal, the atomic file write with its
// fsyncs, the (recorded) commit and the index update. Disk sync dominates,
// so the figure depends on the file system far more than on the CPU.
func BenchmarkCreate(b *testing.B) {
	tests := []struct {
		name   string
		commit bool // with a committer: journal and commit as in production
	}{
		{"committed", true},
		{"files only", false},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			opts := Options{}
			if tt.commit {
				opts.Committer = &recordingCommitter{}
			}
			v, err := Open(b.Context(), b.TempDir(), opts)
			if err != nil {
				b.Fatal(err)
			}
			for i := range 10 {
				if _, err := v.Create(b.Context(), NewMemory{Title: fmt.Sprintf("seed %d", i), Content: "seed"}, Author{}); err != nil {
					b.Fatal(err)
				}
			}
			i := 0
			for b.Loop() {
				i++
				n := NewMemory{Title: fmt.Sprintf("Benchmark memory %d", i), Content: "结账模块用策略模式 checkout uses the strategy pattern."}
				if _, err := v.Create(b.Context(), n, Author{Reason: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
