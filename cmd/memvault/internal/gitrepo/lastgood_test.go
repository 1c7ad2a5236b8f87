package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault"
)

// TestLastGood: the newest version good accepts, through a rename, with
// its commit; none when no version does; the answer kept in the git
// directory by HEAD and path, and used by the next call (a later version
// that good would accept does not change it until HEAD moves).
func TestLastGood(t *testing.T) {
	t.Parallel()
	r := newCodeRepo(t)
	r.write(".memory/project/old.md", "good 1")
	r.commitAll("first")
	r.git("mv", ".memory/project/old.md", ".memory/project/a.md")
	r.commitAll("rename")
	r.write(".memory/project/a.md", "good 2")
	r.commitAll("second")
	r.write(".memory/project/a.md", "bad 3")
	r.commitAll("break")
	r.write(".memory/project/never.md", "bad")
	r.commitAll("never good")
	h := HeadFiles{Dir: filepath.Join(r.root, ".memory")}
	calls := 0
	good := func(data []byte) bool { calls++; return strings.HasPrefix(string(data), "good") }

	data, commit, err := h.LastGood(t.Context(), "project/a.md", good)
	if err != nil || string(data) != "good 2" || len(commit) != 40 {
		t.Fatalf("LastGood = %q, %q, %v; want good 2 and its commit", data, commit, err)
	}
	if _, _, err := h.LastGood(t.Context(), "project/never.md", good); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("LastGood of a file never good: %v, want ErrNotFound", err)
	}
	cache, err := os.ReadFile(filepath.Join(r.root, ".git", "memvault", lastGoodFile))
	if err != nil || strings.Count(string(cache), "\n") != 2 {
		t.Fatalf("cache file %q, %v; want two answers", cache, err)
	}
	calls = 0
	again, c2, err := h.LastGood(t.Context(), "project/a.md", good)
	if err != nil || string(again) != "good 2" || c2 != commit || calls != 0 {
		t.Errorf("cached LastGood = %q, %q, %v after %d checks; want the same answer from the cache", again, c2, err, calls)
	}
	if _, _, err := h.LastGood(t.Context(), "project/never.md", good); !errors.Is(err, vault.ErrNotFound) || calls != 0 {
		t.Errorf("cached LastGood of a file never good: %v after %d checks", err, calls)
	}

	// Through the rename: the first version is found when the later ones
	// do not pass.
	r.write(".memory/project/a.md", "bad 4")
	r.commitAll("break again")
	onlyFirst := func(data []byte) bool { return string(data) == "good 1" }
	if data, _, err := h.LastGood(t.Context(), "project/a.md", onlyFirst); err != nil || string(data) != "good 1" {
		t.Errorf("LastGood through a rename = %q, %v; want good 1", data, err)
	}

	out := HeadFiles{Dir: filepath.Join(tempRoot(t), ".memory")}
	if _, _, err := out.LastGood(t.Context(), "project/a.md", good); !errors.Is(err, vault.ErrNotFound) {
		t.Errorf("LastGood outside git: %v, want ErrNotFound", err)
	}
}
