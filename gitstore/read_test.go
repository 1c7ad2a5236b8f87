package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/filechange"
)

// historyLine renders a CommitInfo for comparison.
func historyLine(c CommitInfo) string {
	s := strings.SplitN(c.Message, "\n", 2)[0] + " " + c.Path
	if c.OldPath != "" {
		s += " <- " + c.OldPath
	}
	if c.Deleted {
		s += " (deleted)"
	}
	return s
}

func historyLines(t *testing.T, s *Store, path string, opts HistoryOptions) []string {
	t.Helper()
	cs, err := s.History(t.Context(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		out = append(out, historyLine(c))
	}
	return out
}

const longText = "# Title\n\nline one about the build\nline two about the tests\nline three about releases\nline four about style\nline five about reviews\n"

func TestHistory(t *testing.T) {
	t.Parallel()
	_, s := newRepo(t)
	s.Now = clock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	commitFiles(t, s, "add a", map[string]string{"m/a.md": longText})
	commitFiles(t, s, "unrelated", map[string]string{"m/other.md": "other\n"})
	commitFiles(t, s, "edit a", map[string]string{"m/a.md": longText + "more\n"})
	commitFiles(t, s, "rename a to b", map[string]string{"m/a.md": "", "n/b.md": longText + "more\n"})
	commitFiles(t, s, "edit b", map[string]string{"n/b.md": longText + "more\nand more\n"})
	commitFiles(t, s, "move b to c with edits", map[string]string{"n/b.md": "", "n/c.md": longText + "more\nand more\nplus a line\n"})
	commitFiles(t, s, "unrelated 2", map[string]string{"m/other.md": "other 2\n"})
	commitFiles(t, s, "rewrite c to d\n\nMemory-Id: M1", map[string]string{"n/c.md": "", "p/d.md": "completely different\n"})
	commitFiles(t, s, "touch d", map[string]string{"p/d.md": "completely different, edited\n"})
	commitFiles(t, s, "metadata only\n\nMemory-Id: M1", map[string]string{"m/other.md": "other 3\n"})
	commitFiles(t, s, "delete d", map[string]string{"p/d.md": ""})

	tests := []struct {
		name string
		path string
		opts HistoryOptions
		want []string
	}{
		{
			name: "renames by content",
			path: "n/c.md",
			opts: HistoryOptions{Rev: "HEAD~4"},
			want: []string{
				"move b to c with edits n/c.md <- n/b.md",
				"edit b n/b.md",
				"rename a to b n/b.md <- m/a.md",
				"edit a m/a.md",
				"add a m/a.md",
			},
		},
		{
			name: "no renames",
			path: "n/c.md",
			opts: HistoryOptions{Rev: "HEAD~4", NoRenames: true},
			want: []string{"move b to c with edits n/c.md"},
		},
		{
			name: "dissimilar rewrite stops without the trailer",
			path: "p/d.md",
			want: []string{"delete d p/d.md (deleted)", "touch d p/d.md", "rewrite c to d p/d.md"},
		},
		{
			name: "trailer follows the rewrite and includes trailer-only commits",
			path: "p/d.md",
			opts: HistoryOptions{Follow: "Memory-Id: M1"},
			want: []string{
				"delete d p/d.md (deleted)",
				"metadata only p/d.md",
				"touch d p/d.md",
				"rewrite c to d p/d.md <- n/c.md",
				"move b to c with edits n/c.md <- n/b.md",
				"edit b n/b.md",
				"rename a to b n/b.md <- m/a.md",
				"edit a m/a.md",
				"add a m/a.md",
			},
		},
		{
			name: "limit",
			path: "p/d.md",
			opts: HistoryOptions{Follow: "memory-id: M1", Limit: 2},
			want: []string{"delete d p/d.md (deleted)", "metadata only p/d.md"},
		},
		{
			name: "directory",
			path: "m",
			opts: HistoryOptions{NoRenames: true},
			want: []string{
				"metadata only m",
				"unrelated 2 m",
				"rename a to b m",
				"edit a m",
				"unrelated m",
				"add a m",
			},
		},
		{
			name: "absolute path",
			path: filepath.Join(s.Root(), "m", "other.md"),
			want: []string{"metadata only m/other.md", "unrelated 2 m/other.md", "unrelated m/other.md"},
		},
		{
			name: "never existed",
			path: "nope.md",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := historyLines(t, s, tt.path, tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("History(%s) (-want +got):\n%s", tt.path, diff)
			}
		})
	}

	cs, err := s.History(t.Context(), "m/other.md", HistoryOptions{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if c.Author != *testAuthor || c.Committer != (Signature{"memvault", testAuthor.Email}) {
		t.Errorf("signatures = %v / %v", c.Author, c.Committer)
	}
	if c.CommitTime.IsZero() || !c.When.Equal(c.CommitTime) {
		t.Errorf("times = %v / %v", c.When, c.CommitTime)
	}
	if c.Message != "metadata only\n\nMemory-Id: M1\n" {
		t.Errorf("message = %q", c.Message)
	}
}

func TestHistoryMerges(t *testing.T) {
	t.Parallel()
	requireGit(t)
	dir, s := newRepo(t)
	commitFiles(t, s, "add", map[string]string{"a.md": "a\n", "b.md": "b\n"})
	runGit(t, dir, "checkout", "-q", "-b", "side")
	commitFiles(t, s, "side edits a", map[string]string{"a.md": "a side\n"})
	runGit(t, dir, "checkout", "-q", "master")
	commitFiles(t, s, "master edits b", map[string]string{"b.md": "b master\n"})
	runGit(t, dir, "merge", "-q", "--no-edit", "side")
	got := historyLines(t, s, "a.md", HistoryOptions{})
	want := []string{"side edits a a.md", "add a.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History(a.md) (-want +got):\n%s", diff)
	}
	got = historyLines(t, s, "b.md", HistoryOptions{})
	want = []string{"master edits b b.md", "add b.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History(b.md) (-want +got):\n%s", diff)
	}
	// The commit after a merge is made on top of the merge.
	res := commitFiles(t, s, "after merge", map[string]string{"a.md": "a after\n"})
	if got := strings.TrimSpace(runGit(t, dir, "rev-parse", res.Hash+"^")); got != strings.TrimSpace(runGit(t, dir, "rev-parse", "HEAD^")) {
		t.Errorf("parent mismatch")
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	c1 := commitFiles(t, s, "one", map[string]string{"a.md": "1\n"})
	c2 := commitFiles(t, s, "two", map[string]string{"a.md": "2\n"})
	c3 := commitFiles(t, s, "three", map[string]string{"a.md": "3\n"})
	writeFile(t, filepath.Join(dir, ".git/refs/tags/v1"), c1.Hash+"\n")
	tests := []struct {
		rev, want string
	}{
		{"", c3.Hash},
		{"HEAD", c3.Hash},
		{"master", c3.Hash},
		{"refs/heads/master", c3.Hash},
		{"HEAD~1", c2.Hash},
		{"HEAD~2", c1.Hash},
		{"master^", c2.Hash},
		{"v1", c1.Hash},
		{c2.Hash, c2.Hash},
		{c2.Hash[:8], c2.Hash},
	}
	for _, tt := range tests {
		got, err := s.Resolve(t.Context(), tt.rev)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", tt.rev, got, err, tt.want)
		}
	}
	// Full ids of a tree and a blob are not commits.
	tree := objectID(t, s, c3.Hash, "tree")
	blob := objectID(t, s, c3.Hash, "blob")
	for _, rev := range []string{"nope", "HEAD~5", "0000000000000000000000000000000000000000", tree, blob} {
		if _, err := s.Resolve(t.Context(), rev); !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(%q) err = %v, want ErrNotFound", rev, err)
		}
	}
}

