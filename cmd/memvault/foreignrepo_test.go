package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Issue 13, finding 12: a `.memory` symbolic link committed in one
// repository and pointing into another sent that repository the writes.
// A vault that resolves into another repository is now refused by both
// doors, naming both; a link from outside any repository still works.
func TestVaultLinkedIntoAnotherRepositoryIsRefused(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	// other is the repository the link points into, with one memory.
	other := newCLIRepo(t)
	id := other.addMemory("Checkout uses the strategy pattern", "Promotions multiply.")
	otherHead, _ := other.head()
	otherFiles := other.vaultFiles()
	target, err := filepath.EvalSymlinks(other.dir)
	if err != nil {
		t.Fatal(err)
	}

	// project is a fresh clone-like repository whose .memory is a link.
	project := newCLIRepo(t)
	project.now = project.now.Add(time.Hour)
	if err := os.Symlink(other.dir, project.dir); err != nil {
		t.Fatal(err)
	}
	unchanged := func(what string) {
		t.Helper()
		if h, _ := other.head(); h != otherHead {
			t.Errorf("%s: the other repository's HEAD moved to %s", what, h)
		}
		if got := other.vaultFiles(); !slices.Equal(got, otherFiles) {
			t.Errorf("%s: the other vault holds %v, want %v", what, got, otherFiles)
		}
	}
	projectRoot, err := filepath.EvalSymlinks(project.root)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"add", "Payments retry twice", "--content", "Then give up."},
		{"update", id, "--content", "Promotions multiply fast."},
		{"forget", id, "--reason", "obsolete"},
	} {
		code, _ := project.run("", args...)
		if code != 1 {
			t.Errorf("%s through the link: exit %d, want 1", args[0], code)
		}
		msg := project.lastStderr
		for _, want := range []string{"another repository", project.dir, target} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the error does not name %q:\n%s", args[0], want, msg)
			}
		}
		if !strings.Contains(msg, project.root) && !strings.Contains(msg, projectRoot) {
			t.Errorf("%s: the error does not name the project repository %s:\n%s", args[0], project.root, msg)
		}
		unchanged(args[0])
	}

	t.Run("mcp", func(t *testing.T) {
		t.Parallel()
		bin := buildMemvault(t)
		// No --vault: serve finds .memory at the repository of its
		// working directory, as an assistant started in the project does.
		s, _ := spawn(t, bin, spawnOptions{dir: project.root, args: []string{"--no-user-vault"}})
		text := s.fails("remember", map[string]any{"title": "Payments retry twice", "content": "Then give up.", "reason": "incident"})
		if !strings.Contains(text, "another repository") {
			t.Errorf("remember: the tool error does not say why: %s", text)
		}
		unchanged("remember")
	})

	t.Run("link from outside any repository", func(t *testing.T) {
		t.Parallel()
		// A user vault such as ~/.memvault linked into a dotfiles
		// repository: its path is in no repository, so the link decides.
		home := t.TempDir()
		dotfiles := newCLIRepo(t)
		link := filepath.Join(home, ".memvault")
		if err := os.Symlink(dotfiles.dir, link); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dotfiles.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r := &cliRepo{t: t, root: dotfiles.root, dir: link, now: gitTestNow, home: home}
		r.addMemory("Tests use pytest", "Not unittest.", "--layer", "preference", "--scope", "project")
		if _, msg := dotfiles.head(); !strings.Contains(msg, "Tests use pytest") {
			t.Errorf("the dotfiles repository's HEAD is %q, want the new memory", msg)
		}
	})
}
