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
	git := func(at time.Time, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "git", args...)
		cmd.Dir = r.root
		date := at.Format(time.RFC3339)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for name, data := range map[string]string{"src/a.go": "package a\n", "gone.go": "package gone\n"} {
		p := filepath.Join(r.root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(r.now.Add(-2*time.Hour), "add", "-A")
	git(r.now.Add(-2*time.Hour), "commit", "-q", "-m", "code")
	git(r.now.Add(-time.Hour), "rm", "-q", "gone.go")
	git(r.now.Add(-time.Hour), "commit", "-q", "-m", "drop gone")
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