// objectID returns the id of commit c's root tree ("tree") or of the
// blob a.md in it ("blob"), read through go-git.
func objectID(t *testing.T, s *Store, c, kind string) string {
	t.Helper()
	commit, err := s.repo.CommitObject(plumbing.NewHash(c))
	if err != nil {
		t.Fatal(err)
	}
	if kind == "tree" {
		return commit.TreeHash.String()
	}
	f, err := commit.File("a.md")
	if err != nil {
		t.Fatal(err)
	}
	return f.Hash.String()
}

func TestResolveTime(t *testing.T) {
	t.Parallel()
	_, s := newRepo(t)
	t0 := time.Date(2025, 10, 1, 12, 0, 0, 0, time.UTC)
	var hashes []string
	for i, when := range []time.Time{t0, t0.Add(time.Hour), t0.Add(2 * time.Hour)} {
		s.Now = func() time.Time { return when }
		hashes = append(hashes, commitFiles(t, s, "c", map[string]string{"a.md": string(rune('a'+i)) + "\n"}).Hash)
	}
	tests := []struct {
		at   time.Time
		want string
	}{
		{t0, hashes[0]},
		{t0.Add(90 * time.Minute), hashes[1]},
		{t0.Add(2 * time.Hour), hashes[2]},
		{t0.Add(48 * time.Hour), hashes[2]},
		{t0.In(time.FixedZone("X", 5*3600)).Add(59 * time.Minute), hashes[0]},
	}
	for _, tt := range tests {
		got, err := s.ResolveTime(t.Context(), tt.at)
		if err != nil || got != tt.want {
			t.Errorf("ResolveTime(%v) = %s, %v; want %s", tt.at, got, err, tt.want)
		}
	}
	if _, err := s.ResolveTime(t.Context(), t0.Add(-time.Second)); !errors.Is(err, ErrNotFound) {
		t.Errorf("before the first commit: err = %v, want ErrNotFound", err)
	}
}

