package index

import "testing"

// BenchmarkNew measures an empty index: what every reload, as-of snapshot
// and cross-vault ranking pool pays before indexing anything.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if New() == nil {
			b.Fatal("nil index")
		}
	}
}
