package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkPathChangesCLIMatchesGo builds, with the git CLI, a history
// longer than minCLIWalk with renames (exact and edited), deletes, edits
// inside and outside the watched paths, odd file names and a merge on
// the first-parent line, and checks that the walk through `git log`
// reports exactly what the walk in Go reports, for several watched sets
// and stops, including a stop that is not on the first-parent line and a
// walk that fn ends early.
func TestWalkPathChangesCLIMatchesGo(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	requireGit(t)
	t.Parallel()
	dir, _ := newRepo(t)
	n := 0
	commit := func(msg string, files map[string]string, rm ...string) string {
		t.Helper()
		for rel, content := range files {
			writeFile(t, filepath.Join(dir, filepath.FromSlash(rel)), content)
			runGit(t, dir, "add", "--", rel)
		}
		for _, rel := range rm {
			runGit(t, dir, "rm", "-q", "--", rel)
		}
		return gitAt(t, dir, &n, "Ada", "commit", "-q", "--allow-empty", "--allow-empty-message", "-m", msg)
	}
	long := strings.Repeat("line of text that stays the same\n", 20)
	commit("init", map[string]string{"src/a.go": "a\n" + long, "src/b.go": "b\n" + long, "docs/x.md": "x\n", "odd/spa ce.txt": "s\n", "odd/新.txt": "新\n"})
	var onLine []string
	for i := range 2 * minCLIWalk {
		files := map[string]string{fmt.Sprintf("other/f%03d.txt", i): fmt.Sprint(i)}
		var rm []string
		switch i % 9 {
		case 0:
			files["src/a.go"] = fmt.Sprintf("a %d\n", i) + long
		case 1:
			files["docs/x.md"] = fmt.Sprintf("x %d\n", i)
		case 2:
			files["odd/spa ce.txt"] = fmt.Sprintf("s %d\n", i)
		case 3:
			files[fmt.Sprintf("src/n%d.go", i)] = "new\n"
		}
		msg := fmt.Sprintf("step %d\n\nbody line", i)
		if i == 50 {
			msg = ""
		}
		onLine = append(onLine, commit(msg, files, rm...))
	}
	// An exact rename, an edited rename, a delete.
	if err := os.MkdirAll(filepath.Join(dir, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "mv", "src/b.go", "lib/b.go")
	commit("move b", nil)
	runGit(t, dir, "mv", "src/a.go", "lib/a2.go")
	commit("move and edit a", map[string]string{"lib/a2.go": "a edited\n" + long})
	commit("drop x", nil, "docs/x.md")
	// A side branch merged into the line.
	runGit(t, dir, "checkout", "-q", "-b", "side")
	side := commit("side edit", map[string]string{"odd/新.txt": "新 side\n", "lib/b.go": "b side\n" + long})
	runGit(t, dir, "checkout", "-q", "-")
	commit("main edit", map[string]string{"src/n3.go": "changed\n"})
	gitAt(t, dir, &n, "Ada", "merge", "-q", "--no-ff", "-m", "merge side", "side")
	for i := range minCLIWalk + 5 {
		commit(fmt.Sprintf("tail %d", i), map[string]string{"lib/b.go": fmt.Sprintf("b %d\n", i) + long})
	}

	walk := func(t *testing.T, cli bool, stop string, prefixes []string, limit int) ([]string, error) {
		s, err := Open(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.NoGitCLIReads = !cli
		var out []string
		errEnough := errors.New("enough")
		err = s.WalkPathChanges(t.Context(), "", stop, prefixes, func(pc PathCommit) error {
			line := fmt.Sprintf("%s %s %q:", pc.Hash[:7], pc.Time.UTC().Format("15:04"), pc.Subject)
			for _, c := range pc.Changes {
				line += fmt.Sprintf(" %s %s<-%s %.7s>%.7s", c.Kind, c.Path, c.OldPath, c.OldBlob, c.NewBlob)
			}
			out = append(out, line)
			if limit > 0 && len(out) == limit {
				return errEnough
			}
			return nil
		})
		if errors.Is(err, errEnough) {
			err = nil
		}
		return out, err
	}
	tests := []struct {
		name     string
		stop     string
		prefixes []string
		limit    int
		wantErr  error
	}{
		{name: "folders", prefixes: []string{"src", "lib", "docs"}},
		{name: "files and odd names", prefixes: []string{"src/a.go", "lib/b.go", "odd/spa ce.txt", "odd/新.txt"}},
		{name: "everything", prefixes: []string{""}},
		{name: "nothing watched", prefixes: []string{"nowhere"}},
		{name: "stop on the line", stop: onLine[10], prefixes: []string{"src", "lib", "odd"}},
		{name: "stop near the head", stop: onLine[len(onLine)-3], prefixes: []string{"src"}},
		{name: "stop off the line", stop: side, prefixes: []string{"src"}, wantErr: ErrNotAncestor},
		{name: "fn ends the walk", prefixes: []string{"src", "lib"}, limit: minCLIWalk + 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			goWalk, goErr := walk(t, false, tt.stop, tt.prefixes, tt.limit)
			cliWalk, cliErr := walk(t, true, tt.stop, tt.prefixes, tt.limit)
			if !errors.Is(goErr, tt.wantErr) || !errors.Is(cliErr, tt.wantErr) {
				t.Fatalf("errors: go %v, cli %v; want %v", goErr, cliErr, tt.wantErr)
			}
			if tt.wantErr != nil {
				return // what fn saw before the error is thrown away
			}
			if len(goWalk) <= minCLIWalk {
				t.Fatalf("the walk has %d commits: too short to go through git", len(goWalk))
			}
			if strings.Join(goWalk, "\n") != strings.Join(cliWalk, "\n") {
				for i := range max(len(goWalk), len(cliWalk)) {
					var g, c string
					if i < len(goWalk) {
						g = goWalk[i]
					}
					if i < len(cliWalk) {
						c = cliWalk[i]
					}
					if g != c {
						t.Errorf("commit %d:\n go  %s\n cli %s", i, g, c)
					}
				}
			}
		})
	}
}
