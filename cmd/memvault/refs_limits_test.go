package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
