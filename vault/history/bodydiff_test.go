package history

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestUnifiedBodyDiff(t *testing.T) {
	t.Parallel()
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	for _, tc := range []struct {
		name, a, b string
		want       []string
	}{
		{"equal", "a\n", "a\n", nil},
		{"added body", "", "金额\nint64\n", []string{"@@ -0,0 +1,2 @@", "+金额", "+int64"}},
		{"one line changed in the middle", ten, strings.Replace(ten, "5\n", "five\n", 1),
			[]string{"@@ -2,7 +2,7 @@", " 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"}},
		{"two far changes are two hunks", ten, strings.Replace(strings.Replace(ten, "1\n", "one\n", 1), "10\n", "ten\n", 1),
			[]string{"@@ -1,4 +1,4 @@", "-1", "+one", " 2", " 3", " 4", "@@ -7,4 +7,4 @@", " 7", " 8", " 9", "-10", "+ten"}},
		{"line appended", "a\nb\n", "a\nb\nc\n", []string{"@@ -1,2 +1,3 @@", " a", " b", "+c"}},
		{"body emptied", "a\nb\n", "", []string{"@@ -1,2 +0,0 @@", "-a", "-b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, more := UnifiedBodyDiff(tc.a, tc.b, 100)
			if !slices.Equal(got, tc.want) || more != 0 {
				t.Errorf("got %q (+%d), want %q", got, more, tc.want)
			}
			if tc.want != nil {
				checkWithGitApply(t, tc.a, tc.b, got)
			}
		})
	}
	got, more := UnifiedBodyDiff(ten, "", 4)
	if len(got) != 4 || more != 7 {
		t.Errorf("capped at 4: %d lines, %d more; want 4 and 7", len(got), more)
	}
}

// checkWithGitApply applies the diff to a with git apply: the hunk
// headers must be right for a reviewer's tools, not just readable.
func checkWithGitApply(t *testing.T, a, b string, lines []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "body"), []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := "--- a/body\n+++ b/body\n" + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "p.diff"), []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", "--unidiff-zero", "p.diff")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, patch)
	}
	got, err := os.ReadFile(filepath.Join(dir, "body"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if string(got) != b {
		t.Errorf("applied diff gives %q, want %q", got, b)
	}
}
