package gitstore

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWalkStagedReadsTheIndexNotTheWorkTree(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	writeFile(t, filepath.Join(dir, ".memory", "project", "a.md"), "staged a\n")
	writeFile(t, filepath.Join(dir, ".memory", "project", "b.md"), "staged b\n")
	writeFile(t, filepath.Join(dir, "README.md"), "outside\n")
	stage(t, dir, ".memory/project/a.md", ".memory/project/b.md", "README.md")
	// Work-tree edits after staging are not what a commit would record.
	writeFile(t, filepath.Join(dir, ".memory", "project", "a.md"), "edited, not staged\n")
	writeFile(t, filepath.Join(dir, ".memory", "project", "c.md"), "untracked\n")

	got := map[string]string{}
	err := s.WalkStaged(t.Context(), "", filepath.Join(dir, ".memory"), func(path string, data []byte) error {
		got[path] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{".memory/project/a.md": "staged a\n", ".memory/project/b.md": "staged b\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("staged files (-want +got):\n%s", diff)
	}
}

func TestWalkStagedWithoutIndex(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	n := 0
	if err := s.WalkStaged(t.Context(), "", dir, func(string, []byte) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("WalkStaged on an empty repository = %d calls, %v; want 0, nil", n, err)
	}
}

// TestWalkStagedChangesSkipsWhatHeadHas: only files the commit would add
// or change are visited; a file staged as HEAD has it is not.
func TestWalkStagedChangesSkipsWhatHeadHas(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	vault := filepath.Join(dir, ".memory")
	walk := func() map[string]string {
		t.Helper()
		got := map[string]string{}
		err := s.WalkStagedChanges(t.Context(), "", vault, func(path string, data []byte) error {
			got[path] = string(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// Unborn: everything staged is a change.
	writeFile(t, filepath.Join(vault, "project", "a.md"), "a\n")
	stage(t, dir, ".memory/project/a.md")
	if diff := cmp.Diff(map[string]string{".memory/project/a.md": "a\n"}, walk()); diff != "" {
		t.Errorf("unborn branch (-want +got):\n%s", diff)
	}
	commitFiles(t, s, "one", map[string]string{".memory/project/a.md": "a\n", ".memory/project/b.md": "b\n"})
	if got := walk(); len(got) != 0 {
		t.Errorf("nothing staged beyond HEAD, got %v", got)
	}
	writeFile(t, filepath.Join(vault, "project", "b.md"), "b changed\n")
	writeFile(t, filepath.Join(vault, "project", "c.md"), "c\n")
	stage(t, dir, ".memory/project/b.md", ".memory/project/c.md")
	want := map[string]string{".memory/project/b.md": "b changed\n", ".memory/project/c.md": "c\n"}
	if diff := cmp.Diff(want, walk()); diff != "" {
		t.Errorf("changed and added (-want +got):\n%s", diff)
	}
}

func TestTracked(t *testing.T) {
	t.Parallel()
	dir, s := newRepo(t)
	commitFiles(t, s, "one", map[string]string{".memory/project/a.md": "a\n"})
	writeFile(t, filepath.Join(dir, ".memory", "project", "b.md"), "b\n")
	writeFile(t, filepath.Join(dir, ".memory", "project", "c.md"), "c\n")
	stage(t, dir, ".memory/project/c.md")
	a, b := filepath.Join(dir, ".memory", "project", "a.md"), filepath.Join(dir, ".memory", "project", "b.md")
	got, err := s.Tracked(t.Context(), []string{a, b, ".memory/project/c.md", "/elsewhere/x.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{a: true, ".memory/project/c.md": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tracked (-want +got):\n%s", diff)
	}
}
