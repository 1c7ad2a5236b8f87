package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeOperation is a repository whose git operation in progress the test
// sets.
type fakeOperation struct {
	mu sync.Mutex
	op string
}

func (f *fakeOperation) Operation(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.op, nil
}

func (f *fakeOperation) set(op string) {
	f.mu.Lock()
	f.op = op
	f.mu.Unlock()
}

// TestWritesRefusedDuringAGitOperation: every write that would commit is
// refused while git is in the middle of a merge (or rebase...), before
// any file changes, with what to run; transient writes (never committed)
// go on; once the operation ends writes work again.
func TestWritesRefusedDuringAGitOperation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ops := &fakeOperation{}
	c := &recordingCommitter{}
	v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T10:00:00Z").Now, Committer: c, Operations: ops})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "Money is int64 cents", Content: "Never float64."}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Memory.ID
	before, err := os.ReadFile(filepath.Join(dir, res.Memory.Path))
	if err != nil {
		t.Fatal(err)
	}
	imp := 9
	writes := []struct {
		name  string
		write func() error
	}{
		{"create", func() error {
			_, err := v.Create(t.Context(), NewMemory{Title: "Deploys go through make ship", Content: "x"}, Author{})
			return err
		}},
		{"update", func() error { _, err := v.Update(t.Context(), id, 0, Patch{Importance: &imp}, Author{}); return err }},
		{"forget", func() error { _, err := v.Forget(t.Context(), id, false, Author{Reason: "wrong"}); return err }},
		{"batch", func() error {
			_, err := v.CreateBatch(t.Context(), Batch{Items: []BatchItem{{Memory: NewMemory{Title: "Imported", Content: "y"}}}}, Author{})
			return err
		}},
	}
	for _, tc := range []struct{ op, run string }{
		{"merge", "git merge --continue"},
		{"rebase", "git rebase --continue"},
		{"cherry-pick", "git cherry-pick --abort"},
		{"bisect", "git bisect reset"},
	} {
		ops.set(tc.op)
		for _, w := range writes {
			err := w.write()
			var oe *OperationError
			if !errors.As(err, &oe) || oe.Op != tc.op || !errors.Is(err, ErrGitOperation) {
				t.Fatalf("%s during a %s: err = %v, want an OperationError", w.name, tc.op, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.run) || !strings.Contains(msg, "Nothing was written") {
				t.Errorf("%s during a %s: message does not name %q:\n%s", w.name, tc.op, tc.run, msg)
			}
		}
	}
	if len(c.commits) != 1 {
		t.Errorf("%d commits, want only the first", len(c.commits))
	}
	if after, err := os.ReadFile(filepath.Join(dir, res.Memory.Path)); err != nil || string(after) != string(before) {
		t.Errorf("the memory file changed during the merge (err %v):\n%s", err, after)
	}
	if n := v.Len(); n != 1 {
		t.Errorf("%d memories, want 1", n)
	}

	// Session scratch is git-ignored: nothing lands in the merge.
	ops.set("merge")
	if _, err := v.Create(t.Context(), NewMemory{Title: "Scratch note", Content: "z", Layer: Transient}, Author{}); err != nil {
		t.Errorf("transient write during a merge: %v", err)
	}

	ops.set("")
	if _, err := v.Update(t.Context(), id, 0, Patch{Importance: &imp}, Author{}); err != nil {
		t.Errorf("update after the merge: %v", err)
	}
}
