package diskwrite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRedoAction: a journaled change is made only while its file still
// holds what it held before the write; a file already as the write left
// it, or changed since the crash, is left alone.
func TestRedoAction(t *testing.T) {
	t.Parallel()
	old, data, edit := []byte("old"), []byte("new"), []byte("edited after the crash")
	tests := []struct {
		name   string
		op     Op
		cur    []byte
		exists bool
		want   int
	}{
		{"new file not written yet", Op{Data: data}, nil, false, redoWrite},
		{"new file written", Op{Data: data}, data, true, redoNothing},
		{"new file written, then edited", Op{Data: data}, edit, true, redoNothing},
		{"replacement not made yet", Op{Data: data, Before: Hash(old)}, old, true, redoWrite},
		{"replacement made", Op{Data: data, Before: Hash(old)}, data, true, redoNothing},
		{"replaced file edited since", Op{Data: data, Before: Hash(old)}, edit, true, redoNothing},
		{"replaced file removed since", Op{Data: data, Before: Hash(old)}, nil, false, redoNothing},
		{"removal not made yet", Op{Remove: true, Before: Hash(old)}, old, true, redoRemove},
		{"removal made", Op{Remove: true, Before: Hash(old)}, nil, false, redoNothing},
		{"removal of a file the write did not find", Op{Remove: true}, nil, false, redoNothing},
		{"file to remove edited since", Op{Remove: true, Before: Hash(old)}, edit, true, redoNothing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := redoAction(tt.op, tt.cur, tt.exists); got != tt.want {
				t.Errorf("redoAction = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestAfterAndRedo: After reads the files as Redo then leaves them, in
// the journal's order (a later change of the same file wins), without
// changing anything itself.
func TestAfterAndRedo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "project"), 0o755))
	for name, s := range map[string]string{"a.md": "old a", "gone.md": "old gone", "kept.md": "edited"} {
		if err := os.WriteFile(filepath.Join(dir, "project", name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := Journal{Ops: []Op{
		{Path: "project/a.md", Data: []byte("a 2"), Before: Hash([]byte("old a"))},
		{Path: "project/a.md", Data: []byte("a 3"), Before: Hash([]byte("a 2"))},
		{Path: "project/gone.md", Remove: true, Before: Hash([]byte("old gone"))},
		{Path: "project/kept.md", Data: []byte("journaled"), Before: Hash([]byte("before the edit"))},
		{Path: "project/new.md", Data: []byte("new")},
		{Path: "project/back.md", Data: []byte("back 1")},
		{Path: "project/back.md", Remove: true, Before: Hash([]byte("back 1"))},
		{Path: "project/back.md", Data: []byte("back 2")},
	}}
	want := map[string]string{"project/a.md": "a 3", "project/gone.md": "", "project/kept.md": "edited", "project/new.md": "new", "project/back.md": "back 2"}
	r, err := Open(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	read, err := r.After(&j)
	if err != nil {
		t.Fatal(err)
	}
	for rel, w := range want {
		data, exists, err := read(rel)
		if err != nil || exists != (w != "") || string(data) != w {
			t.Errorf("After: %s = %q, %v, %v; want %q", rel, data, exists, err, w)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "project", "new.md")); err == nil {
		t.Fatal("After wrote a file")
	}
	if err := r.WriteJournal(j); err != nil {
		t.Fatal(err)
	}
	got, err := r.Redo(func(*Journal) error { return nil })
	if err != nil || got == nil || len(got.Ops) != len(j.Ops) {
		t.Fatalf("Redo = %+v, %v", got, err)
	}
	for rel, w := range want {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if (err == nil) != (w != "") || string(data) != w {
			t.Errorf("after Redo: %s = %q, %v; want %q", rel, data, err, w)
		}
	}
}
