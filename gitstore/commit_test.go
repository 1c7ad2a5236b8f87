package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/filechange"
)

func TestCommitChangesExactlyTheGivenPaths(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	t0 := time.Date(2025, 10, 1, 9, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	s.Now = clock(t0)
	first := commitFiles(t, s, "seed", map[string]string{
		"README.md":            "readme\n",
		"src/main.go":          "package main\n",
		".memory/project/a.md": "alpha\n",
		".memory/project/b.md": "beta\n",
	})
	if !first.Unborn || first.Branch != "master" || first.Detached {
		t.Fatalf("first commit result = %+v, want unborn on master", first)
	}
	writeFile(t, filepath.Join(dir, "src/main.go"), "package main // edited, not committed\n")
	writeFile(t, filepath.Join(dir, ".memory/project/a.md"), "alpha v2\n")
	writeFile(t, filepath.Join(dir, ".memory/project/deep/new/c.md"), "gamma\n")
	os.Remove(filepath.Join(dir, ".memory/project/b.md"))

	msg := "Update memories\n\nWhy: testing.\n\nMemory-Id: 01ABC\n"
	res, err := s.Commit(t.Context(), Change{
		Paths: []string{
			filepath.Join(dir, ".memory/project/a.md"),
			".memory/project/deep/new/c.md", // repository-relative works too
			filepath.Join(dir, ".memory/project/b.md"),
		},
		Message: msg,
		Author:  &Signature{Name: "Grace Hopper", Email: "grace@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unborn || res.Branch != "master" || res.Detached {
		t.Errorf("result = %+v, want a normal commit on master", res)
	}
	c, err := s.getCommit(plumbing.NewHash(res.Hash))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.ParentHashes, []plumbing.Hash{plumbing.NewHash(first.Hash)}; !slices.Equal(got, want) {
		t.Errorf("parents = %v, want %v", got, want)
	}
	if c.Message != msg {
		t.Errorf("message = %q, want %q", c.Message, msg)
	}
	if c.Author.Name != "Grace Hopper" || c.Author.Email != "grace@example.com" {
		t.Errorf("author = %s <%s>", c.Author.Name, c.Author.Email)
	}
	if c.Committer.Name != "memvault" || c.Committer.Email != "grace@example.com" {
		t.Errorf("committer = %s <%s>, want memvault <grace@example.com>", c.Committer.Name, c.Committer.Email)
	}
	if want := t0.Add(2 * time.Minute); !c.Author.When.Equal(want) || !c.Committer.When.Equal(want) {
		t.Errorf("times = %v / %v, want %v", c.Author.When, c.Committer.When, want)
	}
	changes, err := s.DiffTrees(t.Context(), first.Hash, res.Hash, "")
	if err != nil {
		t.Fatal(err)
	}
	got := summarize(changes)
	want := []string{
		"modified .memory/project/a.md",
		"deleted .memory/project/b.md",
		"added .memory/project/deep/new/c.md",
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if gitPath() == "" {
		return
	}
	runGit(t, dir, "fsck", "--strict", "--no-progress")
	if got, want := runGit(t, dir, "status", "--porcelain"), " M src/main.go\n"; got != want {
		t.Errorf("git status = %q, want %q", got, want)
	}
	if got := runGit(t, dir, "log", "--format=%an|%ae|%cn|%ce", "-1"); got != "Grace Hopper|grace@example.com|memvault|grace@example.com\n" {
		t.Errorf("git log = %q", got)
	}
	if got := runGit(t, dir, "reflog", "-1", "--format=%gs"); !strings.HasPrefix(got, "commit: Update memories") {
		t.Errorf("reflog = %q", got)
	}
}

func summarize(cs []FileChange) []string {
	var out []string
	for _, c := range cs {
		s := c.Kind.String() + " " + c.Path
		if c.Kind == filechange.Renamed {
			s += " <- " + c.OldPath
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// TestCommitKeepsUserWork checks that staged and unstaged work of the user,
// inside and outside the memory folder, survives a memvault commit exactly,
// and that the user's next plain `git commit` contains only their staged
// work.
func TestCommitKeepsUserWork(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	dir, s := newRepo(t)
	seed := map[string]string{
		".memory/project/mine.md":   "memvault's memory\n",
		".memory/project/staged.md": "user will stage a change here\n",
		".memory/project/edited.md": "user will edit this without staging\n",
		"docs/staged.txt":           "user will stage this\n",
		"docs/edited.txt":           "user will edit this\n",
		"top.txt":                   "top\n",
	}
	commitFiles(t, s, "seed", seed)
	if gitPath() != "" {
		// A CLI commit writes a full cache-tree (TREE) into the index, which
		// memvault must invalidate correctly.
		writeFile(t, filepath.Join(dir, "top.txt"), "top v2\n")
		runGit(t, dir, "commit", "-q", "-am", "user commit")
	}
	writeFile(t, filepath.Join(dir, ".memory/project/staged.md"), "staged by the user\n")
	writeFile(t, filepath.Join(dir, "docs/staged.txt"), "staged outside\n")
	writeFile(t, filepath.Join(dir, ".memory/project/new-staged.md"), "a new staged file\n")
	stage(t, dir, ".memory/project/staged.md", "docs/staged.txt", ".memory/project/new-staged.md")
	writeFile(t, filepath.Join(dir, ".memory/project/staged.md"), "staged, then edited again\n")
	writeFile(t, filepath.Join(dir, ".memory/project/edited.md"), "unstaged edit\n")
	writeFile(t, filepath.Join(dir, "docs/edited.txt"), "unstaged edit outside\n")
	writeFile(t, filepath.Join(dir, "untracked.txt"), "untracked\n")

	// The vault's write.
	writeFile(t, filepath.Join(dir, ".memory/project/mine.md"), "memvault's memory, v2\n")
	beforeIndex := indexEntries(t, dir)
	var beforeStatus, beforeCached, beforeWorktree string
	if gitPath() != "" {
		beforeStatus = runGit(t, dir, "status", "--porcelain")
		beforeCached = runGit(t, dir, "diff", "--cached", "--", ":!.memory/project/mine.md")
		beforeWorktree = runGit(t, dir, "diff", "--", ":!.memory/project/mine.md")
	}
	res, err := s.Commit(t.Context(), Change{Paths: []string{filepath.Join(dir, ".memory/project/mine.md")}, Message: "Remember v2", Author: testAuthor})
	if err != nil {
		t.Fatal(err)
	}

	// Every other index entry is byte for byte what it was.
	afterIndex := indexEntries(t, dir)
	for name, e := range beforeIndex {
		if name == ".memory/project/mine.md" {
			continue
		}
		if !bytes.Equal(afterIndex[name], e) {
			t.Errorf("index entry %s changed", name)
		}
	}
	if len(afterIndex) != len(beforeIndex) {
		t.Errorf("index has %d entries, want %d", len(afterIndex), len(beforeIndex))
	}
	got, err := s.DiffTrees(t.Context(), res.Hash+"~1", res.Hash, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"modified .memory/project/mine.md"}, summarize(got)); diff != "" {
		t.Errorf("commit changes (-want +got):\n%s", diff)
	}
	if gitPath() == "" {
		return
	}
	wantStatus := strings.ReplaceAll(beforeStatus, " M .memory/project/mine.md\n", "")
	if got := runGit(t, dir, "status", "--porcelain"); got != wantStatus {
		t.Errorf("git status after:\n%s\nwant:\n%s", got, wantStatus)
	}
	if got := runGit(t, dir, "diff", "--cached"); got != beforeCached {
		t.Errorf("staged diff changed:\n%s\nwant:\n%s", got, beforeCached)
	}
	if got := runGit(t, dir, "diff"); got != beforeWorktree {
		t.Errorf("unstaged diff changed:\n%s\nwant:\n%s", got, beforeWorktree)
	}
	runGit(t, dir, "fsck", "--strict", "--no-progress")
	checkCacheTree(t, dir)

	// The user's own commit contains their staged work only.
	runGit(t, dir, "commit", "-q", "-m", "user's staged work")
	files := runGit(t, dir, "diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD")
	wantFiles := "M\t.memory/project/staged.md\nA\t.memory/project/new-staged.md\nM\tdocs/staged.txt\n"
	if sortLines(files) != sortLines(wantFiles) {
		t.Errorf("user's commit has:\n%s\nwant:\n%s", files, wantFiles)
	}
	if got := runGit(t, dir, "show", "HEAD:.memory/project/staged.md"); got != "staged by the user\n" {
		t.Errorf("user's commit has staged.md = %q", got)
	}
	if got := runGit(t, dir, "rev-parse", "HEAD~1"); strings.TrimSpace(got) != res.Hash {
		t.Errorf("user's commit parent = %s, want memvault's %s", got, res.Hash)
	}
	status := runGit(t, dir, "status", "--porcelain")
	wantAfter := " M .memory/project/edited.md\n M .memory/project/staged.md\n M docs/edited.txt\n?? untracked.txt\n"
	if sortLines(status) != sortLines(wantAfter) {
		t.Errorf("status after user's commit:\n%s\nwant:\n%s", status, wantAfter)
	}
	runGit(t, dir, "fsck", "--strict", "--no-progress")
}

func sortLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// indexEntries returns each stage-0 index entry's bytes by path.
func indexEntries(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	ix, err := decodeIndex(readFile(t, filepath.Join(dir, ".git", "index")))
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string][]byte)
	for _, e := range ix.entries {
		m[e.name] = e.head
	}
	return m
}

// checkCacheTree verifies that the index's cache-tree is consistent: the
// tree git writes from our index equals the tree written from the same
// entries without any cache.
func checkCacheTree(t *testing.T, dir string) {
	t.Helper()
	withCache := runGit(t, dir, "write-tree")
	entries := runGit(t, dir, "ls-files", "-s")
	tmp := filepath.Join(t.TempDir(), "index")
	cmd := []string{"GIT_INDEX_FILE=" + tmp}
	if _, err := gitOutputStdin(dir, cmd, entries, "update-index", "--index-info"); err != nil {
		t.Fatal(err)
	}
	fresh, err := gitOutput(dir, cmd, "write-tree")
	if err != nil {
		t.Fatal(err)
	}
	if withCache != fresh {
		t.Errorf("git write-tree with memvault's cache-tree = %s, from scratch = %s", withCache, fresh)
	}
}

func TestCommitRepositoryStates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	markers := []struct {
		name, path string
		dir        bool
		op         string
	}{
		{"merge", "MERGE_HEAD", false, "merge"},
		{"rebase", "rebase-merge", true, "rebase"},
		{"rebase-apply", "rebase-apply", true, "rebase"},
		{"cherry-pick", "CHERRY_PICK_HEAD", false, "cherry-pick"},
		{"revert", "REVERT_HEAD", false, "revert"},
		{"bisect", "BISECT_LOG", false, "bisect"},
	}
	for _, m := range markers {
		t.Run(m.name, func(t *testing.T) {
			dir, s := newRepo(t)
			first := commitFiles(t, s, "seed", map[string]string{"m/a.md": "a\n"})
			marker := filepath.Join(dir, ".git", m.path)
			if m.dir {
				if err := os.Mkdir(marker, 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(t, marker, first.Hash+"\n")
			}
			st, err := s.State(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if st.Operation != m.op {
				t.Errorf("State().Operation = %q, want %q", st.Operation, m.op)
			}
			writeFile(t, filepath.Join(dir, "m/a.md"), "a2\n")
			indexBefore := readFile(t, filepath.Join(dir, ".git/index"))
			_, err = s.Commit(t.Context(), Change{Paths: []string{filepath.Join(dir, "m/a.md")}, Message: "x", Author: testAuthor})
			if !errors.Is(err, ErrOperationInProgress) || !strings.Contains(err.Error(), m.op) {
				t.Fatalf("Commit err = %v, want ErrOperationInProgress naming %s", err, m.op)
			}
			if h, _ := s.Resolve(t.Context(), ""); h != first.Hash {
				t.Errorf("HEAD moved to %s", h)
			}
			if !bytes.Equal(readFile(t, filepath.Join(dir, ".git/index")), indexBefore) {
				t.Error("index changed")
			}
		})
	}

	t.Run("unborn", func(t *testing.T) {
		dir, s := newRepo(t)
		st, err := s.State(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !st.Unborn || st.Branch != "master" || st.Head != "" {
			t.Errorf("State = %+v, want unborn master", st)
		}
		if _, err := s.Resolve(t.Context(), "HEAD"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(HEAD) on unborn = %v, want ErrNotFound", err)
		}
		res := commitFiles(t, s, "first", map[string]string{"a/b/c.md": "c\n"})
		if !res.Unborn {
			t.Errorf("Unborn = false for the first commit")
		}
		c, _ := s.getCommit(plumbing.NewHash(res.Hash))
		if len(c.ParentHashes) != 0 {
			t.Errorf("first commit has parents %v", c.ParentHashes)
		}
		if gitPath() != "" {
			runGit(t, dir, "fsck", "--strict", "--no-progress")
			if got := runGit(t, dir, "status", "--porcelain"); got != "" {
				t.Errorf("git status = %q", got)
			}
			if got := runGit(t, dir, "reflog", "--format=%gs"); got != "commit (initial): first\n" {
				t.Errorf("reflog = %q", got)
			}
		}
	})

	t.Run("detached", func(t *testing.T) {
		dir, s := newRepo(t)
		first := commitFiles(t, s, "one", map[string]string{"a.md": "1\n"})
		commitFiles(t, s, "two", map[string]string{"a.md": "2\n"})
		writeFile(t, filepath.Join(dir, ".git/HEAD"), first.Hash+"\n")
		writeFile(t, filepath.Join(dir, "a.md"), "1\n")
		res := commitFiles(t, s, "three", map[string]string{"b.md": "b\n"})
		if !res.Detached || res.Branch != "" {
			t.Errorf("result = %+v, want detached", res)
		}
		if got := strings.TrimSpace(string(readFile(t, filepath.Join(dir, ".git/HEAD")))); got != res.Hash {
			t.Errorf("HEAD = %s, want %s", got, res.Hash)
		}
		master, err := s.Resolve(t.Context(), "master")
		if err != nil {
			t.Fatal(err)
		}
		if master == res.Hash || master == first.Hash {
			t.Errorf("master moved to %s", master)
		}
		c, _ := s.getCommit(plumbing.NewHash(res.Hash))
		if c.ParentHashes[0].String() != first.Hash {
			t.Errorf("parent = %s, want %s", c.ParentHashes[0], first.Hash)
		}
	})

	t.Run("index locked", func(t *testing.T) {
		dir, s := newRepo(t)
		first := commitFiles(t, s, "seed", map[string]string{"a.md": "a\n"})
		s.IndexLockTimeout = 30 * time.Millisecond
		lock := filepath.Join(dir, ".git/index.lock")
		writeFile(t, lock, "someone else's")
		st, _ := s.State(t.Context())
		if !st.IndexLocked {
			t.Error("State().IndexLocked = false")
		}
		writeFile(t, filepath.Join(dir, "a.md"), "a2\n")
		_, err := s.Commit(t.Context(), Change{Paths: []string{"a.md"}, Message: "x", Author: testAuthor})
		if !errors.Is(err, ErrIndexLocked) {
			t.Fatalf("err = %v, want ErrIndexLocked", err)
		}
		if got := string(readFile(t, lock)); got != "someone else's" {
			t.Errorf("lock file = %q, must be left alone", got)
		}
		if h, _ := s.Resolve(t.Context(), ""); h != first.Hash {
			t.Errorf("HEAD moved")
		}
		os.Remove(lock)
		if _, err := s.Commit(t.Context(), Change{Paths: []string{"a.md"}, Message: "x", Author: testAuthor}); err != nil {
			t.Errorf("after the lock is gone: %v", err)
		}
	})

	t.Run("no change", func(t *testing.T) {
		dir, s := newRepo(t)
		first := commitFiles(t, s, "seed", map[string]string{"a.md": "a\n", "b.md": "b\n"})
		indexBefore := readFile(t, filepath.Join(dir, ".git/index"))
		for _, paths := range [][]string{{"a.md"}, {"a.md", "b.md"}, {"missing.md"}} {
			_, err := s.Commit(t.Context(), Change{Paths: paths, Message: "x", Author: testAuthor})
			if !errors.Is(err, ErrNoChange) {
				t.Errorf("Commit(%v) err = %v, want ErrNoChange", paths, err)
			}
		}
		if h, _ := s.Resolve(t.Context(), ""); h != first.Hash {
			t.Errorf("HEAD moved")
		}
		if !bytes.Equal(readFile(t, filepath.Join(dir, ".git/index")), indexBefore) {
			t.Error("index changed")
		}
		if _, err := os.Stat(filepath.Join(dir, ".git/index.lock")); err == nil {
			t.Error("index.lock left behind")
		}
	})

	t.Run("delete and recreate folders", func(t *testing.T) {
		dir, s := newRepo(t)
		commitFiles(t, s, "seed", map[string]string{"m/x/only.md": "x\n", "keep.md": "k\n"})
		res := commitFiles(t, s, "delete", map[string]string{"m/x/only.md": ""})
		if _, err := s.ReadFile(t.Context(), res.Hash, "m/x/only.md"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted file still there: %v", err)
		}
		root, _ := s.resolveTree(res.Hash)
		if _, ok, _ := s.lookupPath(root, "m"); ok {
			t.Error("empty folder m left in the tree")
		}
		res = commitFiles(t, s, "new folder", map[string]string{"brand/new/deep/file.md": "f\n"})
		if got, err := s.ReadFile(t.Context(), res.Hash, "brand/new/deep/file.md"); err != nil || string(got) != "f\n" {
			t.Errorf("ReadFile = %q, %v", got, err)
		}
		if gitPath() != "" {
			runGit(t, dir, "fsck", "--strict", "--no-progress")
			if got := runGit(t, dir, "status", "--porcelain"); got != "" {
				t.Errorf("git status = %q", got)
			}
		}
	})

	t.Run("file becomes folder", func(t *testing.T) {
		dir, s := newRepo(t)
		commitFiles(t, s, "seed", map[string]string{"x": "file\n"})
		os.Remove(filepath.Join(dir, "x"))
		res := commitFiles(t, s, "folder", map[string]string{"x/y.md": "y\n"})
		if _, err := s.ReadFile(t.Context(), res.Hash, "x/y.md"); err != nil {
			t.Error(err)
		}
		if gitPath() != "" {
			runGit(t, dir, "fsck", "--strict", "--no-progress")
			if got := runGit(t, dir, "status", "--porcelain"); got != "" {
				t.Errorf("git status = %q", got)
			}
		}
	})

	t.Run("bad paths", func(t *testing.T) {
		dir, s := newRepo(t)
		outside := filepath.Join(t.TempDir(), "x.md")
		writeFile(t, outside, "x")
		for _, p := range []string{outside, "../x.md", filepath.Join(dir, ".git", "config"), ".git/HEAD", dir} {
			_, err := s.Commit(t.Context(), Change{Paths: []string{p}, Message: "x", Author: testAuthor})
			if !errors.Is(err, ErrOutsideWorkTree) {
				t.Errorf("Commit(%s) err = %v, want ErrOutsideWorkTree", p, err)
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "d", "x.md"), "x")
		if err := os.Symlink("d", filepath.Join(dir, "link")); err == nil {
			_, err := s.Commit(t.Context(), Change{Paths: []string{filepath.Join(dir, "link", "x.md")}, Message: "x", Author: testAuthor})
			if !errors.Is(err, ErrOutsideWorkTree) {
				t.Errorf("Commit(link/x.md) err = %v, want ErrOutsideWorkTree", err)
			}
		}
		if _, err := s.Commit(t.Context(), Change{Paths: []string{"d"}, Message: "x", Author: testAuthor}); err == nil {
			t.Error("committing a directory succeeded")
		}
	})
}

// TestCommitIdentity writes a global config of its own: not parallel, so
// that the git commands of the other tests never read it half written
// ("fatal: unknown error occurred while reading the configuration files")
// nor take its identity.
func TestCommitIdentity(t *testing.T) {
	global := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	dir := t.TempDir()
	s, err := Init(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeFile(t, filepath.Join(dir, "a.md"), "a\n")
	change := Change{Paths: []string{"a.md"}, Message: "x"}
	if _, err := s.Commit(t.Context(), change); !errors.Is(err, ErrNoIdentity) {
		t.Fatalf("no identity: err = %v, want ErrNoIdentity", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git/index.lock")); err == nil {
		t.Error("index.lock left behind")
	}

	writeFile(t, global, "[user]\n\tname = Global Name\n\temail = global@example.com\n")
	if got, err := s.Identity(t.Context()); err != nil || got != (Signature{"Global Name", "global@example.com"}) {
		t.Errorf("global identity = %v, %v", got, err)
	}
	appendFile(t, filepath.Join(dir, ".git/config"), "[user]\n\temail = local@example.com\n")
	if got, err := s.Identity(t.Context()); err != nil || got != (Signature{"Global Name", "local@example.com"}) {
		t.Errorf("local over global = %v, %v", got, err)
	}
	inc := filepath.Join(t.TempDir(), "work.gitconfig")
	writeFile(t, inc, "[user]\n\tname = Included Name\n")
	appendFile(t, filepath.Join(dir, ".git/config"), "[includeIf \"gitdir:"+filepath.ToSlash(dir)+"/\"]\n\tpath = "+inc+"\n")
	if got, err := s.Identity(t.Context()); err != nil || got.Name != "Included Name" {
		t.Errorf("includeIf gitdir identity = %v, %v", got, err)
	}
	res, err := s.Commit(t.Context(), change)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.getCommit(plumbing.NewHash(res.Hash))
	if c.Author.Name != "Included Name" || c.Author.Email != "local@example.com" || c.Committer.Email != "local@example.com" {
		t.Errorf("author %s <%s>, committer <%s>", c.Author.Name, c.Author.Email, c.Committer.Email)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	t.Run("not a repository", func(t *testing.T) {
		if _, err := Open(t.Context(), t.TempDir()); !errors.Is(err, ErrNotRepository) {
			t.Errorf("err = %v, want ErrNotRepository", err)
		}
	})
	t.Run("from a subdirectory", func(t *testing.T) {
		dir, _ := newRepo(t)
		sub := filepath.Join(dir, "a", "b")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		s, err := Open(t.Context(), sub)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Root() != dir {
			t.Errorf("Root = %s, want %s", s.Root(), dir)
		}
	})
	t.Run("gitdir file", func(t *testing.T) {
		dir, s := newRepo(t)
		commitFiles(t, s, "seed", map[string]string{"a.md": "a\n"})
		s.Close()
		// Move the git dir elsewhere and leave a `.git` file pointing at it,
		// as submodules do.
		moved := filepath.Join(t.TempDir(), "modules", "repo")
		if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, ".git"), moved); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, ".git"), "gitdir: "+moved+"\n")
		s2, err := Open(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		res := commitFiles(t, s2, "via gitdir file", map[string]string{"a.md": "a2\n"})
		if got := strings.TrimSpace(string(readFile(t, filepath.Join(moved, "refs/heads/master")))); got != res.Hash {
			t.Errorf("branch = %s, want %s", got, res.Hash)
		}
		if gitPath() != "" {
			runGit(t, dir, "fsck", "--strict", "--no-progress")
			if got := runGit(t, dir, "status", "--porcelain"); got != "" {
				t.Errorf("git status = %q", got)
			}
		}
	})
	t.Run("linked worktree", func(t *testing.T) {
		requireGit(t)
		dir, s := newRepo(t)
		commitFiles(t, s, "seed", map[string]string{"a.md": "a\n"})
		wt := filepath.Join(t.TempDir(), "wt")
		runGit(t, dir, "worktree", "add", "-q", "-b", "side", wt)
		ws, err := Open(t.Context(), wt)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		st, err := ws.State(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if st.Branch != "side" {
			t.Errorf("worktree branch = %q, want side", st.Branch)
		}
		res := commitFiles(t, ws, "in worktree", map[string]string{"w.md": "w\n"})
		if res.Branch != "side" {
			t.Errorf("committed on %q", res.Branch)
		}
		if got := strings.TrimSpace(runGit(t, dir, "rev-parse", "side")); got != res.Hash {
			t.Errorf("side = %s, want %s", got, res.Hash)
		}
		if got := runGit(t, wt, "status", "--porcelain"); got != "" {
			t.Errorf("worktree status = %q", got)
		}
		if got := runGit(t, dir, "status", "--porcelain"); got != "" {
			t.Errorf("main status = %q", got)
		}
		runGit(t, dir, "fsck", "--strict", "--no-progress")
	})
}

// TestCommitInvalidatesCacheTree checks the index's cache-tree after a
// memvault commit in folders git had fully cached, including a file that
// replaces a cached folder.
func TestCommitInvalidatesCacheTree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	requireGit(t)
	dir, s := newRepo(t)
	commitFiles(t, s, "seed", map[string]string{
		"m/a/one.md": "1\n", "m/b/two.md": "2\n", "other/x.txt": "x\n", "gone/y.md": "y\n",
	})
	writeFile(t, filepath.Join(dir, "other/x.txt"), "x2\n")
	runGit(t, dir, "commit", "-q", "-am", "cli commit writes a full cache-tree")
	checkCacheTree(t, dir)

	cases := []map[string]string{
		{"m/a/one.md": "1 v2\n"},
		{"m/b/new.md": "new\n"},
		{"gone/y.md": ""},
		{"m/c/d/e.md": "deep\n"},
	}
	for _, files := range cases {
		commitFiles(t, s, "memvault", files)
		checkCacheTree(t, dir)
		if got := runGit(t, dir, "status", "--porcelain"); got != "" {
			t.Errorf("git status = %q", got)
		}
		// Stage something unrelated so git writes its cache-tree again.
		runGit(t, dir, "commit", "-q", "--allow-empty", "-m", "cli")
		checkCacheTree(t, dir)
	}
	writeFile(t, filepath.Join(dir, "other/x.txt"), "x3\n")
	runGit(t, dir, "commit", "-q", "-am", "user")
	if got := runGit(t, dir, "diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"); got != "other/x.txt\n" {
		t.Errorf("user's commit changed %q", got)
	}
	runGit(t, dir, "fsck", "--strict", "--no-progress")
}

// TestEditLargeTreeInPlace commits adds, edits and deletes in a folder past
// editInPlaceEntries, where editTree changes the cached tree in place: each
// commit's tree must be what git reads, and the tree of every earlier
// commit, read through the Store afterwards, must still be what it was.
func TestEditLargeTreeInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	requireGit(t)
	t.Parallel()
	root, s := newRepo(t)
	files := map[string]string{}
	for i := range 2 * editInPlaceEntries { // a tree past largeObjectBytes: stored
		files[fmt.Sprintf("big/f%05d.md", i)] = fmt.Sprintf("file %d\n", i)
	}
	files["small/a.md"] = "a\n"
	commitFiles(t, s, "seed", files)

	lsTree := func(rev string) string { return runGit(t, root, "ls-tree", "-r", rev) }
	walk := func(rev string) string {
		var sb strings.Builder
		if err := s.WalkTree(t.Context(), rev, "big", func(path string, data []byte) error {
			fmt.Fprintf(&sb, "%s %s\n", path, data)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	type snap struct{ rev, git, walk string }
	var seen []snap
	record := func() {
		rev := strings.TrimSpace(runGit(t, root, "rev-parse", "HEAD"))
		seen = append(seen, snap{rev, lsTree(rev), walk(rev)})
	}
	record()
	steps := []map[string]string{
		{"big/f00000a.md": "added between two\n"},
		{"big/f00007.md": "edited\n"},
		{"big/f00003.md": ""},
		{"big/zzz.md": "last\n", "big/f00001.md": "", "small/a.md": "a2\n"},
		{"big/f00002.md": "file 2\n"}, // unchanged: no commit
	}
	for i, st := range steps {
		before := strings.TrimSpace(runGit(t, root, "rev-parse", "HEAD"))
		paths := writeWorkFiles(t, root, st)
		_, err := s.Commit(t.Context(), Change{Paths: paths, Message: fmt.Sprintf("step %d", i), Author: testAuthor})
		if i == len(steps)-1 {
			if !errors.Is(err, ErrNoChange) {
				t.Fatalf("step %d: got %v, want ErrNoChange", i, err)
			}
		} else if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if after := strings.TrimSpace(runGit(t, root, "rev-parse", "HEAD")); after == before && i < len(steps)-1 {
			t.Fatalf("step %d made no commit", i)
		}
		record()
		last := seen[len(seen)-1]
		if got := runGit(t, root, "status", "--porcelain"); got != "" {
			t.Errorf("step %d: git status after the commit:\n%s", i, got)
		}
		if !strings.Contains(last.walk, "big/") {
			t.Fatalf("step %d: the walk of big/ is empty", i)
		}
		for _, want := range seen {
			if got := lsTree(want.rev); got != want.git {
				t.Errorf("step %d: git's tree of %s changed", i, want.rev)
			}
			if got := walk(want.rev); got != want.walk {
				t.Errorf("step %d: the Store's tree of %s changed after later edits", i, want.rev)
			}
		}
	}
	// Every file's blob in the last tree is the work tree's content.
	for rel, content := range map[string]string{"big/f00000a.md": "added between two\n", "big/f00007.md": "edited\n", "big/zzz.md": "last\n", "small/a.md": "a2\n"} {
		if got := runGit(t, root, "show", "HEAD:"+rel); got != content {
			t.Errorf("HEAD:%s = %q, want %q", rel, got, content)
		}
	}
	for _, gone := range []string{"big/f00001.md", "big/f00003.md"} {
		if strings.Contains(lsTree("HEAD"), gone) {
			t.Errorf("%s is still in HEAD", gone)
		}
	}
	runGit(t, root, "fsck", "--strict")
}

// Commit prepares the new index before it takes index.lock, staged in
// the lock's owner record when it has one; when git changes the index in
// between, the commit must edit the index as it is then, not publish one
// that drops what git staged. Without an owner (no record to stage in)
// the index is written under the lock.
func TestCommitIndexChangedBeforeLock(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		owner   bool
		gitAdds bool
	}{
		{"staged, index unchanged", true, false},
		{"staged, git adds a file first", true, true},
		{"no owner record, index unchanged", false, false},
		{"no owner record, git adds a file first", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, s := newRepo(t)
			if !tt.owner {
				s.owner = lockOwner{}
			}
			commitFiles(t, s, "seed", map[string]string{"mem/a.md": "a\n"})
			writeFile(t, filepath.Join(root, "staged.txt"), "staged by the user\n")
			wantStatus := "?? staged.txt\n"
			between := func() {}
			if tt.gitAdds {
				between = func() { runGit(t, root, "add", "staged.txt") }
				wantStatus = "A  staged.txt\n"
			}
			paths := writeWorkFiles(t, root, map[string]string{"mem/b.md": "b\n"})
			if _, err := commitInSteps(t.Context(), s, Change{Paths: paths, Message: "the commit", Author: testAuthor}, between); err != nil {
				t.Fatal(err)
			}
			if got := runGit(t, root, "status", "--porcelain"); got != wantStatus {
				t.Errorf("git status after the commit:\n%s\nwant:\n%s", got, wantStatus)
			}
			if got := runGit(t, root, "ls-files", "mem"); got != "mem/a.md\nmem/b.md\n" {
				t.Errorf("index has %q under mem/, want a.md and b.md", got)
			}
			left, err := filepath.Glob(filepath.Join(s.gitDir, "index*.lock"))
			if err != nil || len(left) > 0 {
				t.Errorf("left behind: %v %v", left, err)
			}
		})
	}
}

// commitInSteps is Commit with between run after the commit is prepared
// and before the index lock is taken: the window in which git may change
// the index under a commit. It takes Commit's steps one by one rather
// than through a hook in the Store.
func commitInSteps(ctx context.Context, s *Store, c Change, between func()) (res CommitResult, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx := &commitTx{s: s}
	defer func() { err = tx.end(err) }()
	if err := tx.prepare(c); err != nil {
		return CommitResult{}, err
	}
	between()
	if err := tx.lock(ctx); err != nil {
		return CommitResult{}, err
	}
	return tx.publish(ctx)
}

func TestIndexIs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sumA := [indexHashLen]byte{1, 2, 3}
	body := make([]byte, indexHeaderLen)
	write := func(name string, trailer [indexHashLen]byte) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, string(append(slices.Clone(body), trailer[:]...)))
		return p
	}
	withA := write("a", sumA)
	withZero := write("zero", [indexHashLen]byte{})
	short := filepath.Join(dir, "short")
	writeFile(t, short, "DIRC")
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name string
		path string
		sum  [indexHashLen]byte
		want bool
	}{
		{"same checksum", withA, sumA, true},
		{"other checksum", withA, [indexHashLen]byte{9}, false},
		{"no file, none expected", missing, [indexHashLen]byte{}, true},
		{"no file, one expected", missing, sumA, false},
		{"file, none expected", withA, [indexHashLen]byte{}, false},
		{"no checksum written (index.skipHash)", withZero, [indexHashLen]byte{}, false},
		{"too short for a checksum", short, sumA, false},
	}
	for _, tt := range tests {
		if got := indexIs(tt.path, tt.sum); got != tt.want {
			t.Errorf("%s: indexIs = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestHeadMatchesState: Head answers what State's Head does, on an unborn
// branch, a branch, a detached HEAD and a packed branch ref.
func TestHeadMatchesState(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	ctx := t.Context()
	check := func(when, want string) {
		t.Helper()
		got, err := s.Head(ctx)
		if err != nil {
			t.Fatalf("%s: Head: %v", when, err)
		}
		st, err := s.State(ctx)
		if err != nil {
			t.Fatalf("%s: State: %v", when, err)
		}
		if got != want || st.Head != want {
			t.Errorf("%s: Head = %q, State().Head = %q, want %q", when, got, st.Head, want)
		}
	}
	check("unborn", "")
	first := commitFiles(t, s, "first", map[string]string{"a.md": "a\n"}).Hash
	check("on a branch", first)
	second := commitFiles(t, s, "second", map[string]string{"a.md": "b\n"}).Hash
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), first+"\n")
	check("detached", first)
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/master\n")
	check("back on the branch", second)
	if gitPath() != "" {
		runGit(t, dir, "pack-refs", "--all")
		check("packed ref", second)
	}
}
