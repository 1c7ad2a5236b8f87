package evalrun

import (
	"testing"
)

func TestScore(t *testing.T) {
	tests := []struct {
		name  string
		ranks []int  // 0: the gold memory was not returned
		weak  []bool // per query: the gold result was weak
		none  []bool // unanswerable queries: abstained?
		want  map[string]any
	}{
		{"first and strong", []int{1}, []bool{false}, nil,
			map[string]any{"n": 1, "recall@1": 1.0, "recall@5": 1.0, "mrr@10": 1.0, "strong_recall@1": 1.0, "strong_recall@5": 1.0}},
		{"second, weak", []int{2}, []bool{true}, nil,
			map[string]any{"n": 1, "recall@1": 0.0, "recall@5": 1.0, "mrr@10": 0.5, "strong_recall@1": 0.0, "strong_recall@5": 0.0}},
		{"outside k, inside 10", []int{7, 1}, []bool{false, false}, nil,
			map[string]any{"n": 2, "recall@1": 0.5, "recall@5": 0.5, "mrr@10": 0.571, "strong_recall@1": 0.5, "strong_recall@5": 0.5}},
		{"missing", []int{0}, []bool{false}, nil,
			map[string]any{"n": 1, "recall@1": 0.0, "recall@5": 0.0, "mrr@10": 0.0, "strong_recall@1": 0.0, "strong_recall@5": 0.0}},
		{"only unanswerable", nil, nil, []bool{true, false, true},
			map[string]any{"n": 3, "abstain": 0.667}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Score
			for i, r := range tt.ranks {
				s.add(r, !tt.weak[i], 5)
			}
			for _, a := range tt.none {
				s.addNone(a)
			}
			got := s.JSON(5)
			if len(got) != len(tt.want) {
				t.Fatalf("JSON = %v, want %v", got, tt.want)
			}
			for key, w := range tt.want {
				g := got[key]
				if gi, ok := g.(int); ok {
					g = gi
				}
				if gf, ok := g.(float64); ok {
					if wf, _ := w.(float64); gf != wf {
						t.Errorf("%s = %v, want %v", key, g, w)
					}
					continue
				}
				if g != w {
					t.Errorf("%s = %v (%T), want %v", key, g, g, w)
				}
			}
		})
	}
}
