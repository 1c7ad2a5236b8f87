package gitstore

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCommitsBetween builds, with the git CLI, a history with a side
// branch merged cleanly and a conflict resolved by hand in a merge, and
// checks which commits each range lists and what they changed.
func TestCommitsBetween(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	requireGit(t)
	dir, s := newRepo(t)
	n := 0
	// commit writes files ("" deletes) and commits them with the git CLI
	// at a distinct time, one minute after the last.
	commit := func(author, msg string, files map[string]string) string {
		t.Helper()
		for rel, content := range files {
			if content == "" {
				runGit(t, dir, "rm", "-q", rel)
				continue
			}
			writeFile(t, filepath.Join(dir, filepath.FromSlash(rel)), content)
			runGit(t, dir, "add", rel)
		}
		return gitAt(t, dir, &n, author, "commit", "-q", "-m", msg)
	}
	c0 := commit("Ada", "c0", map[string]string{".memory/a.md": "a0\n", "code.go": "package x\n"})
	c1 := commit("Ada", "c1", map[string]string{".memory/a.md": "a1\n"})
	runGit(t, dir, "checkout", "-q", "-b", "side")
	s1 := commit("Bob", "s1: add b", map[string]string{".memory/b.md": "b\n"})
	commit("Bob", "s2: code only", map[string]string{"code.go": "package x // 2\n"})
	runGit(t, dir, "checkout", "-q", "-")
	c2 := commit("Ada", "c2: add c", map[string]string{".memory/c.md": "c\n"})
	m1 := gitAt(t, dir, &n, "Ada", "merge", "-q", "--no-ff", "-m", "merge side", "side")
	runGit(t, dir, "checkout", "-q", "-b", "rival", c2)
	r1 := commit("Bob", "r1: a one way", map[string]string{".memory/a.md": "rival\n"})
	runGit(t, dir, "checkout", "-q", "-")
	c3 := commit("Ada", "c3: a another way, drop c", map[string]string{".memory/a.md": "mine\n", ".memory/c.md": ""})
	if _, err := gitOutput(dir, nil, "merge", "-q", "rival"); err == nil {
		t.Fatal("merge of rival did not conflict")
	}
	writeFile(t, filepath.Join(dir, ".memory", "a.md"), "resolved\n")
	runGit(t, dir, "add", ".memory/a.md")
	m2 := gitAt(t, dir, &n, "Carol", "commit", "-q", "--no-edit")
	_ = m1

	tests := []struct {
		name, base string
		want       []string
	}{
		{name: "everything", base: "", want: []string{m2, c3, r1, c2, s1, c1, c0}},
		{name: "since c1: both sides, the clean merge left out", base: c1, want: []string{m2, c3, r1, c2, s1}},
		{name: "since the side branch's commit", base: s1, want: []string{m2, c3, r1, c2}},
		{name: "since the rival commit", base: r1, want: []string{m2, c3, s1}},
		{name: "since HEAD: nothing", base: m2, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, more, err := s.CommitsBetween(t.Context(), tt.base, "", ".memory", 0)
			if err != nil {
				t.Fatal(err)
			}
			var hashes []string
			for i, c := range got {
				hashes = append(hashes, c.Hash)
				if i > 0 && c.CommitTime.After(got[i-1].CommitTime) {
					t.Errorf("%s listed after the older %s", c.Hash, got[i-1].Hash)
				}
			}
			if more {
				t.Error("more without a limit")
			}
			if diff := cmp.Diff(tt.want, hashes); diff != "" {
				t.Errorf("commits (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("what each commit changed", func(t *testing.T) {
		got, _, err := s.CommitsBetween(t.Context(), c1, "", ".memory", 0)
		if err != nil {
			t.Fatal(err)
		}
		describe := func(c RangeCommit) string {
			var parts []string
			for _, fc := range c.Changes {
				parts = append(parts, fmt.Sprintf("%s %s %q->%q", fc.Kind, fc.Path, fc.Old, fc.New))
			}
			return fmt.Sprintf("%s by %s (%d parents): %s", strings.SplitN(c.Message, "\n", 2)[0], c.Author.Name, c.Parents, strings.Join(parts, ", "))
		}
		var lines []string
		for _, c := range got {
			lines = append(lines, describe(c))
		}
		want := []string{
			`Merge branch 'rival' by Carol (2 parents): modified .memory/a.md "mine\n"->"resolved\n"`,
			`c3: a another way, drop c by Ada (1 parents): modified .memory/a.md "a1\n"->"mine\n", deleted .memory/c.md "c\n"->""`,
			`r1: a one way by Bob (1 parents): modified .memory/a.md "a1\n"->"rival\n"`,
			`c2: add c by Ada (1 parents): added .memory/c.md ""->"c\n"`,
			`s1: add b by Bob (1 parents): added .memory/b.md ""->"b\n"`,
		}
		if diff := cmp.Diff(want, lines); diff != "" {
			t.Errorf("changes (-want +got):\n%s", diff)
		}
	})

	t.Run("limit", func(t *testing.T) {
		got, more, err := s.CommitsBetween(t.Context(), "", "", ".memory", 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || !more {
			t.Errorf("got %d commits, more %v; want 3, more", len(got), more)
		}
		got, more, err = s.CommitsBetween(t.Context(), "", "", ".memory", 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 7 || more {
			t.Errorf("got %d commits, more %v; want 7, no more", len(got), more)
		}
	})

	t.Run("unknown base", func(t *testing.T) {
		if _, _, err := s.CommitsBetween(t.Context(), strings.Repeat("0", 40), "", ".memory", 0); err == nil {
			t.Error("no error for an unknown base")
		}
	})
}

// gitAt runs a committing git command as author, at a time one minute
// after the previous one (*n counts them), and returns the new HEAD.
func gitAt(t *testing.T, dir string, n *int, author string, args ...string) string {
	t.Helper()
	*n++
	date := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).Add(time.Duration(*n) * time.Minute).Format(time.RFC3339)
	env := []string{"GIT_AUTHOR_NAME=" + author, "GIT_AUTHOR_EMAIL=" + strings.ToLower(author) + "@example.com",
		"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}
	if out, err := gitOutput(dir, env, args...); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(runGit(t, dir, "rev-parse", "HEAD"))
}
