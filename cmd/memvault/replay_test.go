package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// TestSampleHistory replays the sample vault's history once, through the
// sample-history command, and runs the tests that need a past on it. They
// run in order: the read-only ones first, then those that commit.
func TestSampleHistory(t *testing.T) {
	isolateGit(t)
	root := filepath.Join(t.TempDir(), "shopflow")
	r := &cliRepo{t: t, root: root, dir: filepath.Join(root, sampleVaultDir), now: gitTestNow}
	sample := filepath.Join("..", "..", "sample-vault")
	if out := r.ok("sample-history", root, "--sample", sample); !strings.Contains(out, "HEAD ") {
		t.Errorf("sample-history printed %q", out)
	}
	t.Run("replay", func(t *testing.T) { testReplaySample(t, r, sample) })
	t.Run("why chain", func(t *testing.T) { testWhyChain(t, r) })
	t.Run("why rivals", func(t *testing.T) { testWhySampleRivals(t, r) })
	t.Run("recall as-of", func(t *testing.T) { testRecallAsOf(t, r) })
	t.Run("diff", func(t *testing.T) { testDiffSample(t, r) })
	t.Run("refuses a repository with commits", func(t *testing.T) {
		if code, _ := r.run("", "sample-history", root, "--sample", sample); code == 0 {
			t.Error("second replay into the same folder succeeded")
		}
		if err := replaySample(t.Context(), sample, r.root); err == nil {
			t.Error("replayed over existing history")
		}
	})
	t.Run("refuses a folder without history.json", func(t *testing.T) {
		if code, _ := r.run("", "sample-history", filepath.Join(t.TempDir(), "x"), "--sample", t.TempDir()); code == 0 {
			t.Error("replay of a folder without history.json succeeded")
		}
	})
}

// testReplaySample checks the replayed history against history.json; it
// runs before anything else commits.
func testReplaySample(t *testing.T, r *cliRepo, sample string) {
	steps, err := readSampleSteps(sample)
	if err != nil {
		t.Fatal(err)
	}
	s := r.store()
	ctx := t.Context()
	commits, err := s.History(ctx, r.root, gitstore.HistoryOptions{})
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
			if fcs, err := s.DiffTrees(ctx, c.Hash+"^", c.Hash, r.root); err != nil || len(fcs) != 1 || fcs[0].Path != want {
				t.Errorf("step %d: commit changed %v (%v), want only %s", i+1, fcs, err, want)
			}
			cm := commitmsg.Parse(c.Message)
			if reason := cm.Body; reason != strings.TrimSpace(st.Reason) || cm.Get(commitmsg.KeyClient) != st.Client {
				t.Errorf("step %d: reason %q client %q, want %q %q", i+1, reason, cm.Get(commitmsg.KeyClient), st.Reason, st.Client)
			}
			if c.Author.Name != sampleAuthorName {
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
		if out, ok := gitCLI(t, r.root, "status", "--porcelain"); ok && out != "" {
			t.Errorf("git status after the replay:\n%s", out)
		}
		if _, ok := gitCLI(t, r.root, "fsck", "--strict"); !ok {
			t.Log("git CLI not installed: fsck skipped")
		}
	})
}

func TestReadSampleStepsRejectsBadPaths(t *testing.T) {
	tests := []struct{ name, json string }{
		{"escapes the vault", `[{"path":"../x.md","when":"2026-01-01T00:00:00Z","client":"cli","reason":"r"}]`},
		{"not markdown", `[{"path":"project/x.txt","when":"2026-01-01T00:00:00Z","client":"cli","reason":"r"}]`},
		{"no time", `[{"path":"project/x.md","client":"cli","reason":"r"}]`},
		{"not json", `{`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "history.json"), []byte(tt.json), 0o644)
			if _, err := readSampleSteps(dir); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func FuzzReadSampleSteps(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "sample-vault", "history.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`[{"path":"project/x.md","when":"2026-01-01T00:00:00Z"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "history.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		steps, err := readSampleSteps(dir)
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
