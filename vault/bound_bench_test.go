package vault

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// distinctQuery returns a query of n distinct terms: made-up English
// words of three or four syllables, and every fourth a Chinese word of
// two characters, as a pasted log or document would give.
func distinctQuery(n int) string {
	syll := []string{"ka", "lo", "mi", "ser", "vo", "tan", "ri", "pe", "dux", "ne", "qu", "bar", "fi", "zon", "te", "gra", "pol", "sim", "ar", "ex"}
	han := []rune(benchHan)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i%4 == 3 {
			j := i / 4
			b.WriteString(string([]rune{han[j%len(han)], han[(j/len(han)+j)%len(han)]}))
			continue
		}
		// Four syllables in base 20 give 160,000 distinct words.
		for k, x := 0, i; k < 4; k, x = k+1, x/len(syll) {
			b.WriteString(syll[x%len(syll)])
		}
	}
	return b.String()
}

// BenchmarkRecallQueryLength measures recall against the number of
// distinct query terms, on a vault of 10,000 memories. ns/term is the
// time per query term: flat when the work grows linearly with the query.
func BenchmarkRecallQueryLength(b *testing.B) {
	v, err := Open(context.Background(), benchVault(b, 10_000), Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10, 100, 1_000, 10_000} {
		q := distinctQuery(n)
		b.Run(fmt.Sprintf("terms=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(q)))
			for b.Loop() {
				v.Recall(Query{Text: q})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/term")
		})
	}
}
