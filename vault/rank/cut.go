package rank

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Finish labels the ranked results of a query text strong or weak,
// cuts the tail, keeps near-duplicates apart, lists the strong results
// before the weak ones (each group in rank order: a result that scores
// high on few of the query's concepts never comes above an answer) and
// cuts the list to limit.
func Finish(rs []Result, cut Cut, limit int, texts *TextMemo) []Result {
	rs = cut.Classify(rs)
	rs = spreadNearDuplicates(rs, texts)
	slices.SortStableFunc(rs, func(a, b Result) int {
		return cmp.Compare(strength(a), strength(b))
	})
	if len(rs) > limit {
		rs = rs[:limit]
	}
	return rs
}

// strength orders strong results before weak ones.
func strength(r Result) int {
	if r.Match == MatchStrong {
		return 0
	}
	return 1
}

// Match strengths of a result (Result.Match).
const (
	// MatchStrong marks a result that answers the query: it covers most
	// of the query's concepts and scores close to the best result.
	MatchStrong = "strong"
	// MatchWeak marks a result kept for what it shares with the query;
	// Result.MatchReason says what that is.
	MatchWeak = "weak"
)

// Cut rules decide which results are strong and where the list ends. The
// rules look at each result relative to the best one and at how much of
// the query it covers, never at a raw score: BM25 scores grow with the
// number and rarity of query terms, so no absolute threshold means the
// same thing for two queries. docs/ranking.md explains each constant.
type Cut struct {
	// The best result is strong when it covers at least MinCoverage of
	// the query's concepts (rarity-weighted) and either stands out (the
	// next result scores at most Standout of it) or covers at least
	// FullCoverage: an answer either says clearly more than the rest or
	// says nearly everything the question asks.
	MinCoverage  float64
	Standout     float64
	FullCoverage float64
	// Rivals is how many results after the best one may not cover more
	// of the query than it does for it to be strong: when one of them
	// does, the best result won on how often or where it names part of
	// the question, not on answering more of it, and neither answers
	// clearly.
	Rivals int
	// Below a strong best result, a result is strong too when it covers
	// at least MinCoverage and scores at least StrongRatio of the best.
	StrongRatio float64
	// KeepRatio and KeepCoverage bound the weak tail: a weak result is
	// kept while it scores at least KeepRatio of the best one and covers
	// at least KeepCoverage of the query.
	KeepRatio    float64
	KeepCoverage float64
	// MinWeak is how many weak results are kept whatever their score,
	// when no result is strong, so a query never comes back empty while
	// something matched it.
	MinWeak int
}

// DefaultCut is the cut every recall uses; the evaluation tests try
// others.
func DefaultCut() Cut {
	return Cut{
		MinCoverage:  0.3,
		Standout:     0.4,
		FullCoverage: 0.7,
		Rivals:       4,
		StrongRatio:  0.5,
		KeepRatio:    0.3,
		KeepCoverage: 0.15,
		MinWeak:      3,
	}
}

// Classify labels rs (in their final order) strong or weak, with a reason
// for the weak ones, and returns the results to show: the strong ones and
// the weak ones above the relevance tail.
func (c Cut) Classify(rs []Result) []Result {
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
	topStrong := best > 0 && top.Coverage >= c.MinCoverage &&
		(next <= c.Standout*best || top.Coverage >= c.FullCoverage) && rival < 0
	out := rs[:0]
	strong := 0
	for i := range rs {
		r := &rs[i]
		ratio := 0.0
		if best > 0 {
			ratio = r.Score / best
		}
		isStrong := topStrong && r.Coverage >= c.MinCoverage && (i == 0 || ratio >= c.StrongRatio)
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
			(ratio >= c.KeepRatio && r.Coverage >= c.KeepCoverage) ||
			(strong == 0 && len(out) < c.MinWeak)
		if keep {
			out = append(out, *r)
		}
	}
	return out
}

// rival returns the index of the first of the c.Rivals results after the
// best one that covers more of the query than the best, or -1.
func (c Cut) rival(rs []Result) int {
	for i := 1; i < len(rs) && i <= c.Rivals; i++ {
		if rs[i].Coverage > rs[0].Coverage {
			return i
		}
	}
	return -1
}

// weakReason says in a few words why a weak result is weak.
func weakReason(r *Result, i int, ratio float64, topStrong bool, runnerUp float64, rival int, rivalCov float64, c Cut) string {
	switch {
	case r.Coverage < c.MinCoverage && r.Concepts > 0:
		return fmt.Sprintf("matches %d of %d query concepts", r.Matched, r.Concepts)
	case r.Coverage < c.MinCoverage:
		return "matches little of the query"
	case !topStrong && i == 0 && rival > 0 && r.Coverage >= c.MinCoverage:
		return fmt.Sprintf("covers %.0f%% of the query and result %d covers %.0f%%", 100*r.Coverage, rival+1, 100*rivalCov)
	case !topStrong && i == 0:
		return fmt.Sprintf("covers %.0f%% of the query and the next result scores %.0f%% of it", 100*r.Coverage, 100*runnerUp)
	case !topStrong:
		return "no result answers the query clearly"
	}
	return fmt.Sprintf("scores %.0f%% of the best result", 100*ratio)
}
