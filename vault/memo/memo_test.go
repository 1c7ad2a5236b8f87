package memo

import (
	"strconv"
	"sync"
	"testing"
)

// TestMemo checks which keys are computed again: a key asked for lately
// is not, a key pushed out by two generations of others is, and a key
// found in the old generation survives the next turn.
func TestMemo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		memo  *Memo[string, string]
		asks  []string
		calls int // how many times f ran
	}{
		{"nil remembers nothing", nil, []string{"a", "a", "a"}, 3},
		{"negative size remembers nothing", &Memo[string, string]{Size: -1}, []string{"a", "a"}, 2},
		{"zero size is the default", &Memo[string, string]{}, []string{"a", "b", "a", "b"}, 2},
		{"a repeat is remembered", &Memo[string, string]{Size: 2}, []string{"a", "b", "a", "b", "a"}, 2},
		// Size 1: a, then b turns a old, then c drops a.
		{"two generations, then forgotten", &Memo[string, string]{Size: 1}, []string{"a", "b", "c", "a"}, 4},
		// a is found old when b is current, and moves back: c then turns
		// a old instead of dropping it.
		{"an old value moves back", &Memo[string, string]{Size: 1}, []string{"a", "b", "a", "c", "a"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			f := func(k string) string { calls++; return k + "!" }
			for _, k := range tc.asks {
				if got := tc.memo.Get(k, f); got != k+"!" {
					t.Fatalf("Get(%q) = %q, want %q", k, got, k+"!")
				}
			}
			if calls != tc.calls {
				t.Errorf("f ran %d times for %v, want %d", calls, tc.asks, tc.calls)
			}
		})
	}
}

// TestMemoIsBounded checks the memo never holds more than two
// generations.
func TestMemoIsBounded(t *testing.T) {
	t.Parallel()
	m := &Memo[int, int]{Size: 10}
	for i := range 1000 {
		m.Get(i, func(k int) int { return k })
		if n := m.Len(); n > 20 {
			t.Fatalf("after %d keys the memo holds %d values, want at most 20", i+1, n)
		}
	}
}

// TestMemoConcurrent asks from several goroutines at once (run with
// -race).
func TestMemoConcurrent(t *testing.T) {
	t.Parallel()
	m := &Memo[string, int]{Size: 4}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				k := strconv.Itoa((i + g) % 7)
				if got := m.Get(k, func(k string) int { n, _ := strconv.Atoi(k); return n }); strconv.Itoa(got) != k {
					t.Errorf("Get(%q) = %d", k, got)
					return
				}
			}
		})
	}
	wg.Wait()
}
