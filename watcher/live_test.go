package watcher_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/watcher"
)

// vaultSink feeds a vault the way cmd/memvault does.
type vaultSink struct{ v *vault.Vault }

func (s vaultSink) Refresh(ctx context.Context, rels []string) error {
	_, err := s.v.SyncFiles(ctx, rels)
	return err
}

func (s vaultSink) Reload(ctx context.Context) error { return s.v.SyncAll(ctx) }

// batches records the watcher's batches and tells waiters of each new
// one: it is the event the tests synchronise on.
type batches struct {
	mu   sync.Mutex
	list []watcher.Batch
	next chan struct{} // closed by the next add; nil until someone waits
}

func (b *batches) add(x watcher.Batch) {
	b.mu.Lock()
	b.list = append(b.list, x)
	if b.next != nil {
		close(b.next)
		b.next = nil
	}
	b.mu.Unlock()
}

// nextBatch returns a channel closed when the next batch is recorded.
func (b *batches) nextBatch() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.next == nil {
		b.next = make(chan struct{})
	}
	return b.next
}

func (b *batches) get() []watcher.Batch {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.list)
}

// syncBuffer is a log sink safe for the watcher's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type live struct {
	dir     string
	v       *vault.Vault
	w       *watcher.Watcher
	batches *batches
	log     *syncBuffer
}

// openLive opens the vault in dir and watches it.
func openLive(t *testing.T, dir string, opts watcher.Options) *live {
	t.Helper()
	v, err := vault.Open(t.Context(), dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := &live{dir: dir, v: v, batches: &batches{}, log: &syncBuffer{}}
	opts.Debounce = cmpOr(opts.Debounce, 20*time.Millisecond)
	opts.PollInterval = cmpOr(opts.PollInterval, 20*time.Millisecond)
	opts.OnBatch = l.batches.add
	opts.Filter = vault.IsMemoryPath
	opts.Logger = slog.New(slog.NewTextHandler(l.log, nil))
	l.w, err = watcher.Open(t.Context(), dir, vaultSink{v}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.w.Close() })
	return l
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// stuckAfter bounds every wait for a batch. It only turns a broken
// watcher into a failure instead of a hung test: no assertion depends on
// it, and a correct watcher, however loaded the machine, delivers its
// batch long before.
const stuckAfter = 2 * time.Minute

// waitFor waits until cond holds, checking it now and after each batch the
// watcher applies (everything the tests look at changes only through a
// batch or before the wait starts).
func (b *batches) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	stuck := time.NewTimer(stuckAfter)
	defer stuck.Stop()
	for {
		// Take the channel before looking, so a batch that lands between
		// the look and the wait still wakes us.
		next := b.nextBatch()
		if cond() {
			return
		}
		select {
		case <-next:
		case <-stuck.C:
			t.Fatalf("waited %v for %s; batches so far: %s", stuckAfter, what, summarize(b.get()))
		}
	}
}

// waitFor waits until cond holds on the live vault.
func (l *live) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	l.batches.waitFor(t, what, cond)
}

// state is what must match between the live index and a fresh load:
// each memory's path, hash and staleness by id.
func state(v *vault.Vault) map[string]string {
	out := map[string]string{}
	for _, m := range v.All() {
		out[m.ID] = fmt.Sprintf("%s %s stale=%v", m.Path, m.Hash[:12], m.Stale)
	}
	return out
}

