package inject

import (
	"testing"

	"github.com/memvault/memvault/vault"
)

// TestHintWorthy checks each condition of the hint rule at its bound and
// just past it: a weak match is hinted only when all three hold.
func TestHintWorthy(t *testing.T) {
	for _, c := range []struct {
		name                     string
		coverage, norm, runnerUp float64
		want                     bool
	}{
		{"all three hold", 0.5, 0.8, 0.5, true},
		{"at every bound", hintCoverage, hintNorm, hintRunnerUp, true},
		{"alone in the results", 0.5, 0.8, 0, true},
		{"covers too little of the prompt", 0.29, 0.8, 0.5, false},
		{"its text answers too little of the words typed", 0.5, 0.59, 0.5, false},
		{"the next result scores nearly as much", 0.5, 0.8, 0.91, false},
		{"a tie with the next result", 1, 1, 1, false},
		{"nothing matched", 0, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := hintWorthy(c.coverage, c.norm, c.runnerUp); got != c.want {
				t.Errorf("hintWorthy(coverage %.2f, norm %.2f, runner-up %.2f) = %v, want %v", c.coverage, c.norm, c.runnerUp, got, c.want)
			}
		})
	}
}

// TestHintOfNeedsAWeakActiveBest checks what hintOf refuses before the
// rule's figures are read: no result, a strong best result (the strong
// matches are injected instead), one not in force, one that scores
// nothing.
func TestHintOfNeedsAWeakActiveBest(t *testing.T) {
	result := func(match, state string, score float64) vault.SetResult {
		m := &vault.Memory{ID: "m1", Title: "t", Layer: vault.Project}
		return vault.SetResult{Result: vault.Result{Memory: m, Match: match, State: state, Score: score, Coverage: 1}}
	}
	active := string(vault.StatusActive)
	for _, c := range []struct {
		name string
		rs   []vault.SetResult
	}{
		{"no result", nil},
		{"a strong best result", []vault.SetResult{result(vault.MatchStrong, active, 1)}},
		{"a superseded best result", []vault.SetResult{result(vault.MatchWeak, "superseded", 1)}},
		{"a best result that scores nothing", []vault.SetResult{result(vault.MatchWeak, active, 0)}},
		// Norm is 0 for a result recall did not score: the rule's own
		// figures refuse it.
		{"a weak best result with no text relevance", []vault.SetResult{result(vault.MatchWeak, active, 1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r, ok := hintOf(c.rs); ok {
				t.Errorf("hintOf gave a hint: %+v", r)
			}
		})
	}
}
