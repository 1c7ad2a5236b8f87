package staleness

import (
	"fmt"
	"path"
	"strings"
	"testing"
)

// backtrackGlobMatch is the matcher globMatch replaced, kept as the
// reference for its semantics: it tries every split of the path at each
// "**", exponential in their number, so it only runs on small inputs.
func backtrackGlobMatch(pat, segs []string, match func(pat, seg string) bool) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if backtrackGlobMatch(pat[1:], segs[i:], match) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 || !match(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pat, path string
		want      bool
	}{
		{"**", "a", true},
		{"**", "a/b/c", true},
		{"**/*.go", "a.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"**/*.go", "a/b/c.md", false},
		{"cmd/**", "cmd/a", true},
		{"cmd/**", "cmd", true}, // "**" may match no segment
		{"cmd/**", "lib/a", false},
		{"cmd/**/*.go", "cmd/a.go", true},
		{"cmd/**/*.go", "cmd/x/y/z.go", true},
		{"cmd/**/*.go", "lib/cmd/a.go", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/x/c/y/b", false},
		{"a/**/**/b", "a/b", true},
		{"a/**/**/b", "a/x/y/b", true},
		{"**/a/**", "x/a/y", true},
		{"**/a/**", "x/b/y", false},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/x/c", false},
		{"a/?/c", "a/bb/c", false},
		{"a/[bc]/d", "a/c/d", true},
		{"a/[bc]/d", "a/e/d", false},
		{"a/b**c/d", "a/bxyc/d", true}, // "**" inside a segment is one "*"
		{"a/b**c/d", "a/bx/yc/d", false},
		{"x/**/y", "x/y/y/y", true},
		{"**/x/**/x/**/x/**/y", "x/x/x/x/x/x/x/x", false},
		{"**/x/**/x/**/x/**/y", "x/x/q/x/x/y", true},
		{"a/b", "a/b/c", false},
		{"a/b/c", "a/b", false},
	}
	for _, tc := range tests {
		pat, segs := strings.Split(tc.pat, "/"), strings.Split(tc.path, "/")
		if got := globMatch(pat, segs, segmentMatch); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.pat, tc.path, got, tc.want)
		}
		if old := backtrackGlobMatch(pat, segs, segmentMatch); old != tc.want {
			t.Errorf("the old matcher says %v for (%q, %q): the table is wrong", old, tc.pat, tc.path)
		}
	}
}

// TestGlobMatchWorkIsLinear is the regression test for the exponential
// matcher (a memory with 16 "**" segments held a core for minutes): it
// counts segment matches, not time. The old matcher, given a budget of
// calls after which every segment fails, exceeds it at once.
func TestGlobMatchWorkIsLinear(t *testing.T) {
	t.Parallel()
	for _, stars := range []int{4, 8, 16, 32} {
		t.Run(fmt.Sprint(stars), func(t *testing.T) {
			// "**/x/**/x/.../y" against a path of x's with no y: every
			// split of the path is a candidate for a backtracking matcher.
			pat := strings.Split(strings.Repeat("**/x/", stars)+"y", "/")
			segs := strings.Split(strings.Repeat("x/", 2*stars)+"x", "/")
			bound := len(pat) * len(segs)
			calls := 0
			count := func(p, s string) bool {
				calls++
				return calls <= bound && segmentMatch(p, s)
			}
			if globMatch(pat, segs, count) {
				t.Fatalf("matched a path without y")
			}
			if calls > bound {
				t.Errorf("%d segment matches for %d pattern × %d path segments, want at most %d", calls, len(pat), len(segs), bound)
			}
			// The same pattern on a path that ends in y still matches.
			calls = 0
			if !globMatch(pat, append(segs, "y"), count) {
				t.Errorf("did not match a path ending in y")
			}
		})
	}
}

// FuzzGlobMatch checks globMatch against the backtracking matcher on small
// patterns and paths built from the fuzzer's bytes: the same answer, and
// never more than len(pat) × len(segs) segment matches.
func FuzzGlobMatch(f *testing.F) {
	f.Add("cmd/**/*.go", "cmd/x/y/z.go")
	f.Add("**/x/**/x/**/y", "x/x/x/x")
	f.Add("a/**/**/b", "a/b")
	f.Add("a/[bc]/*", "a/c/d")
	f.Add("**", "")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		pat, segs := strings.Split(pattern, "/"), strings.Split(name, "/")
		if len(pat) > 10 || len(segs) > 10 || len(pattern) > 64 || len(name) > 64 {
			t.Skip("the reference is exponential: small inputs only")
		}
		if _, err := path.Match(strings.ReplaceAll(pattern, "**", "*"), ""); err != nil {
			t.Skip("not a pattern ParseRef accepts")
		}
		calls := 0
		count := func(p, s string) bool { calls++; return segmentMatch(p, s) }
		got := globMatch(pat, segs, count)
		if want := backtrackGlobMatch(pat, segs, segmentMatch); got != want {
			t.Errorf("globMatch(%q, %q) = %v, the backtracking matcher says %v", pattern, name, got, want)
		}
		if calls > len(pat)*len(segs) {
			t.Errorf("%d segment matches for %d × %d segments", calls, len(pat), len(segs))
		}
	})
}
