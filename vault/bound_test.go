package vault

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/index"
)

// oneMegabyte is the query of the finding: a 1 MB paste of made-up words
// and Chinese, whose recall took 18 s before queries were bounded.
var oneMegabyte = func() string {
	q := distinctQuery(120_000)
	for len(q) < 1<<20 {
		q += " " + q
	}
	return q[:1<<20]
}()

// cjkSoup returns a run of Chinese characters about n bigrams long in
// which nearly every bigram differs: few bytes, many distinct terms.
func cjkSoup(n int) string {
	han := []rune(benchHan)
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]rune, n+1)
	for i := range out {
		out[i] = han[r.IntN(len(han))]
	}
	return string(out)
}

// TestRecallRefusesLargeQuery is the regression test for recall of a
// huge query running for minutes: past MaxQueryBytes or MaxQueryTerms a
// recall is refused with a *QueryTooLargeError naming the limit and the
// size, through the set (the CLI's and the MCP server's recall) and
// through RecallContext; a query at the limits is answered.
func TestRecallRefusesLargeQuery(t *testing.T) {
	t.Parallel()
	clock := newClock("2026-11-30T10:00:00Z")
	v := openTest(t, clock)
	mustCreate(t, v, NewMemory{Title: "Deploy with the ops script", Content: "Run ops/deploy.sh from the repo root."})
	set := NewSet(Member{Name: ProjectVault, Vault: v})

	soup := cjkSoup(MaxQueryTerms + 200)
	if n := index.DistinctTerms(soup); n <= MaxQueryTerms || len(soup) > MaxQueryBytes {
		t.Fatalf("test query: %d distinct terms in %d bytes, want over %d in at most %d", n, len(soup), MaxQueryTerms, MaxQueryBytes)
	}
	atLimit := strings.Repeat("deploy ops script ", MaxQueryBytes/18)
	atLimit += strings.Repeat("x", MaxQueryBytes-len(atLimit))
	tests := []struct {
		name  string
		query string
		unit  string // "" when the query is answered
		size  int
	}{
		{"1 MB", oneMegabyte, "bytes", 1 << 20},
		{"one byte over", atLimit + "x", "bytes", MaxQueryBytes + 1},
		{"too many distinct terms", soup, "distinct terms", index.DistinctTerms(soup)},
		{"at the byte limit", atLimit, "", 0},
		{"a question", "how do we deploy", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setRes, setErr := set.Recall(t.Context(), Query{Text: tt.query})
			vRes, vErr := v.RecallContext(t.Context(), Query{Text: tt.query})
			for door, err := range map[string]error{"Set.Recall": setErr, "Vault.RecallContext": vErr} {
				if tt.unit == "" {
					if err != nil {
						t.Errorf("%s: %v, want an answer", door, err)
					}
					continue
				}
				var big *QueryTooLargeError
				if !errors.As(err, &big) {
					t.Fatalf("%s: error %v, want a *QueryTooLargeError", door, err)
				}
				want := QueryTooLargeError{Unit: tt.unit, Size: tt.size, Limit: MaxQueryBytes}
				if tt.unit == "distinct terms" {
					want.Limit = MaxQueryTerms
				}
				if *big != want {
					t.Errorf("%s: %+v, want %+v", door, *big, want)
				}
				if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("%d %s, limit %d", want.Size, want.Unit, want.Limit)) {
					t.Errorf("%s: message %q does not give the size and the limit", door, msg)
				}
			}
			if tt.unit == "" && (len(setRes) == 0 || len(vRes) == 0) {
				t.Errorf("answered %d and %d results, want the deploy memory", len(setRes), len(vRes))
			}
		})
	}
}

// TestRecallStopsWhenCancelled checks that a recall whose context is done
// (the client gave up, the deadline passed, the server is shutting down)
// stops with the context's error: done before it starts, and cancelled
// once it has begun (by the clock it reads first).
func TestRecallStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var armed atomic.Bool
	now := func() time.Time {
		if armed.Load() {
			cancel() // the recall has started: it reads the time first
		}
		return t0
	}
	v, err := Open(t.Context(), t.TempDir(), Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		mustCreate(t, v, NewMemory{Title: fmt.Sprintf("Deploy note %d", i), Content: "Run ops/deploy.sh from the repo root."})
	}
	q := Query{Text: "deploy ops " + distinctQuery(20)}
	if rs, err := v.RecallContext(t.Context(), q); err != nil || len(rs) == 0 {
		t.Fatalf("uncancelled: %d results, %v; want results", len(rs), err)
	}

	done, stop := context.WithCancel(t.Context())
	stop()
	set := NewSet(Member{Name: ProjectVault, Vault: v})
	if _, err := set.Recall(done, q); !errors.Is(err, context.Canceled) {
		t.Errorf("Set.Recall, cancelled before: %v, want context.Canceled", err)
	}
	if _, err := v.RecallContext(done, q); !errors.Is(err, context.Canceled) {
		t.Errorf("RecallContext, cancelled before: %v, want context.Canceled", err)
	}

	armed.Store(true)
	rs, err := v.RecallContext(ctx, q)
	if !errors.Is(err, context.Canceled) || rs != nil {
		t.Errorf("RecallContext, cancelled once started: %d results, %v; want none and context.Canceled", len(rs), err)
	}
	// The read lock is released: a write goes through.
	armed.Store(false)
	mustCreate(t, v, NewMemory{Title: "After the cancelled recall", Content: "Writes still work."})
}
