package samplehistory

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// sample is the project's sample vault.
var sample = filepath.Join("..", "..", "..", "..", "sample-vault")

// TestReplay checks a replayed history against history.json.
func TestReplay(t *testing.T) {
	t.Parallel()
	steps, err := ReadSteps(sample)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "shopflow")
	ctx := t.Context()
	if err := Replay(ctx, sample, root); err != nil {
		t.Fatal(err)
	}
	s, err := gitstore.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	commits, err := s.History(ctx, root, gitstore.HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
			if !strings.HasPrefix(c.Message, "memory(") {
				t.Errorf("step %d: subject %q", i+1, c.Message)
			}
			want := ".memory/" + st.Path
			if fcs, err := s.DiffTrees(ctx, c.Hash+"^", c.Hash, root); err != nil || len(fcs) != 1 || fcs[0].Path != want {
				t.Errorf("step %d: commit changed %v (%v), want only %s", i+1, fcs, err, want)
			}
			cm := commitmsg.Parse(c.Message)
			if reason := cm.Body; reason != strings.TrimSpace(st.Reason) || cm.Get(commitmsg.KeyClient) != st.Client {
				t.Errorf("step %d: reason %q client %q, want %q %q", i+1, reason, cm.Get(commitmsg.KeyClient), st.Reason, st.Client)
			}
			if c.Author.Name != authorName {
				t.Errorf("step %d: author %q", i+1, c.Author.Name)
			}
			data, err := s.ReadFile(ctx, c.Hash, want)
			if err != nil {
				t.Fatal(err)
			}
			if m, _ := vault.ParseMemory(st.Path, data, st.When); m == nil || cm.Get(commitmsg.KeyID) != m.ID {
				t.Errorf("step %d: Memory-Id trailer %q does not name the file's memory", i+1, cm.Get(commitmsg.KeyID))
			}
		}
	})

	t.Run("HEAD holds the sample's files", func(t *testing.T) {
		want := map[string]string{}
		filepath.WalkDir(sample, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(sample, p)
			if rel != "history.json" {
				want[filepath.ToSlash(rel)] = readFile(t, p)
			}
			return nil
		})
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
		if out, ok := gitCLI(t, root, "status", "--porcelain"); ok && out != "" {
			t.Errorf("git status after the replay:\n%s", out)
		}
		if _, ok := gitCLI(t, root, "fsck", "--strict"); !ok {
			t.Log("git CLI not installed: fsck skipped")
		}
	})

	t.Run("a relative folder is the working directory's", func(t *testing.T) {
		rel, err := filepath.Rel(mustGetwd(t), filepath.Join(t.TempDir(), "relative"))
		if err != nil {
			t.Skip("the temporary folder has no path relative to the working directory")
		}
		if err := Replay(ctx, sample, rel); err != nil {
			t.Fatal(err)
		}
		s, err := gitstore.Open(ctx, rel)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if cs, err := s.History(ctx, filepath.Join(s.Root(), VaultDir), gitstore.HistoryOptions{}); err != nil || len(cs) != len(steps)+1 {
			t.Errorf("%d commits (%v), want %d", len(cs), err, len(steps)+1)
		}
	})

	t.Run("refuses a repository with commits", func(t *testing.T) {
		if err := Replay(ctx, sample, root); err == nil {
			t.Error("replayed over existing history")
		}
	})
}

func mustGetwd(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gitCLI runs the git command in dir, or reports false when git is not
// installed so the caller skips only that check. The git config of the
// machine stays out: git status and fsck need no identity.
func gitCLI(t testing.TB, dir string, args ...string) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return "", false
	}
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), true
}

func TestReadStepsRejectsBadPaths(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, json string }{
		{"escapes the vault", `[{"path":"../x.md","when":"2026-01-01T00:00:00Z","client":"cli","reason":"r"}]`},
		{"not markdown", `[{"path":"project/x.txt","when":"2026-01-01T00:00:00Z","client":"cli","reason":"r"}]`},
		{"no time", `[{"path":"project/x.md","client":"cli","reason":"r"}]`},
		{"not json", `{`},
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
			if !vault.IsMemoryPath(s.Path) || !filepath.IsLocal(s.Path) {
				t.Errorf("accepted path %q", s.Path)
			}
			if i > 0 && s.When.Before(steps[i-1].When) {
				t.Errorf("steps out of time order")
			}
		}
	})
}
