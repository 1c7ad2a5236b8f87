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
	// The best result is strong when it covers at least minCoverage of
	// the query's concepts (rarity-weighted) and either stands out (the
	// next result scores at most standout of it) or covers at least
	// fullCoverage: an answer either says clearly more than the rest or
	// says nearly everything the question asks.
	minCoverage  float64
	standout     float64
	fullCoverage float64
	// rivals is how many results after the best one may not cover more
	// of the query than it does for it to be strong: when one of them
	// does, the best result won on how often or where it names part of
	// the question, not on answering more of it, and neither answers
	// clearly.
	rivals int
	// Below a strong best result, a result is strong too when it covers
	// at least minCoverage and scores at least strongRatio of the best.
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
	minCoverage:  0.3,
	standout:     0.4,
	fullCoverage: 0.7,
	rivals:       4,
	strongRatio:  0.5,
	keepRatio:    0.3,
	keepCoverage: 0.15,
	minWeak:      3,
}

// classify labels rs (in their final order) strong or weak, with a reason
// for the weak ones, and returns the results to show: the strong ones and
// the weak ones above the relevance tail.
func (c cutRules) classify(rs []Result) []Result {
	if len(rs) == 0 {
		return rs
	}
	best := 0.0
	for _, r := range rs {
		best = math.Max(best, r.Score)
	}
	next := 0.0
	if len(rs) > 1 {
		next = rs[1].Score
	}
	top := &rs[0]
	rival, rivalCov := c.rival(rs), 0.0
	if rival > 0 {
		rivalCov = rs[rival].Coverage // read now: the loop below reuses rs
	}
	topStrong := best > 0 && top.Coverage >= c.minCoverage &&
		(next <= c.standout*best || top.Coverage >= c.fullCoverage) && rival < 0
	out := rs[:0]
	strong := 0
	for i := range rs {
		r := &rs[i]
		ratio := 0.0
		if best > 0 {
			ratio = r.Score / best
		}
		isStrong := topStrong && r.Coverage >= c.minCoverage && (i == 0 || ratio >= c.strongRatio)
		if isStrong {
			r.Match = MatchStrong
			strong++
		} else {
			r.Match = MatchWeak
			if r.MatchReason == "" {
				r.MatchReason = weakReason(r, i, ratio, topStrong, next/math.Max(best, 1e-300), rival, rivalCov, c)
			}
		}
		keep := isStrong || r.linked ||
			(ratio >= c.keepRatio && r.Coverage >= c.keepCoverage) ||
			(strong == 0 && len(out) < c.minWeak)
		if keep {
			out = append(out, *r)
		}
	}
	return out
}

// rival returns the index of the first of the c.rivals results after the
// best one that covers more of the query than the best, or -1.
func (c cutRules) rival(rs []Result) int {
	for i := 1; i < len(rs) && i <= c.rivals; i++ {
		if rs[i].Coverage > rs[0].Coverage {
			return i
		}
	}
	return -1
}

// weakReason says in a few words why a weak result is weak.
func weakReason(r *Result, i int, ratio float64, topStrong bool, runnerUp float64, rival int, rivalCov float64, c cutRules) string {
	switch {
	case r.Coverage < c.minCoverage && r.Concepts > 0:
		return fmt.Sprintf("matches %d of %d query concepts", r.Matched, r.Concepts)
	case r.Coverage < c.minCoverage:
		return "matches little of the query"
	case !topStrong && i == 0 && rival > 0 && r.Coverage >= c.minCoverage:
		return fmt.Sprintf("covers %.0f%% of the query and result %d covers %.0f%%", 100*r.Coverage, rival+1, 100*rivalCov)
	case !topStrong && i == 0:
		return fmt.Sprintf("covers %.0f%% of the query and the next result scores %.0f%% of it", 100*r.Coverage, 100*runnerUp)
	case !topStrong:
		return "no result answers the query clearly"
	}
	return fmt.Sprintf("scores %.0f%% of the best result", 100*ratio)
}