// matchesFresh reports whether the live index equals a fresh vault.Open
// of the same folder.
func matchesFresh(t *testing.T, l *live) bool {
	t.Helper()
	fresh, err := vault.Open(t.Context(), l.dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cmp.Equal(state(l.v), state(fresh))
}

func diffFresh(t *testing.T, l *live) string {
	t.Helper()
	fresh, err := vault.Open(t.Context(), l.dir, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cmp.Diff(state(fresh), state(l.v))
}

func memFile(id, title, body string) string {
	return fmt.Sprintf("---\nid: %s\ntitle: %s\nimportance: 5\nstatus: active\nversion: 1\n---\n\n%s\n", id, title, body)
}

func write(t testing.TB, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// text is the indexed body of id, or "" when it is not indexed.
func text(v *vault.Vault, id string) string {
	m, err := v.Get(id)
	if err != nil {
		return ""
	}
	return m.PlainText()
}

// TestEditorSaves saves project/note.md the ways editors do and checks
// the index follows, with none of the helper files indexed.
func TestEditorSaves(t *testing.T) {
	t.Parallel()
	const rel = "project/note.md"
	newContent := memFile("note-1", "Deploy note", "Deploy with make release, not by hand.")
	tests := []struct {
		name string
		save func(t *testing.T, dir string)
	}{
		{"write in place", func(t *testing.T, dir string) {
			write(t, dir, rel, newContent)
		}},
		{"truncate then write in two steps", func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, rel), os.O_WRONLY|os.O_TRUNC, 0o644)
			must(t, err)
			_, err = f.WriteString(newContent[:20])
			must(t, err)
			must(t, f.Sync())
			_, err = f.WriteString(newContent[20:])
			must(t, err)
			must(t, f.Close())
		}},
		{"temp file then rename (VS Code, most atomic savers)", func(t *testing.T, dir string) {
			write(t, dir, rel+".tmp", newContent)
			must(t, os.Rename(filepath.Join(dir, rel+".tmp"), filepath.Join(dir, rel)))
		}},
		{"dot temp file then rename (memvault itself)", func(t *testing.T, dir string) {
			write(t, dir, "project/.note.md.tmp-123", newContent)
			must(t, os.Rename(filepath.Join(dir, "project/.note.md.tmp-123"), filepath.Join(dir, rel)))
		}},
		{"vim: swap file, 4913 probe, rename to backup~, write new", func(t *testing.T, dir string) {
			p := filepath.Join(dir, rel)
			write(t, dir, "project/.note.md.swp", "swap")
			write(t, dir, "project/4913", "")
			must(t, os.Remove(filepath.Join(dir, "project/4913")))
			must(t, os.Rename(p, p+"~"))
			write(t, dir, rel, newContent)
			must(t, os.Remove(p+"~"))
			must(t, os.Remove(filepath.Join(dir, "project/.note.md.swp")))
		}},
		{"vim backupcopy=yes: copy to backup~, overwrite in place", func(t *testing.T, dir string) {
			p := filepath.Join(dir, rel)
			old, err := os.ReadFile(p)
			must(t, err)
			must(t, os.WriteFile(p+"~", old, 0o644))
			write(t, dir, rel, newContent)
			must(t, os.Remove(p+"~"))
		}},
		{"JetBrains safe write: ___jb_tmp___ and ___jb_old___", func(t *testing.T, dir string) {
			p := filepath.Join(dir, rel)
			write(t, dir, rel+"___jb_tmp___", newContent)
			must(t, os.Rename(p, p+"___jb_old___"))
			must(t, os.Rename(p+"___jb_tmp___", p))
			must(t, os.Remove(p+"___jb_old___"))
		}},
		{"Emacs: lock link, autosave #file#, backup~", func(t *testing.T, dir string) {
			p := filepath.Join(dir, rel)
			must(t, os.Symlink("user@host.1234", filepath.Join(dir, "project/.#note.md")))
			write(t, dir, "project/#note.md#", "autosave")
			must(t, os.Rename(p, p+"~"))
			write(t, dir, rel, newContent)
			must(t, os.Remove(filepath.Join(dir, "project/#note.md#")))
			must(t, os.Remove(filepath.Join(dir, "project/.#note.md")))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, rel, memFile("note-1", "Deploy note", "Deploy by hand."))
			l := openLive(t, dir, watcher.Options{})
			tt.save(t, dir)
			l.waitFor(t, "the new text", func() bool { return strings.Contains(text(l.v, "note-1"), "make release") })
			l.waitFor(t, "the index to equal a fresh load", func() bool { return matchesFresh(t, l) })
			if got := len(l.v.All()); got != 1 {
				t.Errorf("indexed %d memories, want 1: %v", got, state(l.v))
			}
			if d := l.v.Diagnostics(); len(d) != 0 {
				t.Errorf("diagnostics: %v", d)
			}
		})
	}
}