func TestReadFileAndWalkTree(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	c1 := commitFiles(t, s, "one", map[string]string{
		"m/project/a.md": "a1\n", "m/project/sub/b.md": "b1\n", "m/prefs/p.md": "p1\n", "src/x.go": "x\n",
	})
	commitFiles(t, s, "two", map[string]string{"m/project/a.md": "a2\n", "m/project/sub/b.md": ""})
	// Work-tree edits must not leak into reads.
	writeFile(t, filepath.Join(dir, "m/project/a.md"), "dirty\n")
	writeFile(t, filepath.Join(dir, "m/project/untracked.md"), "u\n")

	got, err := s.ReadFile(t.Context(), c1.Hash, "m/project/a.md")
	if err != nil || string(got) != "a1\n" {
		t.Errorf("ReadFile(one) = %q, %v", got, err)
	}
	got, err = s.ReadFile(t.Context(), "", filepath.Join(dir, "m/project/a.md"))
	if err != nil || string(got) != "a2\n" {
		t.Errorf("ReadFile(HEAD) = %q, %v", got, err)
	}
	for _, p := range []string{"m/project/sub/b.md", "m/project", "nope"} {
		if _, err := s.ReadFile(t.Context(), "", p); !errors.Is(err, ErrNotFound) {
			t.Errorf("ReadFile(%s) err = %v, want ErrNotFound", p, err)
		}
	}

	walk := func(rev, d string) map[string]string {
		m := map[string]string{}
		err := s.WalkTree(t.Context(), rev, d, func(p string, data []byte) error {
			// Re-entering the Store from the callback must not deadlock.
			if _, err := s.Resolve(t.Context(), ""); err != nil {
				return err
			}
			m[p] = string(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if diff := cmp.Diff(map[string]string{"m/project/a.md": "a1\n", "m/project/sub/b.md": "b1\n"}, walk(c1.Hash, "m/project")); diff != "" {
		t.Errorf("WalkTree(one, m/project) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"m/project/a.md": "a2\n", "m/prefs/p.md": "p1\n"}, walk("", filepath.Join(dir, "m"))); diff != "" {
		t.Errorf("WalkTree(HEAD, m) (-want +got):\n%s", diff)
	}
	if got := walk("", "missing"); len(got) != 0 {
		t.Errorf("WalkTree(missing) = %v", got)
	}
	stop := errors.New("stop")
	if err := s.WalkTree(t.Context(), "", "", func(string, []byte) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("WalkTree callback error = %v, want it returned", err)
	}
}

func TestDiffTrees(t *testing.T) {
	t.Parallel()
	_, s := newRepo(t)
	c1 := commitFiles(t, s, "one", map[string]string{
		"m/keep.md": "keep\n", "m/edit.md": "edit\n", "m/gone.md": "gone\n", "m/old-name.md": longText, "m/x/moved.md": "moved exactly\n", "src/y.go": "y\n",
	})
	c2 := commitFiles(t, s, "two", map[string]string{
		"m/edit.md": "edited\n", "m/gone.md": "", "m/new.md": "new\n",
		"m/old-name.md": "", "m/new-name.md": longText + "one more line\n",
		"m/x/moved.md": "", "m/y/moved.md": "moved exactly\n", "src/y.go": "y2\n",
	})
	got, err := s.DiffTrees(t.Context(), c1.Hash, c2.Hash, "m")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"added m/new.md",
		"deleted m/gone.md",
		"modified m/edit.md",
		"renamed m/new-name.md <- m/old-name.md",
		"renamed m/y/moved.md <- m/x/moved.md",
	}
	if diff := cmp.Diff(want, summarize(got)); diff != "" {
		t.Errorf("DiffTrees (-want +got):\n%s", diff)
	}
	for _, c := range got {
		switch c.Path {
		case "m/edit.md":
			if string(c.Old) != "edit\n" || string(c.New) != "edited\n" {
				t.Errorf("edit.md contents = %q -> %q", c.Old, c.New)
			}
		case "m/gone.md":
			if string(c.Old) != "gone\n" || c.New != nil {
				t.Errorf("gone.md contents = %q -> %q", c.Old, c.New)
			}
		}
	}
	all, err := s.DiffTrees(t.Context(), "", c1.Hash, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Errorf("DiffTrees from the empty tree: %d changes, want 6", len(all))
	}
	for _, c := range all {
		if c.Kind != filechange.Added {
			t.Errorf("%s: %v, want added", c.Path, c.Kind)
		}
	}
}

func TestDirty(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	commitFiles(t, s, "seed", map[string]string{
		".memory/.gitignore":          "transient/\n*.tmp\n",
		".memory/project/clean.md":    "clean\n",
		".memory/project/modified.md": "before\n",
		".memory/project/deleted.md":  "deleted\n",
		".memory/project/staged.md":   "staged\n",
		"outside.md":                  "outside\n",
	})
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	writeFile(t, filepath.Join(dir, ".memory/project/modified.md"), "after\n")
	os.Remove(filepath.Join(dir, ".memory/project/deleted.md"))
	writeFile(t, filepath.Join(dir, ".memory/project/new.md"), "new\n")
	writeFile(t, filepath.Join(dir, ".memory/project/sub/deeper.md"), "deeper\n")
	writeFile(t, filepath.Join(dir, ".memory/transient/scratch.md"), "ignored folder\n")
	writeFile(t, filepath.Join(dir, ".memory/project/x.tmp"), "ignored by pattern\n")
	writeFile(t, filepath.Join(dir, ".memory/project/debug.log"), "ignored from the root\n")
	writeFile(t, filepath.Join(dir, "outside.md"), "outside, modified\n")
	// Staged and then restored: same content as HEAD, but a changed stat.
	writeFile(t, filepath.Join(dir, ".memory/project/staged.md"), "staged v2\n")
	stage(t, dir, ".memory/project/staged.md")
	writeFile(t, filepath.Join(dir, ".memory/project/staged.md"), "staged\n")

	got, err := s.Dirty(t.Context(), filepath.Join(dir, ".memory"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range []string{"project/deleted.md", "project/modified.md", "project/new.md", "project/sub/deeper.md"} {
		want = append(want, filepath.Join(dir, ".memory", p))
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Dirty (-want +got):\n%s", diff)
	}
	// Committing what Dirty reports leaves the folder clean.
	if _, err := s.Commit(t.Context(), Change{Paths: got, Message: "recover", Author: testAuthor}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Dirty(t.Context(), ".memory")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("Dirty after commit = %v", got)
	}
	if gitPath() != "" {
		// Only the user's staged-then-reverted file remains.
		status := runGit(t, dir, "status", "--porcelain", "--", ".memory")
		if want := "MM .memory/project/staged.md\n"; status != want {
			t.Errorf("git status .memory = %q, want %q", status, want)
		}
	}
}

// TestPackedObjects checks the pack reader against go-git on every object
// of a repository that git gc packed (with deltas), and that reads keep
// working when gc runs while the Store is open.
func TestPackedObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	requireGit(t)
	dir, s := newRepo(t)
	for i := 0; i < 30; i++ {
		files := map[string]string{"m/a.md": longText + strings.Repeat("x\n", i)}
		if i%3 == 0 {
			files["m/b.md"] = longText + "b" + strings.Repeat("y\n", i)
		}
		commitFiles(t, s, "c", files)
	}
	// Warm the Store's caches, then pack behind its back.
	if _, err := s.History(t.Context(), "m/a.md", HistoryOptions{}); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "gc", "-q", "--aggressive")
	if out := runGit(t, dir, "count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Fatalf("objects still loose after gc:\n%s", out)
	}
	cs, err := s.History(t.Context(), "m/a.md", HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 30 {
		t.Errorf("History after gc: %d commits, want 30", len(cs))
	}
	// Blobs are not cached: these reads must find the new pack.
	for i := 0; i < 30; i += 7 {
		got, err := s.ReadFile(t.Context(), fmt.Sprintf("HEAD~%d", 29-i), "m/a.md")
		if want := longText + strings.Repeat("x\n", i); err != nil || string(got) != want {
			t.Errorf("ReadFile(HEAD~%d) after gc = %q, %v", 29-i, got, err)
		}
	}
	fresh, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	objs := strings.Fields(runGit(t, dir, "rev-list", "--objects", "--no-object-names", "--all"))
	if len(objs) < 60 {
		t.Fatalf("only %d objects", len(objs))
	}
	fresh.mu.Lock()
	defer fresh.mu.Unlock()
	deltas := 0
	for _, hx := range objs {
		h := plumbing.NewHash(hx)
		o, ok, err := fresh.readPacked(h)
		if err != nil || !ok {
			t.Fatalf("readPacked(%s) = %v, %v", hx, ok, err)
		}
		ref, err := fresh.storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			t.Fatal(err)
		}
		data, err := encodedBytes(ref)
		if err != nil {
			t.Fatal(err)
		}
		if o.t != ref.Type() || !bytes.Equal(o.data, data) {
			t.Errorf("object %s differs from go-git's", hx)
		}
		if plumbing.ComputeHash(o.t, o.data) != h {
			t.Errorf("object %s hashes to something else", hx)
		}
	}
	for _, l := range strings.Split(runGit(t, dir, "verify-pack", "-v", filepath.Join(dir, ".git/objects/pack", packName(t, dir))), "\n") {
		if len(strings.Fields(l)) >= 7 {
			deltas++
		}
	}
	if deltas == 0 {
		t.Error("the pack has no deltas; the test does not exercise delta resolution")
	}
}

func packName(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, ".git/objects/pack"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".idx") {
			return e.Name()
		}
	}
	t.Fatal("no pack")
	return ""
}
