package staleness

import (
	"fmt"
	"sort"

	"github.com/memvault/memvault/vault"
)

// AdjustStaleness is the rule a staleness demotion is noted under in a
// result's adjustments.
const AdjustStaleness = "staleness"

// Rerank multiplies the score of each stale or possibly stale result by
// Weight and orders the results again by score, strong matches still
// ahead of weak ones, so a stale memory falls below a fresh one of
// similar relevance. It never removes a result. A list without a query
// (no match strength) keeps its order: it is by update time, not score.
func Rerank(rs []vault.SetResult, states map[string]Staleness) {
	scored := false
	for i := range rs {
		r := &rs[i]
		if r.Match != "" {
			scored = true
		}
		st, ok := states[r.Memory.ID]
		if !ok || Weight(st.State) == 1 || r.Match == "" { // fresh or unknown: nothing to demote
			continue
		}
		w := Weight(st.State)
		r.Score *= w
		r.Adjustments = append(r.Adjustments, vault.Adjustment{Rule: AdjustStaleness, Factor: w,
			Note: fmt.Sprintf("%s: %s", st.State, st.Reason)})
	}
	if !scored {
		return
	}
	strength := func(r vault.SetResult) int {
		if r.Match == vault.MatchStrong {
			return 0
		}
		return 1
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if a, b := strength(rs[i]), strength(rs[j]); a != b {
			return a < b
		}
		return rs[i].Score > rs[j].Score
	})
}