// TestFileOperations covers deletes, renames, moves between layer folders
// and folders that appear or go away, in both modes.
func TestFileOperations(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, l *live) bool
	has := func(id, path string) check {
		return func(t *testing.T, l *live) bool {
			m, err := l.v.Get(id)
			return err == nil && m.Path == path
		}
	}
	gone := func(id string) check {
		return func(t *testing.T, l *live) bool { _, err := l.v.Get(id); return err != nil }
	}
	tests := []struct {
		name string
		op   func(t *testing.T, dir string, l *live)
		want []check
	}{
		{"create", func(t *testing.T, dir string, l *live) {
			write(t, dir, "project/new.md", memFile("new-1", "New", "fresh"))
		}, []check{has("new-1", "project/new.md")}},
		{"delete", func(t *testing.T, dir string, l *live) {
			must(t, os.Remove(filepath.Join(dir, "project/a.md")))
		}, []check{gone("a-1"), has("b-1", "short-term/b.md")}},
		{"rename in a folder", func(t *testing.T, dir string, l *live) {
			must(t, os.Rename(filepath.Join(dir, "project/a.md"), filepath.Join(dir, "project/a2.md")))
		}, []check{has("a-1", "project/a2.md")}},
		{"promote: short-term to project", func(t *testing.T, dir string, l *live) {
			must(t, os.Rename(filepath.Join(dir, "short-term/b.md"), filepath.Join(dir, "project/b.md")))
		}, []check{has("b-1", "project/b.md")}},
		{"demote: project to short-term", func(t *testing.T, dir string, l *live) {
			must(t, os.Rename(filepath.Join(dir, "project/a.md"), filepath.Join(dir, "short-term/a.md")))
		}, []check{has("a-1", "short-term/a.md")}},
		{"new nested subfolder, filled at once and later", func(t *testing.T, dir string, l *live) {
			write(t, dir, "project/api/v2/c.md", memFile("c-1", "C", "ccc"))
			// The second file comes after the first landed: it needs the new watch.
			l.waitFor(t, "c-1", func() bool { return text(l.v, "c-1") != "" })
			write(t, dir, "project/api/v2/d.md", memFile("d-1", "D", "ddd"))
		}, []check{has("c-1", "project/api/v2/c.md"), has("d-1", "project/api/v2/d.md")}},
		{"folder moved in from outside", func(t *testing.T, dir string, l *live) {
			out := t.TempDir()
			write(t, out, "import/e.md", memFile("e-1", "E", "eee"))
			must(t, os.Rename(filepath.Join(out, "import"), filepath.Join(dir, "project/import")))
		}, []check{has("e-1", "project/import/e.md")}},
		{"folder renamed", func(t *testing.T, dir string, l *live) {
			must(t, os.Rename(filepath.Join(dir, "meta/topics"), filepath.Join(dir, "meta/subjects")))
		}, []check{has("t-1", "meta/subjects/t.md")}},
		{"folder removed", func(t *testing.T, dir string, l *live) {
			must(t, os.RemoveAll(filepath.Join(dir, "meta/topics")))
		}, []check{gone("t-1"), has("a-1", "project/a.md")}},
		{"vault folder removed, then back (checkout of a branch without it)", func(t *testing.T, dir string, l *live) {
			must(t, os.RemoveAll(dir))
			l.waitFor(t, "the empty index", func() bool { return len(l.v.All()) == 0 })
			write(t, dir, "project/back.md", memFile("back-1", "Back", "back again"))
		}, []check{has("back-1", "project/back.md"), gone("a-1")}},
		{"ignored files", func(t *testing.T, dir string, l *live) {
			write(t, dir, "project/notes.txt", "not markdown")
			write(t, dir, ".git/x.md", memFile("git-1", "G", "g"))
			write(t, dir, "project/.hidden.md", memFile("hid-1", "H", "h"))
			write(t, dir, "project/f.md", memFile("f-1", "F", "f")) // the marker the batch landed
		}, []check{has("f-1", "project/f.md"), gone("git-1"), gone("hid-1")}},
	}
	for _, mode := range []string{"notify", "poll"} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				write(t, dir, "project/a.md", memFile("a-1", "A", "aaa"))
				write(t, dir, "short-term/b.md", memFile("b-1", "B", "bbb"))
				write(t, dir, "meta/topics/t.md", memFile("t-1", "T", "ttt"))
				l := openLive(t, dir, watcher.Options{Poll: mode == "poll"})
				if got := string(l.w.Mode()); got != mode {
					t.Fatalf("mode = %s, want %s", got, mode)
				}
				tt.op(t, dir, l)
				for i, c := range tt.want {
					l.waitFor(t, fmt.Sprintf("check %d", i), func() bool { return c(t, l) })
				}
				l.waitFor(t, "the index to equal a fresh load", func() bool { return matchesFresh(t, l) })
			})
		}
	}
}

