package gitstore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitRefusesDetachedHead: with Change.RefuseDetached, a detached
// HEAD is refused before anything is written, and the index is left
// alone; on a branch the option changes nothing.
func TestCommitRefusesDetachedHead(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	first := commitFiles(t, s, "one", map[string]string{"a.md": "1\n"})
	writeFile(t, filepath.Join(dir, ".git/HEAD"), first.Hash+"\n")
	index := readFile(t, filepath.Join(dir, ".git/index"))
	writeFile(t, filepath.Join(dir, "b.md"), "b\n")
	_, err := s.Commit(t.Context(), Change{Paths: []string{"b.md"}, Message: "two", RefuseDetached: true})
	if !errors.Is(err, ErrDetachedHead) || !strings.Contains(err.Error(), first.Hash) {
		t.Fatalf("err = %v, want ErrDetachedHead naming %s", err, first.Hash)
	}
	if got := strings.TrimSpace(string(readFile(t, filepath.Join(dir, ".git/HEAD")))); got != first.Hash {
		t.Errorf("HEAD = %s, want %s", got, first.Hash)
	}
	if string(readFile(t, filepath.Join(dir, ".git/index"))) != string(index) {
		t.Errorf("the index changed")
	}
	writeFile(t, filepath.Join(dir, ".git/HEAD"), "ref: refs/heads/master\n")
	res, err := s.Commit(t.Context(), Change{Paths: []string{"b.md"}, Message: "two", RefuseDetached: true})
	if err != nil || res.Detached || res.Branch != "master" {
		t.Fatalf("on a branch: %+v, %v", res, err)
	}
}
