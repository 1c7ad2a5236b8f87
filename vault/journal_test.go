package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/store"
)

// TestRecoverRedoesTheJournal leaves a journaled write at each point a
// crash can stop it and checks that Recover completes it, keeps a file
// edited after the crash, and commits the listed paths.
func TestRecoverRedoesTheJournal(t *testing.T) {
	t.Parallel()
	const (
		oldA   = "---\nid: a\ntitle: A\n---\nold A\n"
		newA   = "---\nid: a\ntitle: A\nversion: 2\n---\nnew A\n"
		newB   = "---\nid: b\ntitle: B\n---\nnew B\n"
		oldC   = "---\nid: c\ntitle: C\n---\nC\n"
		edited = "---\nid: a\ntitle: A\n---\nedited by hand after the crash\n"
	)
	ops := []diskwrite.Op{
		{Path: "project/b.md", Data: []byte(newB)},
		{Path: "project/a.md", Data: []byte(newA), Before: diskwrite.Hash([]byte(oldA))},
		{Path: "short-term/c.md", Remove: true, Before: diskwrite.Hash([]byte(oldC))},
	}
	tests := []struct {
		name   string
		done   int               // ops applied before the crash
		after  map[string]string // files changed after the crash
		want   map[string]string // rel -> content; "" means absent
		wantMd []string
	}{
		{name: "before any file", done: 0,
			want: map[string]string{"project/a.md": newA, "project/b.md": newB, "short-term/c.md": ""}},
		{name: "after the first file", done: 1,
			want: map[string]string{"project/a.md": newA, "project/b.md": newB, "short-term/c.md": ""}},
		{name: "after every file", done: 3,
			want: map[string]string{"project/a.md": newA, "project/b.md": newB, "short-term/c.md": ""}},
		{name: "hand edit after the crash is kept", done: 0, after: map[string]string{"project/a.md": edited},
			want: map[string]string{"project/a.md": edited, "project/b.md": newB, "short-term/c.md": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			put := func(rel, s string) {
				t.Helper()
				p := filepath.Join(dir, filepath.FromSlash(rel))
				mustMkdir(t, filepath.Dir(p))
				if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			put(GitignoreName, GitignoreContent)
			put("project/.b.md.tmp-4242", "half a file")
			put("."+JournalName+".tmp-17", "{")
			put("project/a.md", oldA)
			put("short-term/c.md", oldC)
			c := &recordingCommitter{}
			v, err := Open(t.Context(), dir, Options{Committer: c})
			if err != nil {
				t.Fatal(err)
			}
			rels := []string{"project/a.md", "project/b.md", "short-term/c.md"}
			putJournal(t, v, diskwrite.Journal{Message: "memory(project): update \"A\"\n", Paths: rels, Commit: true, Ops: ops})
			for _, op := range ops[:tt.done] {
				p := filepath.Join(dir, filepath.FromSlash(op.Path))
				if op.Remove {
					os.Remove(p)
				} else {
					os.WriteFile(p, op.Data, 0o644)
				}
			}
			for rel, s := range tt.after {
				put(rel, s)
			}
			got, err := v.Recover(t.Context())
			if err != nil {
				t.Fatalf("Recover: %v", err)
			}
			if !slices.Equal(got, rels) {
				t.Errorf("Recover committed %v, want %v", got, rels)
			}
			for rel, want := range tt.want {
				data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
				if want == "" {
					if err == nil {
						t.Errorf("%s still exists:\n%s", rel, data)
					}
					continue
				}
				if string(data) != want {
					t.Errorf("%s = %q, want %q", rel, data, want)
				}
			}
			if len(c.commits) != 1 || !strings.Contains(c.commits[0].message, "Memory-Recovered:") {
				t.Errorf("commits = %+v, want one with a Memory-Recovered trailer", c.commits)
			}
			if _, err := os.Stat(filepath.Join(dir, JournalName)); err == nil {
				t.Error("journal left after Recover")
			}
			if _, err := v.Get("b"); err != nil {
				t.Errorf("the redone memory is not indexed: %v", err)
			}
			for _, tmp := range []string{"project/.b.md.tmp-4242", "." + JournalName + ".tmp-17"} {
				if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(tmp))); err == nil {
					t.Errorf("temp file %s left after Recover", tmp)
				}
			}
			// A second Recover has nothing to do.
			if got, err := v.Recover(t.Context()); err != nil || got != nil {
				t.Errorf("second Recover = %v, %v; want nothing", got, err)
			}
		})
	}
}

