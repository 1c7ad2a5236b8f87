package rank

import (
	"slices"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	type in struct {
		score, cov float64
	}
	tests := []struct {
		name    string
		results []in
		want    []string // Match of each kept result, in order
		reasons []string // MatchReason of each kept result, checked by prefix
	}{
		{name: "empty"},
		{name: "clear winner", results: []in{{10, 0.8}, {3, 0.5}},
			want: []string{MatchStrong, MatchWeak}, reasons: []string{"", "scores 30% of the best"}},
		{name: "close race, partial coverage: nothing answers clearly", results: []in{{10, 0.5}, {9, 0.5}},
			want:    []string{MatchWeak, MatchWeak},
			reasons: []string{"covers 50% of the query and the next result scores 90%", "no result answers the query clearly"}},
		{name: "close race, full coverage: both answer", results: []in{{10, 0.8}, {9, 0.75}},
			want: []string{MatchStrong, MatchStrong}},
		{name: "a strong best needs coverage", results: []in{{10, 0.2}},
			want: []string{MatchWeak}, reasons: []string{"matches 1 of 4 query concepts"}},
		{name: "a rival covering more: nothing answers clearly", results: []in{{10, 0.5}, {3, 0.6}},
			want:    []string{MatchWeak, MatchWeak},
			reasons: []string{"covers 50% of the query and result 2 covers 60%", "no result answers the query clearly"}},
		{name: "a rival covering as much is no rival", results: []in{{10, 0.5}, {3, 0.5}},
			want: []string{MatchStrong, MatchWeak}},
		{name: "a rival beyond the fifth result does not count",
			results: []in{{10, 0.5}, {3, 0.4}, {3, 0.4}, {3, 0.4}, {3, 0.4}, {3, 0.9}},
			want:    []string{MatchStrong, MatchWeak, MatchWeak, MatchWeak, MatchWeak, MatchWeak}},
		{name: "the tail is cut by relevance and coverage", results: []in{{10, 1}, {5, 0.1}, {2, 0.9}, {4, 0.6}},
			want: []string{MatchStrong, MatchWeak}},
		{name: "without a strong result the first few are kept", results: []in{{10, 0.1}, {9, 0.1}, {8, 0.1}, {7, 0.1}},
			want: []string{MatchWeak, MatchWeak, MatchWeak}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []Result
			for i, r := range tt.results {
				rs = append(rs, Result{Memory: &Memory{ID: string(rune('a' + i))}, Score: r.score, Coverage: r.cov, Matched: 1, Concepts: 4})
			}
			got := DefaultCut().Classify(rs)
			var match []string
			for _, r := range got {
				match = append(match, r.Match)
			}
			if !slices.Equal(match, tt.want) {
				t.Fatalf("matches %v, want %v", match, tt.want)
			}
			for i, want := range tt.reasons {
				if !strings.HasPrefix(got[i].MatchReason, want) || (want == "" && got[i].MatchReason != "") {
					t.Errorf("result %d reason %q, want %q", i, got[i].MatchReason, want)
				}
			}
		})
	}
}

// TestSpreadNearDuplicatesShortLists: with nothing else to move up, the
// copies stay, the lower one marked, and the rule ends.
func TestSpreadNearDuplicatesShortLists(t *testing.T) {
	for n, texts := range []*TextMemo{nil, nil, {}, {}, {}} {
		if n == 0 {
			continue
		}
		var rs []Result
		for i := range n {
			m := &Memory{ID: string(rune('a' + i)), Title: "Logs are JSON lines", Body: "Every service logs JSON lines with trace_id."}
			rs = append(rs, Result{Memory: m, Score: 10, Coverage: 1, Matched: 2, Match: MatchStrong})
		}
		got := spreadNearDuplicates(rs, texts)
		if len(got) != n || got[0].Match != MatchStrong {
			t.Fatalf("n=%d: got %d results, first %s", n, len(got), got[0].Match)
		}
		for i, r := range got[1:] {
			if r.Match != MatchWeak || !strings.HasPrefix(r.MatchReason, "near-duplicate of") {
				t.Errorf("n=%d: copy %d is %s %q, want weak, a near-duplicate", n, i+1, r.Match, r.MatchReason)
			}
		}
	}
}
