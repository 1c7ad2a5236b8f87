package staleness

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoryFile is a memory's file whose version was written at since.
func memoryFile(since time.Time, body string) string {
	return "---\nid: m\ntitle: Cache keys\nupdated_at: " + since.Format(time.RFC3339) + "\n---\n" + body + "\n"
}

// versionedFile is memoryFile with a version number, as memvault writes.
func versionedFile(since time.Time, version int, body string) string {
	return "---\nid: m\ntitle: Cache keys\nversion: " + strconv.Itoa(version) + "\nupdated_at: " + since.Format(time.RFC3339) + "\n---\n" + body + "\n"
}

// TestMergedVersionsAreFresh is issue 24's finding 5 in the tracker: a
// memory's new version and the code change it describes reach the
// first-parent line in commits dated after the version's updated_at (a
// merge commit or a squash holds both; a rebase puts the code first);
// the memory is fresh. A change of the code after the memory's commit
// still counts, unless the code came back to what the memory saw.
func TestMergedVersionsAreFresh(t *testing.T) {
	t.Parallel()
	const mem = ".memory/project/cache.md"
	written := fakeT0.Add(30 * time.Second) // on the PR branch, before the merge's commits
	v2 := memoryFile(written, "Get doubles the key.")
	get2 := strings.Replace(goSrc, "return k", "return k+k", 1)
	get3 := strings.Replace(goSrc, "return k", "return k+k+k", 1)
	put2 := strings.Replace(get2, "_ = k", "_ = k+k", 1)
	tests := []struct {
		name   string
		refs   []string
		after  func(g *fakeGit)
		state  State
		reason []string
	}{
		{"merge or squash: one commit holds both", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("Merge pull request #1", map[string]string{"cache.go": get2, mem: v2})
		}, Fresh, []string{"none of its 1 ref changed"}},
		{"rebase: the code, then the memory", []string{"cache.go", "cache.go#Get"}, func(g *fakeGit) {
			g.commit("double the key", map[string]string{"cache.go": get2})
			g.commit("memory: Get doubles", map[string]string{mem: v2})
		}, Fresh, nil},
		{"rebase: written and updated within one second", []string{"cache.go"}, func(g *fakeGit) {
			// The same updated_at at both versions: the version number
			// tells the update from an edit that keeps the version.
			g.commit("memory: Get returns its key", map[string]string{mem: versionedFile(written, 1, "Get returns its key.")})
			g.commit("double the key", map[string]string{"cache.go": get2})
			g.commit("memory: Get doubles", map[string]string{mem: versionedFile(written, 2, "Get doubles the key.")})
		}, Fresh, nil},
		{"rebase, then a later edit", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("double the key", map[string]string{"cache.go": get2})
			g.commit("memory: Get doubles", map[string]string{mem: v2})
			g.commit("triple the key", map[string]string{"cache.go": get3})
		}, PossiblyStale, []string{"cache.go changed in 1 commit", `"triple the key"`}},
		{"the memory before the code", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("memory: Get doubles", map[string]string{mem: v2})
			g.commit("double the key", map[string]string{"cache.go": get2})
		}, PossiblyStale, []string{"cache.go changed in 1 commit", `"double the key"`}},
		{"edited and edited back after the memory", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("Merge pull request #1", map[string]string{"cache.go": get2, mem: v2})
			g.commit("triple the key", map[string]string{"cache.go": get3})
			g.commit("revert: triple the key", map[string]string{"cache.go": get2})
		}, Fresh, nil},
		{"symbol: another symbol edited after the memory", []string{"cache.go#Get"}, func(g *fakeGit) {
			g.commit("Merge pull request #1", map[string]string{"cache.go": get2, mem: v2})
			g.commit("tune put", map[string]string{"cache.go": put2})
		}, Fresh, nil},
		{"an edit of the memory that keeps its version", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("double the key", map[string]string{"cache.go": get2})
			g.commit("memory: Get doubles", map[string]string{mem: v2})
			g.commit("typo", map[string]string{mem: strings.Replace(v2, "doubles", "doubles.", 1)})
		}, Fresh, nil},
		{"an edit of the memory that keeps its version, after a code change", []string{"cache.go"}, func(g *fakeGit) {
			g.commit("memory: Get doubles", map[string]string{mem: v2})
			g.commit("double the key", map[string]string{"cache.go": get2})
			g.commit("typo", map[string]string{mem: strings.Replace(v2, "doubles", "doubles.", 1)})
		}, PossiblyStale, []string{"cache.go changed in 1 commit"}},
		{"folder: the PR's own change", []string{"store/"}, func(g *fakeGit) {
			g.commit("Merge pull request #1", map[string]string{"store/a.go": "a2", mem: v2})
		}, Fresh, nil},
		{"folder: changed after", []string{"store/"}, func(g *fakeGit) {
			g.commit("Merge pull request #1", map[string]string{"store/a.go": "a2", mem: v2})
			g.commit("store tweak", map[string]string{"store/b.go": "b2"})
		}, PossiblyStale, []string{"store/ changed in 1 commit", `"store tweak"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := newFakeGit()
			g.commit("init", map[string]string{"cache.go": goSrc, "store/a.go": "a", "store/b.go": "b", mem: memoryFile(fakeT0, "Get returns its key.")})
			tc.after(g)
			got := statesOf(t, NewTracker(g), Item{ID: "m", Since: written, Refs: tc.refs, Path: mem})
			if got.State != tc.state {
				t.Fatalf("state = %s (%s), want %s", got.State, got.Reason, tc.state)
			}
			for _, want := range tc.reason {
				if !strings.Contains(got.Reason, want) {
					t.Errorf("reason %q lacks %q", got.Reason, want)
				}
			}
		})
	}
}