// TestUpdateMovesBeforeRemoving checks the order of a layer move's file
// changes: the new file is written before the old one goes, so a crash in
// between leaves two copies and never none.
func TestUpdateMovesBeforeRemoving(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	v, err := Open(t.Context(), dir, Options{Committer: &recordingCommitter{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "Moving", Layer: ShortTerm}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	w := &writeSet{v: v}
	w.remove(res.Memory.Path)
	w.put("project/moving.md", []byte("---\nid: x\n---\n"))
	if _, err := w.apply(t.Context(), "move", false); err != nil {
		t.Fatal(err)
	}
	if w.ops[0].data == nil || w.ops[len(w.ops)-1].data != nil {
		t.Errorf("ops applied as %v, want the removal last", w.ops)
	}
}

// TestRefreshForgetsRemovedDuplicate removes the copy of a memory that the
// index skipped as a duplicate id, as recovering an interrupted move does:
// no problem about the gone file may remain.
func TestRefreshForgetsRemovedDuplicate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, rel := range []string{"project/a.md", "short-term/a.md"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		mustMkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte("---\nid: a\ntitle: A\n---\nA\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Get("a")
	if err != nil {
		t.Fatal(err)
	}
	dup := "project/a.md"
	if m.Path == dup {
		dup = "short-term/a.md"
	}
	if len(v.Diagnostics()) != 1 {
		t.Fatalf("diagnostics = %v, want the duplicate id", v.Diagnostics())
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(dup))); err != nil {
		t.Fatal(err)
	}
	if err := v.Refresh(t.Context(), []string{dup, m.Path}); err != nil {
		t.Fatal(err)
	}
	if d := v.Diagnostics(); len(d) != 0 {
		t.Errorf("diagnostics after removing the duplicate = %v, want none", d)
	}
	if _, err := v.Get("a"); err != nil {
		t.Errorf("memory lost: %v", err)
	}
}

// TestWriteFinishesPendingJournal leaves a journal as a killed process
// does and writes again in a fresh process (a new Vault): the new write
// first finishes the old one instead of replacing its journal.
func TestWriteFinishesPendingJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), dir, Options{Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, v, NewMemory{Title: "Scaffolding"})
	lost := "---\nid: lost\ntitle: Killed before its files\n---\nbody\n"
	ops := []diskwrite.Op{{Path: "project/killed.md", Data: []byte(lost)}}
	putJournal(t, v, diskwrite.Journal{Message: "memory(project): add \"Killed\"\n", Paths: []string{"project/killed.md"}, Commit: true, Ops: ops})
	v2, err := Open(t.Context(), dir, Options{Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, v2, NewMemory{Title: "Next write"})
	if _, err := v2.Get("lost"); err != nil {
		t.Errorf("the interrupted write was not finished: %v", err)
	}
	if n := len(c.commits); n != 3 || !strings.Contains(c.commits[1].message, "Memory-Recovered:") {
		t.Fatalf("%d commits, want scaffolding, the recovered write, the next write", n)
	}
	if _, err := os.Stat(filepath.Join(dir, JournalName)); err == nil {
		t.Error("journal left after the next write")
	}
}

// putJournal leaves j in v's folder as a write that was killed does.
func putJournal(t *testing.T, v *Vault, j diskwrite.Journal) {
	t.Helper()
	r, err := diskwrite.Open(v.Dir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.WriteJournal(j); err != nil {
		t.Fatal(err)
	}
}

// TestRecoveredMessageKeepsTheOriginal checks the recovery commit's
// message: the interrupted write's message byte for byte, with the
// Memory-Recovered trailer added to its trailers.
func TestRecoveredMessageKeepsTheOriginal(t *testing.T) {
	dir := t.TempDir()
	c := &recordingCommitter{}
	v, err := Open(t.Context(), dir, Options{Committer: c})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, v, NewMemory{Title: "Scaffolding"})
	orig := commitMessage("add", Project, "Killed", "lost", "the reason\n\nin two paragraphs", "claude-code", []string{"old"})
	ops := []diskwrite.Op{{Path: "project/killed.md", Data: []byte("---\nid: lost\ntitle: Killed\n---\nbody\n")}}
	putJournal(t, v, diskwrite.Journal{Message: orig, Paths: []string{"project/killed.md"}, Commit: true, Ops: ops})
	if _, err := v.Recover(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := orig + "Memory-Recovered: the previous process stopped before committing\n"
	if n := len(c.commits); n != 2 || c.commits[1].message != want {
		t.Fatalf("commits %+v, want the second to be\n%q", c.commits, want)
	}
}

// TestWriteClearsKilledCacheTemps: a process killed while it wrote the
// index cache leaves a temp file and no journal; the next write clears
// it, a headers-only one too.
func TestWriteClearsKilledCacheTemps(t *testing.T) {
	t.Parallel()
	for _, headersOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("headersOnly=%v", headersOnly), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			seed, err := Open(t.Context(), dir, Options{Committer: &recordingCommitter{}, IndexCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := seed.Create(t.Context(), NewMemory{Title: "First", Layer: Project}, Author{}); err != nil {
				t.Fatal(err)
			}
			tmp := filepath.Join(dir, CacheDirName, store.IndexFileName+".tmp-99")
			mustMkdir(t, filepath.Dir(tmp))
			if err := os.WriteFile(tmp, []byte("half a cache"), 0o644); err != nil {
				t.Fatal(err)
			}
			v, err := Open(t.Context(), dir, Options{Committer: &recordingCommitter{}, IndexCache: !headersOnly, HeadersOnly: headersOnly})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tmp); err != nil {
				t.Fatalf("the load removed the temp file (only a write, holding the lock, may): %v", err)
			}
			if _, err := v.Create(t.Context(), NewMemory{Title: "Second", Layer: Project}, Author{}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tmp); err == nil {
				t.Errorf("%s left after a write", tmp)
			}
		})
	}
}
