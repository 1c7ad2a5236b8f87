package title

import "testing"

func TestSameTitle(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		// Near-identical: the same memory, said again.
		{"Tests use pytest", "tests use pytest!", true},
		{"Tests use pytest", "Tests  use   pytest.", true},
		{"Tests use pytest", "Ｔｅｓｔｓ ｕｓｅ ｐｙｔｅｓｔ", true},     // full-width
		{"Tests use pytest", "The tests use pytest", true}, // a stop word more
		{"Run the tests before pushing", "Run tests before pushing", true},
		{"测试用 pytest", "测试用pytest。", true},
		{"Deploy with ops/deploy.sh", "deploy with ops/deploy.sh", true},
		{"Deploy through ops/deploy.sh after CI passes on main", "Deploy through ops/deploy.sh after CI passes on the main branch", true}, // one term more in twelve
		// Similar but different: kept apart.
		{"Use pytest for tests", "Use pytest for integration tests", false}, // narrower rule
		{"Use tabs", "Do not use tabs", false},                              // opposite
		{"Use tabs", "Don't use tabs", false},
		{"用 tabs 缩进", "不用 tabs 缩进", false},
		{"Run lint before tests", "Run tests before lint", false}, // order matters
		{"Deploy to staging", "Deploy to production", false},
		{"Tests use pytest", "Tests use unittest", false},
		{"测试用 pytest", "测试用 unittest", false},
		{"!!!", "???", false}, // nothing to compare
	}
	for _, tc := range tests {
		t.Run(tc.a+" | "+tc.b, func(t *testing.T) {
			if got := sameTitle(tc.a, tc.b); got != tc.want {
				t.Errorf("sameTitle(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := sameTitle(tc.b, tc.a); got != tc.want {
				t.Errorf("sameTitle(%q, %q) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
			}
		})
	}
}

func TestSeqJaccard(t *testing.T) {
	tests := []struct {
		a, b []string
		want float64
	}{
		{[]string{"a", "b", "c"}, []string{"a", "b", "c"}, 1},
		{[]string{"a", "b", "c"}, []string{"a", "b", "x", "c"}, 0.75},
		{[]string{"a", "b"}, []string{"b", "a"}, 1.0 / 3},
		{nil, []string{"a"}, 0},
	}
	for _, tc := range tests {
		if got := seqJaccard(tc.a, tc.b); got != tc.want {
			t.Errorf("seqJaccard(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// FuzzSameTitle checks the duplicate test on arbitrary titles: it never
// panics, is symmetric, and a title always matches itself when it has a
// letter or digit.
func FuzzSameTitle(f *testing.F) {
	for _, s := range [][2]string{
		{"Tests use pytest", "Use pytest for integration tests"},
		{"Use tabs", "Do not use tabs"},
		{"测试用 pytest", "测试用pytest。"},
		{"Ｔｅｓｔｓ", "tests"},
		{"", "!!!"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if sameTitle(a, b) != sameTitle(b, a) {
			t.Errorf("sameTitle(%q, %q) is not symmetric", a, b)
		}
		if key(a) != "" && !sameTitle(a, a) {
			t.Errorf("sameTitle(%q, itself) = false", a)
		}
	})
}

// sameTitle is Title.Same of two titles, as Remember judges them.
func sameTitle(a, b string) bool {
	return New(a).Same(New(b))
}

func TestSimilarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b     string
		min, max float64
	}{
		{"Commit messages follow Conventional Commits", "commit messages: follow conventional commits!", 1, 1},
		{"Commit messages follow Conventional Commits", "Commit messages follow the Conventional Commits format", 0.8, 0.85},
		{"Use tabs", "Do not use tabs", 0, 0},
		{"", "Use tabs", 0, 0},
		{"Use pytest for tests", "Use pytest for integration tests", 0.6, 0.75},
	}
	for _, tt := range tests {
		got := Similarity(tt.a, tt.b)
		if got < tt.min || got > tt.max {
			t.Errorf("Similarity(%q, %q) = %.3f, want %.2f..%.2f", tt.a, tt.b, got, tt.min, tt.max)
		}
		if got != Similarity(tt.b, tt.a) {
			t.Errorf("Similarity(%q, %q) is not symmetric", tt.a, tt.b)
		}
		if (got >= SameThreshold) != sameTitle(tt.a, tt.b) {
			t.Errorf("Similarity(%q, %q) = %.3f disagrees with sameTitle", tt.a, tt.b, got)
		}
	}
}
