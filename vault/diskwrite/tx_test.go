package diskwrite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTxRollback: a change that fails, or a commit that fails after all
// of them, leaves every file as it was and no journal.
func TestTxRollback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		changes  []Change
		failAt   bool // Write fails (on the last change) rather than the commit
		wantFail bool
	}{
		{"a change fails", []Change{
			{Rel: "project/a.md", Data: []byte("new a")},
			{Rel: "project/gone.md"},
			{Rel: "project/b.md", Data: []byte("b")},
			{Rel: "other/x.md", Data: []byte("x")}, // "other" becomes a file after Begin
		}, true, true},
		{"the commit fails", []Change{
			{Rel: "project/a.md", Data: []byte("new a")},
			{Rel: "project/gone.md"},
			{Rel: "project/b.md", Data: []byte("b")},
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			must(t, os.MkdirAll(filepath.Join(dir, "project"), 0o755))
			before := map[string]string{"project/a.md": "old a", "project/gone.md": "old gone"}
			for rel, s := range before {
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Open(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			tx, err := Begin(r, tt.changes)
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.Journal("m\n", []string{"project/a.md"}); err != nil {
				t.Fatal(err)
			}
			if tt.failAt {
				// A file where the last change needs a folder.
				before["other"] = "a file"
				if err := os.WriteFile(filepath.Join(dir, "other"), []byte("a file"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err = tx.Write()
			if (err != nil) != tt.wantFail {
				t.Fatalf("Write = %v, want failure %v", err, tt.wantFail)
			}
			if !tt.failAt {
				if got, _ := os.ReadFile(filepath.Join(dir, "project", "b.md")); string(got) != "b" {
					t.Fatalf("project/b.md = %q before the rollback", got)
				}
				tx.Rollback() // the commit failed
			}
			for rel, s := range before {
				if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); string(got) != s {
					t.Errorf("%s = %q, %v; want %q as before the write", rel, got, err, s)
				}
			}
			for _, rel := range []string{"project/b.md", JournalName} {
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel))); err == nil {
					t.Errorf("%s left after the rollback", rel)
				}
			}
		})
	}
}

// must fails the test on a set-up step's error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
