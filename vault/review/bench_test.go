package review

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/access"
)

// benchMemories makes n memories over the five layers with five-word
// titles from a 2,000-word vocabulary and three tags from 200, so titles
// share terms as a real vault's do.
func benchMemories(n int) []*vault.Memory {
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 2000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	layers := []vault.Layer{vault.ShortTerm, vault.Project, vault.Project, vault.Preference, vault.Meta}
	out := make([]*vault.Memory, n)
	for i := range out {
		var t []string
		for range 5 {
			t = append(t, words[rng.IntN(len(words))])
		}
		id := fmt.Sprintf("01M%023d", i)
		out[i] = mem(id, strings.Join(t, " "), layers[i%len(layers)],
			tags(fmt.Sprintf("t%d", rng.IntN(200)), fmt.Sprintf("t%d", rng.IntN(200)), fmt.Sprintf("t%d", rng.IntN(200))))
	}
	return out
}

// BenchmarkBuild is a review of 10,000 memories (staleness and access
// given, recall not: the rival check's recalls are the vault's cost).
func BenchmarkBuild(b *testing.B) {
	ms := benchMemories(10000)
	acc := &access.Summary{Since: now.AddDate(0, 0, -30), Last: map[string]time.Time{}, Count: map[string]int{}}
	for b.Loop() {
		r := Build(Input{Memories: ms, Access: acc, Now: now})
		if len(r.Unused) == 0 {
			b.Fatal("no unused memories")
		}
	}
}