// TestBrokenYAMLKeepsLastGoodVersion breaks a file's front matter by hand:
// the memory stays searchable, marked stale, with a diagnostic, until the
// file is fixed.
func TestBrokenYAMLKeepsLastGoodVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const rel = "project/a.md"
	write(t, dir, rel, memFile("a-1", "Build", "Run make build before pushing."))
	l := openLive(t, dir, watcher.Options{})

	write(t, dir, rel, "---\nid: a-1\ntitle: [unclosed\n---\n\nRun make build and make test.\n")
	l.waitFor(t, "the stale mark", func() bool {
		m, err := l.v.Get("a-1")
		return err == nil && m.Stale
	})
	if got := text(l.v, "a-1"); !strings.Contains(got, "make build before") {
		t.Errorf("stale text = %q, want the last good version", got)
	}
	if res := l.v.Recall(vault.Query{Text: "make build"}); len(res) == 0 || res[0].Memory.ID != "a-1" {
		t.Errorf("recall while broken: %d results, want a-1 first", len(res))
	}
	diags := l.v.Diagnostics()
	if len(diags) == 0 || diags[0].Path != rel {
		t.Fatalf("diagnostics = %v, want one for %s", diags, rel)
	}

	write(t, dir, rel, memFile("a-1", "Build", "Run make build and make test."))
	l.waitFor(t, "the fixed version", func() bool {
		m, err := l.v.Get("a-1")
		return err == nil && !m.Stale && strings.Contains(m.PlainText(), "make test")
	})
	if d := l.v.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics after the fix: %v", d)
	}
}

// TestOwnWriteIsANoOp writes through the vault while the watcher runs: the
// watcher sees the file change, but the content hash matches the index,
// so its batch changes nothing and notifies no one.
func TestOwnWriteIsANoOp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLive(t, dir, watcher.Options{})
	var mu sync.Mutex
	var changes []vault.Change
	l.v.Subscribe(func(c vault.Change) {
		mu.Lock()
		changes = append(changes, c)
		mu.Unlock()
	})
	res, err := l.v.Create(t.Context(), vault.NewMemory{Title: "Own write", Content: "written by this process"}, vault.Author{Reason: "test"})
	if err != nil {
		t.Fatal(err)
	}
	l.waitFor(t, "the watcher's batch with the new file", func() bool {
		for _, b := range l.batches.get() {
			if slices.Contains(b.Paths, res.Memory.Path) {
				return true
			}
		}
		return false
	})
	mu.Lock()
	defer mu.Unlock()
	if len(changes) != 1 {
		t.Errorf("got %d index changes %+v, want 1 (the write itself)", len(changes), changes)
	}
}

// TestPollFallbackWarns forces the fallback and checks the warning says
// how to raise the limit.
func TestPollFallbackWarns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLive(t, dir, watcher.Options{Poll: true})
	if l.w.Mode() != watcher.ModePoll {
		t.Fatalf("mode = %s, want poll", l.w.Mode())
	}
	for _, want := range []string{"rescanning", "max_user_watches"} {
		if !strings.Contains(l.log.String(), want) {
			t.Errorf("log %q lacks %q", l.log.String(), want)
		}
	}
	write(t, dir, "project/a.md", memFile("a-1", "A", "polled"))
	l.waitFor(t, "the polled file", func() bool { return strings.Contains(text(l.v, "a-1"), "polled") })
}

