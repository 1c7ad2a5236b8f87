package index

// RankMetrics scores one ranked list of keys against the gold keys of a
// query. hit1 and hit5 report whether any gold key is among the first one
// or five results; rr10 is the reciprocal rank of the first gold key within
// the first ten results, or 0.
func RankMetrics(ranked, gold []string) (hit1, hit5 bool, rr10 float64) {
	for i, k := range ranked {
		if i >= 10 {
			break
		}
		for _, g := range gold {
			if k == g {
				return i == 0, i < 5, 1 / float64(i+1)
			}
		}
	}
	return false, false, 0
}

// Tally accumulates RankMetrics over a set of queries.
type Tally struct {
	N    int     // queries added
	Hit1 int     // queries with a gold key at rank 1
	Hit5 int     // queries with a gold key in the top 5
	RR   float64 // sum of reciprocal ranks within the top 10
}

// Add scores one query and adds it to the tally.
func (t *Tally) Add(ranked, gold []string) {
	h1, h5, rr := RankMetrics(ranked, gold)
	t.N++
	if h1 {
		t.Hit1++
	}
	if h5 {
		t.Hit5++
	}
	t.RR += rr
}

// Recall1 is the share of queries with a gold key at rank 1.
func (t Tally) Recall1() float64 { return ratio(float64(t.Hit1), t.N) }

// Recall5 is the share of queries with a gold key in the top 5.
func (t Tally) Recall5() float64 { return ratio(float64(t.Hit5), t.N) }

// MRR10 is the mean reciprocal rank of the first gold key within the top 10.
func (t Tally) MRR10() float64 { return ratio(t.RR, t.N) }

func ratio(x float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return x / float64(n)
}
