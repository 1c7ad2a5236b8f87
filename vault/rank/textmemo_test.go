package rank

import (
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/index"
)

// TestTextMemoFollowsTheText checks that a remembered token set and
// snippet are the text's: the same memory with another body is compared
// and cut by its new text, and an unchanged one gets what it had.
func TestTextMemoFollowsTheText(t *testing.T) {
	t.Parallel()
	texts := &TextMemo{}
	a := &Memory{ID: "a", Title: "Logs are JSON lines", Body: "Every service logs JSON lines with trace_id."}
	b := &Memory{ID: "b", Title: a.Title, Body: a.Body}
	results := func() []Result {
		return []Result{
			{Memory: a, Score: 10, Coverage: 1, Matched: 2, Match: MatchStrong},
			{Memory: b, Score: 10, Coverage: 1, Matched: 2, Match: MatchStrong},
		}
	}
	for _, step := range []struct {
		name, body string
		duplicate  bool
	}{
		{"copies", a.Body, true},
		{"b says something else", "Traces go to Tempo; sampling is ten percent in production.", false},
		{"b a copy again", a.Body, true},
	} {
		b.Body = step.body
		got := spreadNearDuplicates(results(), texts)
		if dup := strings.HasPrefix(got[1].MatchReason, "near-duplicate of"); dup != step.duplicate {
			t.Errorf("%s: second result %q %q, near-duplicate %v, want %v", step.name, got[1].Memory.ID, got[1].MatchReason, dup, step.duplicate)
		}
		if set := texts.set(b); set["trace_id"] != strings.Contains(step.body, "trace_id") {
			t.Errorf("%s: b's remembered set %v does not follow its body %q", step.name, set, step.body)
		}
		terms := []string{"logs", "traces"}
		if got, want := texts.snippet(b, terms, 20), index.Snippet(b.PlainText(), terms, 20); got != want {
			t.Errorf("%s: b's remembered snippet %q, want %q", step.name, got, want)
		}
	}
}
