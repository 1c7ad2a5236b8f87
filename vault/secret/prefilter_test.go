package secret

import (
	"slices"
	"testing"
)

// naiveFind is keywordTable.find without the byte tables: every keyword
// tried at every position.
func naiveFind(t *keywordTable, data []byte) ([]hit, uint64) {
	var hits []hit
	var found uint64
	for i := range data {
		for k, w := range t.words {
			if hasPrefixFold(data[i:], w) {
				hits = append(hits, hit{i, k})
				found |= 1 << k
			}
		}
	}
	return hits, found
}

func TestKeywordTableFind(t *testing.T) {
	t.Parallel()
	tbl := newKeywordTable([]string{"ab", "abc", "xox", "sk-", "token", "://"})
	tests := []string{
		"", "a", "ab", "AB", "abc", "xab", "xAb", "abab", "aBc", "ABCab",
		"as token: TOKEN xox sk- ://x", "ends with ab", "ends with x", "sk", "Sk-",
	}
	for _, r := range rules {
		tests = append(tests, r.positives...)
		tests = append(tests, r.negatives...)
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			for _, kt := range []*keywordTable{tbl, keywords} {
				gotHits, gotFound, _ := kt.find([]byte(in))
				wantHits, wantFound := naiveFind(kt, []byte(in))
				if !slices.Equal(gotHits, wantHits) || gotFound != wantFound {
					t.Errorf("find(%q) = %v, %b; want %v, %b", in, gotHits, gotFound, wantHits, wantFound)
				}
			}
		})
	}
}
