package evalcorpus

import (
	"slices"
	"testing"
)

// TestSplitHalves checks that each kind and language is split in turn,
// the first of each group going to the first half.
func TestSplitHalves(t *testing.T) {
	qs := []Query{
		{Q: "1", Kind: "keyword", Lang: "en"}, {Q: "2", Kind: "keyword", Lang: "zh"},
		{Q: "3", Kind: "keyword", Lang: "en"}, {Q: "4", Kind: "none", Lang: "en"},
		{Q: "5", Kind: "keyword", Lang: "en"}, {Q: "6", Kind: "none", Lang: "en"},
		{Q: "7", Kind: "keyword", Lang: "zh"},
	}
	a, b := SplitHalves(qs)
	q := func(qs []Query) []string {
		var out []string
		for _, x := range qs {
			out = append(out, x.Q)
		}
		return out
	}
	if got, want := q(a), []string{"1", "2", "4", "5"}; !slices.Equal(got, want) {
		t.Errorf("half A = %v, want %v", got, want)
	}
	if got, want := q(b), []string{"3", "6", "7"}; !slices.Equal(got, want) {
		t.Errorf("half B = %v, want %v", got, want)
	}
}
