package samplehistory

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/store"
)

// sample is the project's sample vault.
var sample = filepath.Join("..", "..", "..", "..", "sample-vault")

// TestReplay checks a replayed history against history.json.
func TestReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	steps, err := ReadSteps(sample)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "shopflow")
	ctx := t.Context()
	s, commits := replayed(t, root)
	if got, want := len(commits), len(steps)+1; got != want {
		t.Fatalf("%d commits, want %d (the scaffolding plus one per step)", got, want)
	}
	if c := commits[len(commits)-1]; !c.When.Equal(steps[0].When.Add(-time.Minute)) || !strings.HasPrefix(c.Message, "memory: start") {
		t.Errorf("first commit %q at %s", c.Message, c.When)
	}

	t.Run("one commit per step, dated and signed as the step", func(t *testing.T) {
		for i, st := range steps {
			c := commits[len(steps)-1-i] // newest first
			if !c.When.Equal(st.When) || !c.CommitTime.Equal(st.When) {
				t.Errorf("step %d (%s): commit dated %s / %s, want %s", i+1, st.Path, c.When, c.CommitTime, st.When)
			}
			if c.Author.Name != authorName {
				t.Errorf("step %d: author %q", i+1, c.Author.Name)
			}
			if st.Code != nil {
				checkCodeCommit(t, s, c, i, st)
				continue
			}
			if !strings.HasPrefix(c.Message, "memory(") {
				t.Errorf("step %d: subject %q", i+1, c.Message)
			}
			want := ".memory/" + st.Path
			fcs, err := s.DiffTrees(ctx, c.Hash+"^", c.Hash, root)
			if err != nil || len(fcs) != 1 || fcs[0].Path != want {
				t.Fatalf("step %d: commit changed %v (%v), want only %s", i+1, fcs, err, want)
			}
			cm := commitmsg.Parse(c.Message)
			if reason := cm.Body; reason != strings.TrimSpace(st.Reason) || cm.Get(commitmsg.KeyClient) != st.Client {
				t.Errorf("step %d: reason %q client %q, want %q %q", i+1, reason, cm.Get(commitmsg.KeyClient), st.Reason, st.Client)
			}
			var data []byte
			if st.Delete {
				if fcs[0].Kind != filechange.Deleted {
					t.Errorf("step %d: %s %s, want deleted", i+1, want, fcs[0].Kind)
				}
				data = []byte(*st.Text)
			} else if data, err = s.ReadFile(ctx, c.Hash, want); err != nil {
				t.Fatal(err)
			}
			if m, _ := vault.ParseMemory(st.Path, data, st.When); m == nil || cm.Get(commitmsg.KeyID) != m.ID {
				t.Errorf("step %d: Memory-Id trailer %q does not name the file's memory", i+1, cm.Get(commitmsg.KeyID))
			}
		}
	})

	t.Run("HEAD holds the sample's files", func(t *testing.T) {
		want := map[string]string{}
		err := filepath.WalkDir(sample, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == store.DirName {
				// The index cache the README's first command leaves in
				// the sample (ignored by git): not a file of the vault.
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(sample, p)
			if rel == "history.json" {
				return nil
			}
			data, err := os.ReadFile(p)
			want[filepath.ToSlash(rel)] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		if err := s.WalkTree(ctx, "HEAD", ".memory", func(p string, data []byte) error {
			got[strings.TrimPrefix(p, ".memory/")] = string(data)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for p, w := range want {
			if got[p] != w {
				t.Errorf("%s at HEAD differs from the sample", p)
			}
		}
		if len(got) != len(want) {
			t.Errorf("HEAD has %d files under .memory, the sample %d", len(got), len(want))
		}
	})

	t.Run("git agrees", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git CLI not installed")
		}
		// The machine's git config stays out: status and fsck need none.
		for _, args := range [][]string{{"status", "--porcelain"}, {"fsck", "--strict"}} {
			cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
			if out, err := cmd.CombinedOutput(); err != nil || (args[0] == "status" && len(out) > 0) {
				t.Errorf("git %s after the replay: %v\n%s", args[0], err, out)
			}
		}
	})

	t.Run("a relative folder is the working directory's", func(t *testing.T) {
		rel, err := filepath.Rel(mustGetwd(t), filepath.Join(t.TempDir(), "relative"))
		if err != nil {
			t.Skip("the temporary folder has no path relative to the working directory")
		}
		if _, cs := replayed(t, rel); len(cs) != len(steps)+1 {
			t.Errorf("%d commits, want %d", len(cs), len(steps)+1)
		}
	})

	t.Run("refuses a repository with commits", func(t *testing.T) {
		if err := Replay(ctx, sample, root); err == nil {
			t.Error("replayed over existing history")
		}
	})
}

// checkCodeCommit checks that the commit of code step i changed exactly
// the step's files, to the step's content, with the step's message.
func checkCodeCommit(t *testing.T, s *gitstore.Store, c gitstore.CommitInfo, i int, st Step) {
	t.Helper()
	ctx := t.Context()
	if strings.TrimSpace(c.Message) != strings.TrimSpace(st.Code.Message) {
		t.Errorf("step %d: message %q, want %q", i+1, c.Message, st.Code.Message)
	}
	fcs, err := s.DiffTrees(ctx, c.Hash+"^", c.Hash, s.Root())
	if err != nil {
		t.Fatal(err)
	}
	changed, n := map[string]bool{}, 0 // a rename is one change of two paths
	for _, fc := range fcs {
		changed[fc.Path] = true
		n++
		if fc.OldPath != "" && fc.OldPath != fc.Path {
			changed[fc.OldPath] = true
			n++
		}
	}
	for p, text := range st.Code.Files {
		if !changed[p] {
			t.Errorf("step %d: %s not changed by the commit", i+1, p)
		}
		data, err := s.ReadFile(ctx, c.Hash, p)
		switch {
		case text == nil && err == nil:
			t.Errorf("step %d: %s still exists", i+1, p)
		case text != nil && (err != nil || string(data) != *text):
			t.Errorf("step %d: %s at the commit differs from the step (%v)", i+1, p, err)
		}
	}
	if n != len(st.Code.Files) {
		t.Errorf("step %d: commit changed %d paths, the step %d", i+1, n, len(st.Code.Files))
	}
}

// replayed replays the sample into dir and returns its repository, open
// until the test ends, and its commits, newest first.
func replayed(t *testing.T, dir string) (*gitstore.Store, []gitstore.CommitInfo) {
	t.Helper()
	if err := Replay(t.Context(), sample, dir); err != nil {
		t.Fatal(err)
	}
	s, err := gitstore.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	commits, err := s.History(t.Context(), s.Root(), gitstore.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, commits
}

func mustGetwd(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func TestReadStepsRejectsBadPaths(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, json string }{
		{"escapes the vault", `[{"path":"../x.md","when":"2026-01-01T00:00:00Z","client":"cli","reason":"r"}]`},
		{"not markdown", `[{"path":"project/x.txt","when":"2026-01-01T00:00:00Z","client":"cli","reason":"r"}]`},
		{"no time", `[{"path":"project/x.md","client":"cli","reason":"r"}]`},
		{"not json", `{`},
		{"code inside the vault", `[{"when":"2026-01-01T00:00:00Z","code":{"message":"m","files":{".memory/x.md":"x"}}}]`},
		{"code outside the repository", `[{"when":"2026-01-01T00:00:00Z","code":{"message":"m","files":{"../x.go":"x"}}}]`},
		{"code without a message", `[{"when":"2026-01-01T00:00:00Z","code":{"files":{"x.go":"x"}}}]`},
		{"code with a memory path", `[{"path":"project/x.md","when":"2026-01-01T00:00:00Z","code":{"message":"m","files":{"x.go":"x"}}}]`},
		{"deletion without the memory", `[{"path":"project/x.md","when":"2026-01-01T00:00:00Z","delete":true}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "history.json"), []byte(tt.json), 0o644)
			if _, err := ReadSteps(dir); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func FuzzReadSteps(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join(sample, "history.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`[{"path":"project/x.md","when":"2026-01-01T00:00:00Z"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "history.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		steps, err := ReadSteps(dir)
		if err != nil {
			return
		}
		for i, s := range steps {
			if s.Code != nil {
				for p := range s.Code.Files {
					if !filepath.IsLocal(p) || strings.HasPrefix(p, VaultDir+"/") {
						t.Errorf("accepted code path %q", p)
					}
				}
			} else if !vault.IsMemoryPath(s.Path) || !filepath.IsLocal(s.Path) {
				t.Errorf("accepted path %q", s.Path)
			}
			if i > 0 && s.When.Before(steps[i-1].When) {
				t.Errorf("steps out of time order")
			}
		}
	})
}
