package gitstore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHeadSeesEveryChange: Head answers from its stamps only while HEAD's
// files are unchanged. Each step changes HEAD or its ref one way (a
// commit through the store, git's own commit, a branch switch, a rewrite
// in place, a detached HEAD, packed refs), with the files aged past the
// racy window before and after, so the stamps are trusted and only a
// stat can tell the change; State, which reads the files every time, is
// the oracle.
func TestHeadSeesEveryChange(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	ctx := t.Context()
	gitDir := filepath.Join(dir, ".git")
	first := commitFiles(t, s, "first", map[string]string{"a.md": "a\n"}).Hash
	second := commitFiles(t, s, "second", map[string]string{"a.md": "b\n"}).Hash
	old := time.Now().Add(-time.Hour)
	age := func() { // every ref file, to a new instant an hour or so ago
		t.Helper()
		old = old.Add(time.Second)
		for _, p := range []string{"HEAD", "refs/heads/master", "refs/heads/other", "packed-refs"} {
			if err := os.Chtimes(filepath.Join(gitDir, p), old, old); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	check := func(step string) {
		t.Helper()
		st, err := s.State(ctx)
		if err != nil {
			t.Fatalf("%s: State: %v", step, err)
		}
		got, err := s.Head(ctx)
		if err != nil {
			t.Fatalf("%s: Head: %v", step, err)
		}
		if got != st.Head {
			t.Fatalf("%s: Head = %q, want %q", step, got, st.Head)
		}
		age()
		if got, err := s.Head(ctx); err != nil || got != st.Head {
			t.Fatalf("%s, aged: Head = %q, %v; want %q", step, got, err, st.Head)
		}
		if s.headSeen == nil {
			t.Fatalf("%s: aged files were not stamped", step)
		}
	}
	check("start")
	commitFiles(t, s, "third", map[string]string{"a.md": "c\n"})
	check("a commit through the store")
	// Same size, same file: only the modification time tells.
	writeFile(t, filepath.Join(gitDir, "refs/heads/master"), first+"\n")
	age()
	check("the ref rewritten in place")
	writeFile(t, filepath.Join(gitDir, "HEAD"), second+"\n")
	age()
	check("detached")
	writeFile(t, filepath.Join(gitDir, "HEAD"), "ref: refs/heads/master\n")
	age()
	check("back on the branch")
	if gitPath() == "" {
		t.Log("git is not installed: the steps through git's CLI are not run")
		return
	}
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "by git")
	check("git commit")
	runGit(t, dir, "checkout", "-q", "-b", "other", first)
	check("git checkout -b")
	runGit(t, dir, "pack-refs", "--all", "--prune")
	check("packed, the loose ref gone")
	packed := readFile(t, filepath.Join(gitDir, "packed-refs"))
	writeFile(t, filepath.Join(gitDir, "packed-refs"), string(replaceHash(t, packed, first, second)))
	age()
	check("packed-refs rewritten")
	runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "loose again")
	check("a loose ref over the packed one")
}

// TestHeadTrustsNoNewFile: a ref rewritten in place within the racy window,
// same size and the same modification time restored, is still seen: a
// file that new is read, never stamped.
func TestHeadTrustsNoNewFile(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	first := commitFiles(t, s, "first", map[string]string{"a.md": "a\n"}).Hash
	second := commitFiles(t, s, "second", map[string]string{"a.md": "b\n"}).Hash
	ref := filepath.Join(dir, ".git", "refs", "heads", "master")
	fi, err := os.Stat(ref)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Head(t.Context()); err != nil || got != second {
		t.Fatalf("Head = %q, %v; want %q", got, err, second)
	}
	writeFile(t, ref, first+"\n")
	if err := os.Chtimes(ref, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Head(t.Context()); err != nil || got != first {
		t.Fatalf("after an in-place rewrite keeping size and time: Head = %q, %v; want %q", got, err, first)
	}
}

// replaceHash replaces the one line of packed-refs naming from's commit.
func replaceHash(t *testing.T, packed []byte, from, to string) []byte {
	t.Helper()
	if n := bytes.Count(packed, []byte(from+" ")); n != 1 {
		t.Fatalf("packed-refs has %d lines for %s:\n%s", n, from, packed)
	}
	return bytes.Replace(packed, []byte(from+" "), []byte(to+" "), 1)
}
