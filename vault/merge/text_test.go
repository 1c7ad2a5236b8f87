package merge

import (
	"strconv"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	t.Parallel()
	lines := func(s ...string) string { return strings.Join(s, "\n") + "\n" }
	for _, tc := range []struct {
		name, base, ours, theirs, want string
		ok                             bool
	}{
		{"ours only", lines("a", "b"), lines("a", "B"), lines("a", "b"), lines("a", "B"), true},
		{"theirs only", lines("a", "b"), lines("a", "b"), lines("a", "b", "c"), lines("a", "b", "c"), true},
		{"same edit both", lines("a", "b"), lines("x", "b"), lines("x", "b"), lines("x", "b"), true},
		{"apart", lines("a", "b", "c", "d", "e"), lines("A", "b", "c", "d", "e"), lines("a", "b", "c", "d", "E"), lines("A", "b", "c", "d", "E"), true},
		{"insert both ends", lines("m"), lines("top", "m"), lines("m", "end"), lines("top", "m", "end"), true},
		{"delete and edit apart", lines("a", "b", "c", "d"), lines("b", "c", "d"), lines("a", "b", "c", "D"), lines("b", "c", "D"), true},
		{"same line differently", lines("a", "b", "c"), lines("a", "B1", "c"), lines("a", "B2", "c"), "", false},
		{"both insert at one place", lines("a", "c"), lines("a", "b1", "c"), lines("a", "b2", "c"), "", false},
		{"edit against delete", lines("a", "b", "c"), lines("a", "c"), lines("a", "B", "c"), "", false},
		{"empty base, different adds", "", lines("x"), lines("y"), "", false},
		{"no final newline", "a\nm\nb", "a\nm\nb\nc", "A\nm\nb", "A\nm\nb\nc", true},
		{"adjacent lines conflict, as in git", lines("a", "b"), lines("A", "b"), lines("a", "B"), "", false},
		{"chinese", lines("结算", "-", "促销"), lines("结算模块", "-", "促销"), lines("结算", "-", "促销类型"), lines("结算模块", "-", "促销类型"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Text(tc.base, tc.ours, tc.theirs)
			if ok != tc.ok || got != tc.want {
				t.Errorf("Text = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestMatches checks the Myers matching against an LCS length computed by
// dynamic programming, on small generated inputs.
func TestMatches(t *testing.T) {
	t.Parallel()
	seqs := [][]int{{}, {1}, {1, 2, 3}, {3, 2, 1}, {1, 1, 2, 2, 1}, {2, 1, 2, 1, 2, 3}, {4, 1, 4, 2, 4}, {1, 2, 3, 4, 5, 6}}
	for _, a := range seqs {
		for _, b := range seqs {
			m := matches(a, b)
			n, last := 0, -1
			for i, j := range m {
				if j < 0 {
					continue
				}
				if j <= last || a[i] != b[j] {
					t.Fatalf("matches(%v, %v) = %v: not an increasing common subsequence", a, b, m)
				}
				last, n = j, n+1
			}
			if want := lcs(a, b); n != want {
				t.Errorf("matches(%v, %v) = %v: %d matched, LCS is %d", a, b, m, n, want)
			}
		}
	}
}

func lcs(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

func TestMarkerLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     int
	}{
		{"none", "---\nid: a\n---\nbody\n", 0},
		{"setext heading", "Title\n=======\n\ntext\n", 0},
		{"arrows inside a line", "a <<<<<<< b\nx >>>>>>> y\n", 0},
		{"eight arrows", "<<<<<<<<\n", 0},
		{"git block in the body", "---\nid: a\n---\nx\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n", 5},
		{"file starts with a marker", "<<<<<<< HEAD\n---\nid: a\n", 1},
		{"bare opening", "a\r\n<<<<<<<\r\n", 2},
		{"diff3 base marker", "a\n||||||| base\n", 2},
		{"closing only", "a\nb\n>>>>>>> theirs", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MarkerLine([]byte(tc.in)); got != tc.want {
				t.Errorf("MarkerLine = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestTextPastTheEditLimit: bodies whose diff needs more than maxEdits
// edits merge as a conflict, not by guesswork; below it, the same shape
// of edits merges.
func TestTextPastTheEditLimit(t *testing.T) {
	t.Parallel()
	body := func(n int, mark func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("line " + strconv.Itoa(i) + mark(i) + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		lines int
		ok    bool
	}{{400, true}, {6 * maxEdits, false}} { // a side changes a tenth of the lines: two edits each
		base := body(tc.lines, func(int) string { return "" })
		// Ours changes every line ending in 0, theirs every line ending in
		// 5: never neighbours, always apart.
		ours := body(tc.lines, func(i int) string { return map[bool]string{true: " ours"}[i%10 == 0] })
		theirs := body(tc.lines, func(i int) string { return map[bool]string{true: " theirs"}[i%10 == 5] })
		want := body(tc.lines, func(i int) string {
			return map[int]string{0: " ours", 5: " theirs"}[i%10]
		})
		got, ok := Text(base, ours, theirs)
		if ok != tc.ok || (ok && got != want) {
			t.Errorf("%d lines: ok %v (want %v), merged right: %v", tc.lines, ok, tc.ok, got == want)
		}
	}
}
