package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	root, _ := newRepo(t)
	sub := filepath.Join(root, "a", "b")
	locateMkdir(t, sub)

	// A linked worktree, laid out as `git worktree add` does.
	wt := filepath.Join(t.TempDir(), "wt")
	wtGitDir := filepath.Join(root, ".git", "worktrees", "wt")
	locateMkdir(t, wt)
	locateMkdir(t, wtGitDir)
	writeFile(t, filepath.Join(wtGitDir, "HEAD"), "ref: refs/heads/wt\n")
	writeFile(t, filepath.Join(wtGitDir, "commondir"), "../..\n")
	writeFile(t, filepath.Join(wt, ".git"), "gitdir: "+wtGitDir+"\n")

	// A .git folder that is not a git directory is passed over, as git
	// does.
	fake := filepath.Join(root, "fake")
	locateMkdir(t, filepath.Join(fake, ".git"))

	tests := []struct {
		name, dir string
		want      Location
	}{
		{"the root", root, Location{root, filepath.Join(root, ".git"), filepath.Join(root, ".git")}},
		{"a folder below it", sub, Location{root, filepath.Join(root, ".git"), filepath.Join(root, ".git")}},
		{"a folder that does not exist yet", filepath.Join(sub, "later"), Location{root, filepath.Join(root, ".git"), filepath.Join(root, ".git")}},
		{"a linked worktree", wt, Location{wt, wtGitDir, filepath.Join(root, ".git")}},
		{"past a fake .git", fake, Location{root, filepath.Join(root, ".git"), filepath.Join(root, ".git")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Find(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Find(%s) = %+v, want %+v", tt.dir, got, tt.want)
			}
		})
	}

	t.Run("outside any repository", func(t *testing.T) {
		if _, err := Find(t.TempDir()); !errors.Is(err, ErrNotRepository) {
			t.Errorf("err = %v, want ErrNotRepository", err)
		}
	})
	t.Run("a gitdir file pointing nowhere", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, filepath.Join(d, ".git"), "gitdir: "+filepath.Join(d, "missing")+"\n")
		if _, err := Find(d); !errors.Is(err, ErrNotRepository) {
			t.Errorf("err = %v, want ErrNotRepository", err)
		}
	})
	t.Run("Open agrees", func(t *testing.T) {
		s, err := Open(t.Context(), wt)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Root() != wt || s.GitDir() != wtGitDir || s.CommonDir() != filepath.Join(root, ".git") {
			t.Errorf("Open: root %s, git dir %s, common dir %s", s.Root(), s.GitDir(), s.CommonDir())
		}
	})
}

func TestRel(t *testing.T) {
	root, s := newRepo(t)
	locateMkdir(t, filepath.Join(root, ".memory", "project"))
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	tests := []struct{ path, want string }{
		{root, ""},
		{filepath.Join(root, ".memory"), ".memory"},
		{filepath.Join(root, ".memory", "project", "not-yet.md"), ".memory/project/not-yet.md"},
		{filepath.Join(link, ".memory"), ".memory"},
		{filepath.Join(link, ".memory", "new", "folder"), ".memory/new/folder"},
		{".memory/project", ".memory/project"},
	}
	for _, tt := range tests {
		got, err := s.Rel(tt.path)
		if err != nil || got != tt.want {
			t.Errorf("Rel(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	for _, p := range []string{t.TempDir(), filepath.Join(root, ".git", "config"), "../x"} {
		if got, err := s.Rel(p); !errors.Is(err, ErrOutsideWorkTree) {
			t.Errorf("Rel(%s) = %q, %v; want ErrOutsideWorkTree", p, got, err)
		}
	}
}

func TestReadCommit(t *testing.T) {
	root, s := newRepo(t)
	if _, err := s.ReadCommit(t.Context(), "HEAD"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadCommit on an unborn branch: %v, want ErrNotFound", err)
	}
	first := commitFiles(t, s, "first\n\nwhy\n", map[string]string{"a.txt": "1"})
	second := commitFiles(t, s, "second\n", map[string]string{"a.txt": "2"})
	for _, tt := range []struct {
		rev, hash, subject string
	}{{"HEAD", second.Hash, "second"}, {"HEAD~1", first.Hash, "first"}, {first.Hash[:10], first.Hash, "first"}} {
		ci, err := s.ReadCommit(t.Context(), tt.rev)
		if err != nil {
			t.Fatal(err)
		}
		if ci.Hash != tt.hash || !strings.HasPrefix(ci.Message, tt.subject+"\n") || ci.Path != "" {
			t.Errorf("ReadCommit(%s) = %+v, want %s %q", tt.rev, ci, tt.hash, tt.subject)
		}
		cs, err := s.History(t.Context(), root, HistoryOptions{Rev: tt.hash, Limit: 1})
		if err != nil || len(cs) != 1 {
			t.Fatal(cs, err)
		}
		if h := cs[0]; ci.Author != h.Author || !ci.When.Equal(h.When) || ci.Committer != h.Committer || !ci.CommitTime.Equal(h.CommitTime) {
			t.Errorf("ReadCommit(%s) = %+v, History says %+v", tt.rev, ci, h)
		}
	}
	if _, err := s.ReadCommit(t.Context(), "nosuchrev"); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadCommit(nosuchrev): %v, want ErrNotFound", err)
	}
}

func locateMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
