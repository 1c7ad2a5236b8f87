package store

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestScanFolders checks that ScanFolders gives what scan gives while it
// takes unchanged folders' listings from their records, lists a folder
// whose entries changed, and records no listing that could go stale
// unseen: a folder changed within RacyWindow, a folder holding a link.
//
// A step that changes a folder also sets its modification time to one no
// listing recorded: on a file system with coarse timestamps, a change in
// the same tick as the last listing can leave the times as they were,
// which RacyWindow guards against in a real load and a test with a clock
// an hour ahead does not.
func TestScanFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{
		"README.md", "notes.md", "notes.txt", ".hidden.md",
		"project/a.md", "project/b.md", "project/.x.md",
		"project/sub/deep/c.md", "project/sub/d.markdown",
		".git/x.md", "a-b.md", "a/b.md", "meta/中文.md", "meta/_under.md",
		"links/target.md",
	} {
		writeFiles(t, dir, map[string]string{p: "# x\n"})
	}
	mustMkdir(t, filepath.Join(dir, "empty", "deeper"))
	if err := os.Symlink("target.md", filepath.Join(dir, "links", "link.md")); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour) // every folder old enough to record
	stamp := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	touch := func(t *testing.T, rel string) {
		t.Helper()
		stamp = stamp.Add(time.Second)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(rel)), stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	recorded := func(recs []FolderRec) []string {
		var rels []string
		for _, r := range recs {
			rels = append(rels, r.Rel)
		}
		return rels
	}
	check := func(t *testing.T, prev []FolderRec, now time.Time, wantListed int) []FolderRec {
		t.Helper()
		want, err := Scan(t.Context(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, recs, listed, _, err := ScanFolders(t.Context(), dir, prev, now)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("ScanFolders = %q\nscan gives %q", got, want)
		}
		if runtime.GOOS == "linux" && listed != wantListed {
			t.Errorf("listed %d folders, want %d", listed, wantListed)
		}
		return recs
	}
	all := []string{"", "a", "empty", "empty/deeper", "meta", "project", "project/sub", "project/sub/deep"}
	t.Run("changed a moment ago: nothing recorded", func(t *testing.T) {
		if recs := check(t, nil, time.Now(), 9); len(recs) != 0 {
			t.Errorf("recorded %q, want none", recorded(recs))
		}
	})
	recs := check(t, nil, later, 9)
	if runtime.GOOS != "linux" {
		return // no stat data to record by
	}
	if got := recorded(recs); !slices.Equal(got, all) {
		t.Fatalf("recorded %q, want %q (not links/, which holds a link)", got, all)
	}
	recs = check(t, recs, later, 1) // links/ only
	steps := []struct {
		name    string
		change  func(t *testing.T)
		folders []string // whose times the change moved
	}{
		{"file added deep", func(t *testing.T) { writeFiles(t, dir, map[string]string{"project/sub/deep/e.md": "# e\n"}) }, []string{"project/sub/deep"}},
		{"file removed", func(t *testing.T) {
			if err := os.Remove(filepath.Join(dir, "meta", "_under.md")); err != nil {
				t.Fatal(err)
			}
		}, []string{"meta"}},
		{"folder added", func(t *testing.T) { writeFiles(t, dir, map[string]string{"short-term/new.md": "# n\n"}) }, []string{""}},
		{"file renamed", func(t *testing.T) {
			if err := os.Rename(filepath.Join(dir, "a", "b.md"), filepath.Join(dir, "a", "z.md")); err != nil {
				t.Fatal(err)
			}
		}, []string{"a"}},
		{"folder removed", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Join(dir, "empty")); err != nil {
				t.Fatal(err)
			}
		}, []string{""}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.change(t)
			for _, f := range st.folders {
				touch(t, f)
			}
			// The changed folders and links/ are listed; a new folder is
			// listed too.
			listed := len(st.folders) + 1
			if st.name == "folder added" {
				listed++
			}
			recs = check(t, recs, later, listed)
			recs = check(t, recs, later, 1)
		})
	}
}
