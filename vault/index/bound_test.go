package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// longQuery returns a query of n pieces: made-up words no dictionary
// knows, every pair of them followed by a dictionary phrase in Chinese or
// English, so that the plan has many typed terms and many dictionary
// spans over them, as a pasted document has.
func longQuery(n int) string {
	syll := []string{"ka", "lo", "mi", "ser", "vo", "tan", "ri", "pe", "dux", "ne", "qu", "bar", "fi", "zon", "te", "gra", "pol", "sim", "ar", "ex"}
	phrases := []string{"数据库部署脚本", "dead letter queue", "超时时间", "test runner", "订单状态", "deploy the database"}
	var b strings.Builder
	for i := range n {
		for k, x := 0, i; k < 4; k, x = k+1, x/len(syll) {
			b.WriteString(syll[x%len(syll)])
		}
		b.WriteByte(' ')
		if i%2 == 1 {
			b.WriteString(phrases[i/2%len(phrases)])
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestPlanWorkIsLinear is the regression test for recall time growing
// with the square of the distinct query terms: it counts the steps of a
// query plan (queryPlan.work), not its time, for a query eight times
// longer than another. Comparing every pair of terms made it 64 times the
// work; linear planning makes it about 8.
func TestPlanWorkIsLinear(t *testing.T) {
	t.Parallel()
	ix := New()
	filler(ix, 1, 20)
	work := func(n int) int {
		qp := ix.plan(longQuery(n))
		if len(qp.terms) == 0 || qp.work == 0 {
			t.Fatalf("plan of %d pieces: %d terms, %d steps", n, len(qp.terms), qp.work)
		}
		return qp.work
	}
	small, large := work(500), work(4000)
	if ratio := float64(large) / float64(small); ratio > 10 {
		t.Errorf("8x longer query took %.1fx the plan steps (%d -> %d), want about 8x (linear)", ratio, small, large)
	}
}

// TestSearchContextStops checks that a search stops with its context's
// error: when the context is done before it starts, and when it is
// cancelled while candidates are weighed, within searchCheckEvery of them.
func TestSearchContextStops(t *testing.T) {
	t.Parallel()
	ix := New()
	const n = 3 * searchCheckEvery
	for i := range n {
		ix.Put(DocID(i+1), Doc{Title: fmt.Sprintf("note %d", i), Body: "alpha beta gamma"})
	}

	done, cancel := context.WithCancel(t.Context())
	cancel()
	if hits, err := ix.SearchContext(done, Query{Text: "alpha"}); !errors.Is(err, context.Canceled) || hits != nil {
		t.Errorf("cancelled before: %d hits, error %v; want none and context.Canceled", len(hits), err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := 0
	weight := func(_ DocID, rel float64) float64 {
		calls++
		cancel() // the client gives up while the first candidate is weighed
		return rel
	}
	hits, err := ix.SearchContext(ctx, Query{Text: "alpha", Limit: n, Weight: weight})
	if !errors.Is(err, context.Canceled) || hits != nil {
		t.Errorf("cancelled while weighing: %d hits, error %v; want none and context.Canceled", len(hits), err)
	}
	if calls > searchCheckEvery {
		t.Errorf("weighed %d candidates after the cancel, want at most %d", calls, searchCheckEvery)
	}

	// An uncancelled search finds them all.
	if hits, err := ix.SearchContext(t.Context(), Query{Text: "alpha", Limit: n}); err != nil || len(hits) != n {
		t.Errorf("uncancelled: %d hits, error %v; want %d", len(hits), err, n)
	}
}

// TestPlanStopsOnCancel checks that planning a long query stops with the
// context's error.
func TestPlanStopsOnCancel(t *testing.T) {
	t.Parallel()
	ix := New()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if qp, err := ix.planContext(ctx, longQuery(2000)); !errors.Is(err, context.Canceled) || qp != nil {
		t.Errorf("plan with a cancelled context: %v, %v; want nil and context.Canceled", qp, err)
	}
}
