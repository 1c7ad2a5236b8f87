package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// TestCLIRefsLimits is the regression test, through add, update and
// lint, for refs without limits (a memory with 16 "**" segments made
// show take minutes): add and update past a limit exit 1 naming it and
// write nothing; a hand-written file past them loads with the refs that
// fit, and lint names the rest at the refs line.
func TestCLIRefsLimits(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	id := r.addMemory("Glob at the limit", "c", "--refs", strings.Repeat("**/d/", vault.MaxRefGlobstars)+"*.go")
	many := make([]string, vault.MaxRefs+1)
	for i := range many {
		many[i] = fmt.Sprintf("src/f%d.go", i)
	}
	deep := strings.Repeat("**/d/", 28) + "*.go"
	tooMany := fmt.Sprintf("%d refs, limit %d (vault.MaxRefs)", vault.MaxRefs+1, vault.MaxRefs)
	tooDeep := fmt.Sprintf(`has 28 "**" segments, limit %d (vault.MaxRefGlobstars)`, vault.MaxRefGlobstars)
	head, _ := r.head()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"add", "Too many", "--content", "c", "--refs", strings.Join(many, ",")}, tooMany},
		{[]string{"add", "Too deep", "--content", "c", "--refs", deep}, tooDeep},
		{[]string{"update", id, "--refs", strings.Join(many, ",")}, tooMany},
		{[]string{"update", id, "--refs", deep}, tooDeep},
	} {
		code, _ := r.run("", tc.args...)
		if code != exitUsage || !strings.Contains(r.lastStderr, tc.want) {
			t.Errorf("memvault %s ...: exit %d, stderr %q; want exit %d saying %q", tc.args[0], code, r.lastStderr, exitUsage, tc.want)
		}
	}
	if now, _ := r.head(); now != head {
		t.Errorf("refused writes committed: HEAD %s, was %s", now, head)
	}

	hostile := "---\ntitle: Hostile refs\nrefs:\n  - '" + deep + "'\n  - '" + strings.Join(many, "'\n  - '") + "'\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(r.dir, "project", "hostile.md"), []byte(hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out := r.run("", "lint")
	for _, want := range []string{
		`hostile.md:3: refs: ref "` + deep + `" ` + tooDeep + ": ignored: warning",
		fmt.Sprintf("hostile.md:3: refs: %d refs, limit %d (vault.MaxRefs): the 1 after the first %d are ignored: warning", vault.MaxRefs+1, vault.MaxRefs, vault.MaxRefs),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint:\n%s\nwant a line with %q", out, want)
		}
	}
	if out := r.ok("show", "project/hostile", "--json"); !strings.Contains(out, `"src/f63.go"`) || strings.Contains(out, `"src/f64.go"`) || strings.Contains(out, "**/d/**/d/**/d/**/d/**/d/") {
		t.Errorf("show of the hostile memory:\n%s\nwant the first %d refs only", out, vault.MaxRefs)
	}
}

// TestCLINeverExistedRef is the regression test for refs to a path the
// repository never had read as stale, their reason said twice (the
// README's first recall on the sample vault flagged the top answers):
// such a ref is unknown, said once, and lint warns about it at the refs
// line; a file deleted before the memory was written is still stale, and
// lint says nothing of it.
func TestCLINeverExistedRef(t *testing.T) {
	t.Parallel()
	r := newCLIRepo(t)
	commitFilesAt(t, r.root, r.now.Add(-2*time.Hour), "code", map[string]string{"src/a.go": "package a\n", "gone.go": "package gone\n"})
	commitFilesAt(t, r.root, r.now.Add(-time.Hour), "drop gone", map[string]string{"gone.go": ""})
	never := r.addMemory("Names a file that never was", "c", "--refs", "src/a.go,nope.go#F,nope.go#G")
	gone := r.addMemory("Names a file deleted before", "c", "--refs", "gone.go")

	for _, tc := range []struct{ id, state, reason string }{
		{never, "unknown", "nope.go never existed in this repository's history: check the ref"},
		{gone, "stale", "gone.go does not exist at HEAD"},
	} {
		var got struct{ Staleness view.Staleness }
		if err := json.Unmarshal([]byte(r.ok("show", tc.id, "--json")), &got); err != nil {
			t.Fatal(err)
		}
		if got.Staleness.State != tc.state || got.Staleness.Reason != tc.reason {
			t.Errorf("show %s: %+v, want %s: %q", tc.id, got.Staleness, tc.state, tc.reason)
		}
	}
	_, out := r.run("", "lint")
	var warned []string
	for line := range strings.SplitSeq(out, "\n") {
		if strings.Contains(line, "never existed") {
			warned = append(warned, line[strings.Index(line, ".md:")+1:])
		}
	}
	want := []string{
		`md:9: refs: ref "nope.go#F" names a path that never existed in this repository's history: check its spelling (its staleness is unknown): warning`,
		`md:9: refs: ref "nope.go#G" names a path that never existed in this repository's history: check its spelling (its staleness is unknown): warning`,
	}
	if !slices.Equal(warned, want) {
		t.Errorf("lint:\n%s\nwant exactly the warnings\n%s", out, strings.Join(want, "\n"))
	}
}

// commitFilesAt writes files under root (content "" removes one) and
// commits everything as one commit dated at.
func commitFilesAt(t *testing.T, root string, at time.Time, subject string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if data == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	date := at.Format(time.RFC3339)
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", subject}} {
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestServeHostileRefsE2E replays issue 27's finding 1 through `memvault
// serve`: remember with 28 "**" segments is refused naming the limit; a
// file committed with them (and a ref to a path that never existed) is
// served with the refs that fit, and after a commit touching a file 17
// folders deep a recall answers with the memory's staleness computed in
// time: unknown because of the ref that never existed, not "not known in
// time".
func TestServeHostileRefsE2E(t *testing.T) {
	t.Parallel()
	s := startServe(t)
	deep := strings.Repeat("**/", 28) + "*.go"
	if text := s.fails("remember", map[string]any{"title": "Deep glob", "content": "c", "refs": []string{deep}}); !strings.Contains(text, `has 28 "**" segments, limit 4 (vault.MaxRefGlobstars)`) {
		t.Errorf("remember with 28 **: %q, want the limit named", text)
	}
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	commitFilesAt(t, s.root, t0, "hostile memory", map[string]string{
		".memory/project/hostile.md": "---\ntitle: Hostile globs\nupdated_at: " + t0.Format(time.RFC3339) +
			"\nrefs:\n  - '" + deep + "'\n  - '**/**/**/**/*.md'\n  - nope.go\n---\nGlobs everywhere.\n",
	})
	commitFilesAt(t, s.root, t0.Add(time.Minute), "deep code", map[string]string{strings.Repeat("d/", 17) + "f.go": "package f\n"})
	s.restart() // reads the vault and HEAD afresh
	var out view.Recall
	s.ok("recall", map[string]any{"query": "hostile globs"}, &out)
	if len(out.Results) == 0 || out.Results[0].Staleness == nil {
		t.Fatalf("recall: %+v, want the hostile memory with its staleness", out.Results)
	}
	if st := out.Results[0].Staleness; st.State != "unknown" || st.Reason != "nope.go never existed in this repository's history: check the ref" {
		t.Errorf("staleness %+v, want unknown naming nope.go only", st)
	}
}