// git runs git in dir with a clean, isolated configuration.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// gitBusy reports a git operation in progress in the repository at root.
func gitBusy(root string) func() bool {
	return func() bool {
		_, err := os.Stat(filepath.Join(root, ".git", "index.lock"))
		return err == nil
	}
}

// makeBranches builds a repository whose vault (.memory) has n files on
// main and, on branch "other", changes: a third of them edited, a third
// deleted, n/3 new, some moved between layers.
func makeBranches(t testing.TB, root string, n int) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	git(t, root, "init", "-q", "-b", "main")
	vdir := filepath.Join(root, ".memory")
	layers := []string{"project", "short-term", "preferences", "meta"}
	for i := range n {
		write(t, vdir, fmt.Sprintf("%s/m%05d.md", layers[i%len(layers)], i), memFile(fmt.Sprintf("m-%05d", i), fmt.Sprintf("Memory %d", i), fmt.Sprintf("body of memory %d on main", i)))
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "main")
	git(t, root, "checkout", "-q", "-b", "other")
	for i := range n {
		p := fmt.Sprintf("%s/m%05d.md", layers[i%len(layers)], i)
		switch i % 3 {
		case 0:
			write(t, vdir, p, memFile(fmt.Sprintf("m-%05d", i), fmt.Sprintf("Memory %d", i), fmt.Sprintf("body of memory %d on other", i)))
		case 1:
			must(t, os.Remove(filepath.Join(vdir, p)))
		case 2:
			if i%9 == 2 {
				must(t, os.Rename(filepath.Join(vdir, p), filepath.Join(vdir, "project", fmt.Sprintf("moved%05d.md", i))))
			}
		}
	}
	for i := range n / 3 {
		write(t, vdir, fmt.Sprintf("project/new/n%05d.md", i), memFile(fmt.Sprintf("n-%05d", i), fmt.Sprintf("New %d", i), "only on other"))
	}
	git(t, root, "add", "-A")
	git(t, root, "commit", "-q", "-m", "other")
	git(t, root, "checkout", "-q", "main")
}

// TestGitOperations runs the git commands that rewrite many vault files
// at once on a clone of a 500-file vault: each lands as one batch (a
// rebase may take one per replayed commit), and the index then equals a
// fresh load.
func TestGitOperations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	base := t.TempDir()
	makeBranches(t, base, 500)
	tests := []struct {
		name        string
		setup       func(t *testing.T, root string) // before the watcher starts
		op          func(t *testing.T, root string)
		manyBatches bool // the command moves the tree several times
	}{
		{name: "checkout", op: func(t *testing.T, root string) { git(t, root, "checkout", "-q", "other") }},
		{name: "pull", op: func(t *testing.T, root string) { git(t, root, "pull", "-q", "--no-rebase", "origin", "other") }},
		{name: "merge --no-ff", op: func(t *testing.T, root string) {
			git(t, root, "merge", "-q", "--no-ff", "--no-edit", "origin/other")
		}},
		{
			name: "rebase",
			setup: func(t *testing.T, root string) {
				git(t, root, "checkout", "-q", "-b", "mine")
				write(t, filepath.Join(root, ".memory"), "project/mine.md", memFile("mine-1", "Mine", "a local memory"))
				git(t, root, "add", "-A")
				git(t, root, "commit", "-q", "-m", "mine")
			},
			op:          func(t *testing.T, root string) { git(t, root, "rebase", "-q", "origin/other") },
			manyBatches: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Each case clones and loads the 500-file vault, about 0.7 s
			// of CPU. -short keeps a pull (one batch) and a rebase (one
			// per replayed commit).
			if testing.Short() && tt.name != "pull" && tt.name != "rebase" {
				t.Skip("-short runs the pull and the rebase only; all run without -short, as CI does")
			}
			root := filepath.Join(t.TempDir(), "clone")
			git(t, base, "clone", "-q", "--branch", "main", base, root)
			if tt.setup != nil {
				tt.setup(t, root)
			}
			l := openLive(t, filepath.Join(root, ".memory"), watcher.Options{Busy: gitBusy(root), Debounce: 50 * time.Millisecond})
			before := state(l.v)
			tt.op(t, root)
			l.waitFor(t, "the index to equal a fresh load", func() bool { return matchesFresh(t, l) })
			if diff := diffFresh(t, l); diff != "" {
				t.Fatalf("index differs from a fresh load (-fresh +live):\n%s", diff)
			}
			if cmp.Equal(before, state(l.v)) {
				t.Fatalf("the index did not change")
			}
			// Count the batches only once none can follow: the watcher gets
			// every event of the finished git command before the marker's
			// (one inotify queue, in order), so when the marker's batch is
			// in, a straggling event of the command has landed in an
			// earlier batch or in the marker's own.
			const marker = "project/zz-marker.md"
			write(t, l.dir, marker, memFile("marker-1", "Marker", "end of the test"))
			l.waitFor(t, "the marker's batch", func() bool { return markerBatch(l.batches.get(), marker) >= 0 })
			got := l.batches.get()
			t.Logf("batches: %s", summarize(got))
			if tt.manyBatches {
				return
			}
			if i := markerBatch(got, marker); i != 1 || !slices.Equal(got[i].Paths, []string{marker}) {
				t.Errorf("the command was applied in %d batches, then the marker's with %v; want 1 batch, then the marker alone: %s",
					i, got[i].Paths, summarize(got))
			}
		})
	}
	t.Run("checkout back and forth", func(t *testing.T) {
		t.Parallel()
		if testing.Short() {
			t.Skip("-short runs the pull and the rebase only; all run without -short, as CI does")
		}
		root := filepath.Join(t.TempDir(), "clone")
		git(t, base, "clone", "-q", "--branch", "main", base, root)
		l := openLive(t, filepath.Join(root, ".memory"), watcher.Options{Busy: gitBusy(root)})
		before := len(l.v.All())
		for _, br := range []string{"other", "main"} {
			git(t, root, "checkout", "-q", br)
			l.waitFor(t, "the index to equal a fresh load of "+br, func() bool { return matchesFresh(t, l) })
		}
		if got := len(l.v.All()); got != before {
			t.Errorf("after switching back: %d memories, want %d", got, before)
		}
	})
}

