package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/load"
)

// detach points HEAD at its commit instead of the branch, as
// `git checkout --detach` does.
func (r *cliRepo) detach() string {
	r.t.Helper()
	h, _ := r.head()
	if err := os.WriteFile(filepath.Join(r.root, ".git", "HEAD"), []byte(h+"\n"), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return h
}

// vaultFiles lists the files under the vault folder.
func (r *cliRepo) vaultFiles() []string {
	r.t.Helper()
	var out []string
	err := filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == load.CacheDirName {
			// The index cache is derived state any load may write, as
			// git status refreshes git's index.
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(r.dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

// Issue 13, finding 11: a write on a detached HEAD returned plain success
// to MCP (the CLI only logged a warning), and after `git checkout main`
// the memory was a dangling commit. Both doors now refuse it unless
// --allow-detached is given.
func TestWriteOnDetachedHeadIsRefused(t *testing.T) {
	t.Parallel()
	t.Run("cli", func(t *testing.T) {
		t.Parallel()
		r := newCLIRepo(t)
		id := r.addMemory("Checkout uses the strategy pattern", "Promotions multiply.")
		head := r.detach()
		files := r.vaultFiles()
		for _, args := range [][]string{
			{"add", "Payments retry twice", "--content", "Then give up."},
			{"update", id, "--content", "Promotions multiply fast."},
			{"forget", id, "--reason", "obsolete"},
		} {
			code, _ := r.run("", args...)
			if code != 1 {
				t.Errorf("%s on a detached HEAD: exit %d, want 1", args[0], code)
			}
			for _, want := range []string{"HEAD is detached", "--allow-detached", "git switch"} {
				if !strings.Contains(r.lastStderr, want) {
					t.Errorf("%s: stderr does not say %q:\n%s", args[0], want, r.lastStderr)
				}
			}
			if h, _ := r.head(); h != head {
				t.Errorf("%s: HEAD moved to %s", args[0], h)
			}
			if got := r.vaultFiles(); strings.Join(got, " ") != strings.Join(files, " ") {
				t.Errorf("%s: vault files %v, want %v as before", args[0], got, files)
			}
		}
		// A transient memory is never committed: HEAD does not matter.
		r.ok("add", "Scratch note", "--content", "x", "--layer", "transient")
		r.tick(time.Minute)
		r.ok("--allow-detached", "add", "Payments retry twice", "--content", "Then give up.")
		if h, msg := r.head(); h == head || !strings.Contains(msg, "Payments retry twice") {
			t.Errorf("--allow-detached: HEAD %s %q, want a new commit", h, msg)
		}
	})
	t.Run("mcp", func(t *testing.T) {
		t.Parallel()
		r := newCLIRepo(t)
		r.addMemory("Checkout uses the strategy pattern", "Promotions multiply.")
		head := r.detach()
		clock := &testClock{now: gitTestNow.Add(time.Hour)}
		s := &mcpSession{t: t, c: serveInProcess(t, clock.Now, "--vault", r.dir)}
		text := s.fails("remember", map[string]any{"title": "Payments retry twice", "content": "Then give up.", "reason": "incident"})
		for _, want := range []string{"HEAD is detached", "--allow-detached"} {
			if !strings.Contains(text, want) {
				t.Errorf("remember: the tool error does not say %q: %s", want, text)
			}
		}
		if h, _ := r.head(); h != head {
			t.Errorf("remember: HEAD moved to %s", h)
		}
		allowed := &mcpSession{t: t, c: serveInProcess(t, clock.Now, "--allow-detached", "--vault", r.dir)}
		allowed.ok("remember", map[string]any{"title": "Payments retry twice", "content": "Then give up.", "reason": "incident"}, nil)
		if h, _ := r.head(); h == head {
			t.Errorf("serve --allow-detached: HEAD did not move")
		}
	})
}
