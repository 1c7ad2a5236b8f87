package teamsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
)

// TestBrokenOfSaysHowToFixEachFile: one entry a file (its first error),
// warnings left out, and a fix that names the line's own key and value.
func TestBrokenOfSaysHowToFixEachFile(t *testing.T) {
	yamlErr := errors.New("invalid front matter: mapping values are not allowed in this context")
	diags := []*vault.Diagnostic{
		{Path: "project/a.md", Line: 3, Err: yamlErr, Severity: parser.SeverityError},
		{Path: "project/a.md", Line: 4, Err: yamlErr, Severity: parser.SeverityError},
		{Path: "project/w.md", Line: 2, Err: errors.New("unknown key"), Severity: parser.SeverityWarning},
		{Path: "project/b.md", Line: 9, Err: fmt.Errorf("%w: a merge was left unresolved", vault.ErrConflictMarkers), Severity: parser.SeverityError},
		{Path: "project/c.md", Line: 6, Field: "secret", Err: fmt.Errorf("%w: AWS key", vault.ErrSecret), Severity: parser.SeverityError},
		{Path: "project/d.md", Line: 2, Err: yamlErr, Severity: parser.SeverityError},
		{Path: "project/e.md", Line: 5, Err: errors.New("importance: not a number"), Severity: parser.SeverityError},
	}
	lines := map[string]string{"project/a.md": `title: Deploys: "two" approvals`, "project/d.md": "  - nested: value"}
	got := brokenOf(diags, func(rel string, n int) string { return lines[rel] })
	want := []struct{ path, fix string }{
		{"project/a.md", `quote the title: title: "Deploys: \"two\" approvals", then commit`},
		{"project/b.md", "keep the right lines, delete the <<<<<<< ======= >>>>>>> lines, and commit"},
		{"project/c.md", "remove the secret from the file and commit (and rotate it: it stays in git history)"},
		{"project/d.md", `quote the value on that line ("..."), then commit`},
		{"project/e.md", "correct the front matter at that line (memvault lint explains), then commit"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Path != w.path || got[i].Fix != w.fix {
			t.Errorf("entry %d: %s %q, want %s %q", i, got[i].Path, got[i].Fix, w.path, w.fix)
		}
	}
	b := got[0]
	b.Origin, b.Commit, b.Author = OriginUpstream, "abc1234", "Bob <bob@example.com>"
	if s, w := b.String(), `project/a.md:3: invalid front matter: mapping values are not allowed in this context (from the remote in abc1234 by Bob <bob@example.com>); fix: quote the title: title: "Deploys: \"two\" approvals", then commit`; s != w {
		t.Errorf("String:\n%s\nwant\n%s", s, w)
	}
}

// TestSyncPushesPastABrokenFileFromTheRemote: a broken memory file that
// came from the remote is reported with its commit and author and never
// stops the push of this clone's commits; one committed here and not on
// the remote stops the push (it would spread it), naming it.
func TestSyncPushesPastABrokenFileFromTheRemote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		remote bool // the broken file comes from the other clone
	}{{"from the remote", true}, {"committed here", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dirs := clones(t, 2)
			a, b := dirs[0], dirs[1]
			if err := os.MkdirAll(filepath.Join(a, ".memory", "project"), 0o755); err != nil {
				t.Fatal(err)
			}
			if tc.remote {
				if err := os.MkdirAll(filepath.Join(b, ".memory", "project"), 0o755); err != nil {
					t.Fatal(err)
				}
				commitFile(t, b, ".memory/project/x.md", "---\ntitle: Deploys: two\n---\n")
				gitIn(t, b, "push", "-q", "origin", "main")
			} else {
				commitFile(t, a, ".memory/project/x.md", "---\ntitle: Deploys: two\n---\n")
			}
			commitFile(t, a, "a.txt", "a\n")
			s := syncer(t, CLI{Dir: a})
			s.VaultPrefix = ".memory"
			s.Lint = func(context.Context) (Lint, error) {
				return Lint{Errors: 1, Broken: []Broken{{Path: "project/x.md", Line: 2, Problem: "bad", Fix: "quote the title"}}}, nil
			}
			rep, err := s.Run(t.Context())
			if tc.remote {
				if err != nil || !rep.Pushed || len(rep.Broken) != 1 || rep.Broken[0].Origin != OriginUpstream || rep.Broken[0].Author != "Test <test@example.com>" || rep.Broken[0].Commit == "" {
					t.Errorf("pushed %v, broken %+v, err %v; want pushed, the file from the remote", rep.Pushed, rep.Broken, err)
				}
				return
			}
			if !errors.Is(err, ErrBrokenCommitted) || rep.Pushed || !strings.Contains(err.Error(), "project/x.md:2: bad (committed here in ") {
				t.Errorf("pushed %v, err %v; want the push refused, naming the file", rep.Pushed, err)
			}
		})
	}
}
