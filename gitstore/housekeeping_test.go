package gitstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCommitPacksPastGCAuto (issue 24 finding 8): once a commit leaves
// more loose objects than gc.auto allows (git's own estimate), Commit
// starts git gc --auto in the background; when it ends the objects are
// packed. Below the threshold nothing starts.
func TestCommitPacksPastGCAuto(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, s := newRepo(t)
	s.Close()
	// gc.auto 256: more than one loose object in objects/17.
	appendFile(t, filepath.Join(dir, ".git", "config"), "[gc]\n\tauto = 256\n")
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.NoSync = true
	commitFiles(t, s, "first", map[string]string{"a.md": "a\n"})
	if s.gcDone.Load() != nil {
		t.Fatal("housekeeping started below the threshold")
	}
	// 100 files a commit: about 0.4 objects in objects/17 each; the loop
	// ends when a commit crossed the threshold.
	for i := 0; s.gcDone.Load() == nil; i++ {
		if i == 200 {
			t.Fatalf("no housekeeping after %d commits; objects: %+v", i, must(s.ObjectStats()))
		}
		files := map[string]string{}
		for j := range 100 {
			files[fmt.Sprintf("f%03d.md", j)] = fmt.Sprintf("commit %d file %d\n", i, j)
		}
		commitFiles(t, s, fmt.Sprint("commit ", i), files)
	}
	if err := s.WaitHousekeeping(t.Context()); err != nil {
		t.Fatal(err)
	}
	o := must(s.ObjectStats())
	if o.Packs == 0 || o.PackBytes == 0 || o.Loose > 256 {
		t.Errorf("after git gc --auto: %+v, want the objects packed", o)
	}
	// The gc left the refs alone: packing them takes the branch's lock,
	// which a write running beside it met and failed on.
	if b, err := os.ReadFile(filepath.Join(dir, ".git", "packed-refs")); err == nil {
		t.Errorf("the gc packed the refs (it took the branch's lock):\n%s", b)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestCommitRepacksPastLooseBytes (issue 24 finding 8, by size): loose
// objects under gc.auto's count can still weigh hundreds of MiB (a tree
// of a large folder per write). Once their bytes pass the bound, Commit
// starts git repack -d in the background, which git gc --auto would not
// (under its count it does nothing); when it ends the objects are packed.
// Past gc.autoPackLimit packs it starts git gc --auto instead, which
// merges them.
func TestCommitRepacksPastLooseBytes(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, tc := range []struct {
		name      string
		packLimit string // gc.autoPackLimit, "" unset
		packs     int    // packs made by hand before
		want      int    // packs after
	}{
		{"repack adds a pack", "", 1, 2},
		{"past gc.autoPackLimit the packs are merged", "1", 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, s := newRepo(t)
			if tc.packLimit != "" {
				s.Close()
				appendFile(t, filepath.Join(dir, ".git", "config"), "[gc]\n\tautoPackLimit = "+tc.packLimit+"\n")
				var err error
				if s, err = Open(t.Context(), dir); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
			}
			s.NoSync = true
			s.looseBytes = 256 << 10
			rng := rand.New(rand.NewPCG(1, 2))
			commit := func(i int) {
				t.Helper()
				// 20 files of 8 KiB of hex (about 90 KiB of loose objects
				// once compressed).
				files := map[string]string{}
				for j := range 20 {
					b := make([]byte, 4<<10)
					for k := range b {
						b[k] = byte(rng.IntN(256))
					}
					files[fmt.Sprintf("f%02d.md", j)] = fmt.Sprintf("%x\n", b)
				}
				commitFiles(t, s, fmt.Sprint("commit ", i), files)
			}
			s.NoHousekeeping = true
			for i := range tc.packs {
				commit(-1 - i)
				if out, err := exec.Command("git", "-C", dir, "repack", "-d", "-q").CombinedOutput(); err != nil {
					t.Fatalf("git repack: %v\n%s", err, out)
				}
			}
			s.NoHousekeeping = false
			// Far under gc.auto's 6,700 objects (100 commits stay under);
			// the loop ends when a commit crossed the bound.
			for i := 0; s.gcDone.Load() == nil; i++ {
				if i == 100 {
					t.Fatalf("no housekeeping after %d commits; objects: %+v", i, must(s.ObjectStats()))
				}
				commit(i)
			}
			before := must(s.ObjectStats())
			if before.Loose > 3000 {
				t.Fatalf("the test passed gc.auto's count: %+v", before)
			}
			if err := s.WaitHousekeeping(t.Context()); err != nil {
				t.Fatal(err)
			}
			if o := must(s.ObjectStats()); o.Packs != tc.want || o.Loose >= before.Loose/2 {
				t.Errorf("after the housekeeping: %+v (before %+v), want the loose objects packed, %d pack(s)", o, before, tc.want)
			}
		})
	}
}
