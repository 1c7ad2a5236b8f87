package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/merge"
)

// TestResolveTwoMovesKeepsLayerAndFolder: main moved a memory from meta
// to project while a branch moved it to short-term; a squash or
// cherry-pick of the branch (git's renames on, as a forge merges) stops
// at rename/rename, and resolve keeps one file whose folder is the layer
// the merge kept. Found by TestTeamSimulation (seed 3): resolve wrote
// layer project into short-term/.
func TestResolveTwoMovesKeepsLayerAndFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	for _, style := range []string{"squash", "pick"} {
		t.Run(style, func(t *testing.T) {
			c := newTeam(t).clone()
			id := c.add("Redis is a cache", "Body.", "--layer", "meta")
			c.git("checkout", "-q", "-b", "pr")
			c.must("update", id, "--layer", "short-term", "--reason", "pr")
			c.git("checkout", "-q", "main")
			c.must("update", id, "--layer", "project", "--reason", "main")
			driver := []string{"-c", "merge.memvault.driver=" + gitrepo.DriverCommand(buildMemvault(t)), "-c", "merge.directoryRenames=false"}
			args := []string{"cherry-pick", "pr"}
			if style == "squash" {
				args = []string{"merge", "-q", "--squash", "pr"}
			}
			if _, ok := c.try(append(driver, args...)...); ok {
				t.Fatal("the two moves merged without a stop; the test needs git's rename/rename")
			}
			c.must("resolve")
			rel, d, _ := onlyMemory(t, c)
			if rel != "project/redis-is-a-cache.md" {
				t.Fatalf("the memory is in %s, want project/redis-is-a-cache.md", rel)
			}
			if d.Meta.ID != id || d.Meta.Layer != "project" {
				t.Errorf("project/redis-is-a-cache.md: id %s layer %q, want %s in project", d.Meta.ID, d.Meta.Layer, id)
			}
			if code, out := c.memvault("lint"); code != 0 || strings.Contains(out, "does not match the folder") {
				t.Errorf("lint: exit %d\n%s", code, out)
			}
		})
	}
}

// TestSyncJoinTwoMovesAgainstTheFork: one clone retitles a memory and
// moves it to meta, another moves it to short-term; the sync's merge
// (exact renames only) leaves two copies, and the join merges them
// against the memory where the clones forked: only the layer, which both
// changed, is left for a person, never the title one clone changed.
// Found by TestTeamSimulation (seed 2).
func TestSyncJoinTwoMovesAgainstTheFork(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	tm := newTeam(t)
	a, b := tm.clone(), tm.clone()
	id := a.add("Redis is a cache", "Body.")
	a.must("sync")
	b.must("sync")
	a.must("update", id, "--title", "Redis is only a cache", "--reason", "retitle")
	a.must("update", id, "--layer", "meta", "--reason", "move")
	a.must("sync")
	b.must("update", id, "--layer", "short-term", "--reason", "move")
	b.must("sync", "--merge")
	_, d, data := onlyMemory(t, b)
	if d.Meta.Title != "Redis is only a cache" {
		t.Errorf("title %q, want the retitle", d.Meta.Title)
	}
	if fields, _ := merge.Record(d); !slices.Equal(fields, []string{"layer"}) {
		t.Errorf("conflict record names %v, want [layer] (both moved it; one retitled it)\n%s", fields, data)
	}
}

// onlyMemory reads the clone's one memory file: its vault-relative path,
// parsed and as bytes. More than one, or one that does not parse, fails.
func onlyMemory(t *testing.T, c *mergeRepo) (string, *parser.Document, []byte) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(c.root, ".memory", "*", "*.md"))
	if err != nil || len(files) != 1 {
		t.Fatalf("memory files %v (%v), want one", files, err)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	d, _ := parser.Parse(files[0], data)
	if d == nil {
		t.Fatalf("%s does not parse:\n%s", files[0], data)
	}
	rel, _ := filepath.Rel(filepath.Join(c.root, ".memory"), files[0])
	return filepath.ToSlash(rel), d, data
}
