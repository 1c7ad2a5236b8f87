package vault

import (
	"fmt"
	"math"
)

// Match strengths of a result (Result.Match).
const (
	// MatchStrong marks a result that answers the query: it covers most
	// of the query's concepts and scores close to the best result.
	MatchStrong = "strong"
	// MatchWeak marks a result kept for what it shares with the query;
	// Result.MatchReason says what that is.
	MatchWeak = "weak"
)

// cutRules decide which results are strong and where the list ends. The
// rules look at each result relative to the best one and at how much of
// the query it covers, never at a raw score: BM25 scores grow with the
// number and rarity of query terms, so no absolute threshold means the
// same thing for two queries. docs/ranking.md explains each constant.
type cutRules struct {
	// strongCoverage is the weighted share of the query's concepts a
	// strong result must cover.
	strongCoverage float64
	// strongRatio is the share of the best result's score a strong
	// result must reach.
	strongRatio float64
	// keepRatio and keepCoverage bound the weak tail: a weak result is
	// kept while it scores at least keepRatio of the best one and covers
	// at least keepCoverage of the query.
	keepRatio    float64
	keepCoverage float64
	// minWeak is how many weak results are kept whatever their score,
	// when no result is strong, so a query never comes back empty while
	// something matched it.
	minWeak int
}

var defaultCut = cutRules{
	strongCoverage: 0.7,
	strongRatio:    0.5,
	keepRatio:      0.3,
	keepCoverage:   0.25,
	minWeak:        3,
}

// classify labels rs (sorted best first) strong or weak, with a reason
// for the weak ones, and returns the results to show: the strong ones
// and the weak ones above the relevance tail.
func (c cutRules) classify(rs []Result) []Result {
	if len(rs) == 0 {
		return rs
	}
	best := rs[0].Score
	for _, r := range rs {
		best = math.Max(best, r.Score)
	}
	out := rs[:0]
	strong := 0
	for i := range rs {
		r := &rs[i]
		ratio := 0.0
		if best > 0 {
			ratio = r.Score / best
		}
		switch {
		case r.Coverage >= c.strongCoverage && ratio >= c.strongRatio:
			r.Match = MatchStrong
			strong++
		default:
			r.Match = MatchWeak
			r.MatchReason = weakReason(r, ratio, c)
		}
		keep := r.Match == MatchStrong ||
			(ratio >= c.keepRatio && r.Coverage >= c.keepCoverage) ||
			(strong == 0 && len(out) < c.minWeak)
		if keep {
			out = append(out, *r)
		}
	}
	return out
}

// weakReason says in a few words why a weak result is weak.
func weakReason(r *Result, ratio float64, c cutRules) string {
	if r.Coverage < c.strongCoverage {
		if r.Concepts > 0 {
			return fmt.Sprintf("matches %d of %d query concepts", r.Matched, r.Concepts)
		}
		return "matches part of the query"
	}
	return fmt.Sprintf("scores %.0f%% of the best result", 100*ratio)
}