// markerBatch is the index of the first batch naming rel, or -1.
func markerBatch(bs []watcher.Batch, rel string) int {
	return slices.IndexFunc(bs, func(b watcher.Batch) bool { return slices.Contains(b.Paths, rel) })
}

func summarize(bs []watcher.Batch) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, fmt.Sprintf("{%d files full=%v %s err=%v}", len(b.Paths), b.Full, b.Duration, b.Err))
	}
	return strings.Join(parts, " ")
}

// TestSinceCatchesUpEditsDuringLoad edits a file after the vault was
// loaded but before the watcher started: with Since, the first batch
// picks it up without any further event.
func TestSinceCatchesUpEditsDuringLoad(t *testing.T) {
	t.Parallel()
	for _, poll := range []bool{false, true} {
		t.Run(fmt.Sprintf("poll=%v", poll), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, "project/a.md", memFile("a-1", "A", "old text"))
			write(t, dir, "project/b.md", memFile("b-1", "B", "untouched"))
			old := time.Now().Add(-time.Hour)
			for _, f := range []string{"project/a.md", "project/b.md"} {
				must(t, os.Chtimes(filepath.Join(dir, f), old, old))
			}
			v, err := vault.Open(t.Context(), dir, vault.Options{})
			must(t, err)
			since := time.Now().Add(-time.Minute)
			write(t, dir, "project/a.md", memFile("a-1", "A", "edited while loading"))
			b := &batches{}
			w, err := watcher.Open(t.Context(), dir, vaultSink{v}, watcher.Options{Since: since, Poll: poll, PollInterval: time.Hour, Debounce: 10 * time.Millisecond, OnBatch: b.add})
			must(t, err)
			defer w.Close()
			// OnBatch runs after the sink has applied the batch, so wait
			// for both.
			b.waitFor(t, "the edit made during the load", func() bool {
				return strings.Contains(text(v, "a-1"), "edited while loading") && len(b.get()) > 0
			})
			if got := b.get(); len(got) != 1 || !slices.Equal(got[0].Paths, []string{"project/a.md"}) {
				t.Errorf("batches = %s, want one with project/a.md only", summarize(got))
			}
		})
	}
}
