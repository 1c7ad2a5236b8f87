package gitstore

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCommitKeepsRacilyCleanChangesVisible is the regression test of a
// change hidden from git (found by TestKilledSyncRecovers: the user's
// notes.txt, rewritten at the same size within a second of a git commit,
// was clean to git status after the next memvault write). Each case
// rewrites a tracked file, that is not part of the commit, so that its
// stat data still matches its index entry while its index is not newer
// than the entry (git then re-reads it), and commits another file.
// Afterwards the entry must not claim the file is clean when it is not:
// either its object is the file's or its size is zeroed (git's smudge),
// and git status, comparing stat data to the second, must list the file.
func TestCommitKeepsRacilyCleanChangesVisible(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		rewrite string // the new content, same size as "notes r0\n"
		smudged bool
		reopen  bool // commit through a new Store, which decodes the index
	}{
		{"changed at the same size", "notes r1\n", true, false},
		{"changed, a new process", "notes r1\n", true, true},
		{"rewritten unchanged", "notes r0\n", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, s := newRepo(t)
			notes := filepath.Join(dir, "notes.txt")
			index := filepath.Join(dir, ".git", "index")
			// An mtime in the past, so that only the index's own time can
			// make git doubt the entry.
			mtime := time.Date(2026, 1, 2, 3, 4, 5, 250_000_000, time.UTC)
			writeFile(t, notes, "notes r0\n")
			if err := os.Chtimes(notes, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			paths := writeWorkFiles(t, dir, map[string]string{".memory/a.md": "a\n"})
			if _, err := s.Commit(t.Context(), Change{Paths: append(paths, notes), Message: "seed", Author: testAuthor}); err != nil {
				t.Fatal(err)
			}
			before := indexEntries(t, dir)["notes.txt"]

			// The file is rewritten within the same clock tick (its mtime as
			// before), and the index is no newer than it.
			writeFile(t, notes, tc.rewrite)
			if err := os.Chtimes(notes, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(index, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			if gitPath() != "" {
				if got, want := runGit(t, dir, "--no-optional-locks", "-c", "core.trustctime=false", "status", "--porcelain", "notes.txt"), statusOf(tc.smudged); got != want {
					t.Fatalf("before the commit, git status = %q, want %q", got, want)
				}
			}

			writeFile(t, filepath.Join(dir, ".memory/a.md"), "a v2\n")
			if tc.reopen {
				var err error
				if s, err = Open(t.Context(), dir); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
			}
			if _, err := s.Commit(t.Context(), Change{Paths: []string{filepath.Join(dir, ".memory/a.md")}, Message: "a v2", Author: testAuthor}); err != nil {
				t.Fatal(err)
			}

			after := indexEntries(t, dir)["notes.txt"]
			size := binary.BigEndian.Uint32(after[36:])
			if got := size == 0; got != tc.smudged {
				t.Errorf("notes.txt's entry after the commit has size %d; want smudged (0) %v", size, tc.smudged)
			}
			if string(after[indexHashOffset:indexHashOffset+indexHashLen]) != string(before[indexHashOffset:indexHashOffset+indexHashLen]) {
				t.Errorf("notes.txt's object changed in the index: the commit must leave the user's file unstaged")
			}
			if gitPath() != "" {
				if got, want := runGit(t, dir, "--no-optional-locks", "-c", "core.trustctime=false", "status", "--porcelain", "notes.txt"), statusOf(tc.smudged); got != want {
					t.Errorf("after the commit, git status = %q, want %q", got, want)
				}
			}
		})
	}
}

func statusOf(changed bool) string {
	if changed {
		return " M notes.txt\n"
	}
	return ""
}
