package rank

import (
	"slices"
	"testing"

	"github.com/memvault/memvault/vault/memory"
)

// TestRivalPairsOf: given every pair as candidates, RivalPairsOf finds what
// RivalPairs finds; given a subset, only the rivals among it.
func TestRivalPairsOf(t *testing.T) {
	t.Parallel()
	ms := []*Memory{
		{ID: "a", Title: "API errors always HTTP 200 with an error code", Layer: memory.Project, Tags: []string{"api", "errors"}},
		{ID: "b", Title: "API errors use real HTTP status codes", Layer: memory.Project, Tags: []string{"api", "errors"}},
		{ID: "c", Title: "Deploys go through ops/deploy.sh", Layer: memory.Project, Tags: []string{"deploy"}},
		{ID: "d", Title: "API 错误：使用真实 HTTP 状态码", Layer: memory.Project, Tags: []string{"api", "errors", "http"}},
		{ID: "e", Title: "API errors use real HTTP status codes", Layer: memory.ShortTerm, Tags: []string{"api", "errors"}},
	}
	var all [][2]int
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			all = append(all, [2]int{i, j})
		}
	}
	want := RivalPairs(ms, func(i, j int) bool { return true })
	if len(want) == 0 {
		t.Fatal("the fixture has no rivals")
	}
	if got := RivalPairsOf(ms, all); !slices.Equal(got, want) {
		t.Errorf("RivalPairsOf(all pairs) = %v, RivalPairs = %v", got, want)
	}
	if got := RivalPairsOf(ms, [][2]int{{0, 2}, want[0]}); !slices.Equal(got, want[:1]) {
		t.Errorf("RivalPairsOf(subset) = %v, want %v", got, want[:1])
	}
}
