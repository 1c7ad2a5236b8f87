package gitstore

import (
	"bytes"
	"crypto/sha1"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "regenerate testdata/index from the git CLI")

// indexFixtures builds real index files with the git CLI, one per feature
// this package must round-trip.
func indexFixtures(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	dir := t.TempDir()
	git := func(args ...string) { runGit(t, dir, args...) }
	grab := func(name string) {
		out[name] = readFile(t, filepath.Join(dir, ".git", "index"))
	}
	git("init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "a.md"), "a\n")
	writeFile(t, filepath.Join(dir, "dir/b.md"), "b\n")
	writeFile(t, filepath.Join(dir, "dir/sub/c.md"), "c\n")
	writeFile(t, filepath.Join(dir, "dir-x.md"), "sorts between dir and dir/\n")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	grab("v2-tree") // full cache-tree
	writeFile(t, filepath.Join(dir, "intent.md"), "i\n")
	git("add", "-N", "intent.md")
	grab("v3-intent-to-add") // extended flags force version 3
	git("rm", "-q", "--cached", "intent.md")
	git("update-index", "--index-version", "4")
	git("commit", "-q", "--allow-empty", "-m", "v4")
	grab("v4")
	git("update-index", "--index-version", "2")
	// An unmerged path with stages 1-3, plus the resolve-undo extension once
	// another conflict is resolved.
	git("checkout", "-q", "-b", "side")
	writeFile(t, filepath.Join(dir, "a.md"), "side\n")
	writeFile(t, filepath.Join(dir, "dir/b.md"), "side b\n")
	git("commit", "-q", "-am", "side")
	git("checkout", "-q", "main")
	writeFile(t, filepath.Join(dir, "a.md"), "main\n")
	writeFile(t, filepath.Join(dir, "dir/b.md"), "main b\n")
	git("commit", "-q", "-am", "main")
	gitOutput(dir, nil, "merge", "-q", "side") // conflicts on purpose
	git("add", "dir/b.md")
	grab("v2-unmerged-reuc")
	git("merge", "--abort")
	git("config", "core.untrackedCache", "true")
	writeFile(t, filepath.Join(dir, "untracked.txt"), "u\n")
	git("status", "--porcelain")
	grab("v2-untracked-cache")
	return out
}

func TestIndexRoundTrip(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "index")
	if *update {
		requireGit(t)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range indexFixtures(t) {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/index; run with -update")
	}
	for _, f := range files {
		t.Run(f.Name(), func(t *testing.T) {
			data := readFile(t, filepath.Join(dir, f.Name()))
			ix, err := decodeIndex(data)
			if err != nil {
				t.Fatal(err)
			}
			enc := ix.encode(nil)
			if strings.Contains(f.Name(), "untracked-cache") {
				// UNTR is dropped; everything else must survive.
				if bytes.Equal(enc, data) {
					t.Error("untracked cache was kept")
				}
			} else if !bytes.Equal(enc, data) {
				t.Errorf("encode(decode(x)) differs from x (%d vs %d bytes)", len(enc), len(data))
			}
			again, err := decodeIndex(enc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(describeIndex(ix), describeIndex(again)); diff != "" {
				t.Errorf("re-decoded index differs (-first +second):\n%s", diff)
			}
		})
	}
}

func describeIndex(ix *indexFile) []string {
	var out []string
	for _, e := range ix.entries {
		out = append(out, e.name+" "+string(rune('0'+e.stage())))
	}
	if ix.tree != nil {
		out = append(out, "TREE "+string(ix.tree.encode(nil)))
	}
	for _, x := range ix.keep {
		out = append(out, x.sig)
	}
	return out
}

func TestIndexUpdateKeepsOrderAndStages(t *testing.T) {
	t.Parallel()
	ix, err := decodeIndex(readFile(t, filepath.Join("testdata", "index", "v2-unmerged-reuc")))
	if err != nil {
		t.Fatal(err)
	}
	var h [20]byte
	ix.set(newIndexEntry("dir-a.md", statData{}, modeFile, h))
	ix.set(newIndexEntry("dir/b.md/x", statData{}, modeFile, h)) // replaces the file dir/b.md
	ix.set(newIndexEntry("0first", statData{}, modeFile, h))
	ix.remove("dir/sub/c.md")
	got, err := decodeIndex(ix.encode(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0first 0", "a.md 1", "a.md 2", "a.md 3", "dir-a.md 0", "dir-x.md 0", "dir/b.md/x 0"}
	var names []string
	for _, e := range got.entries {
		names = append(names, e.name+" "+string(rune('0'+e.stage())))
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if len(got.keep) != 1 || got.keep[0].sig != "REUC" {
		t.Errorf("extensions kept = %v, want REUC", got.keep)
	}
}

func TestIndexRejects(t *testing.T) {
	t.Parallel()
	good := readFile(t, filepath.Join("testdata", "index", "v2-tree"))
	withExt := func(sig string) []byte {
		ix, err := decodeIndex(good)
		if err != nil {
			t.Fatal(err)
		}
		ix.keep = append(ix.keep, indexExt{sig: sig, data: []byte("x")})
		return ix.encode(nil)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"bad signature", append([]byte("DIRX"), good[4:]...)},
		{"bad checksum", append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^1)},
		{"truncated", good[:len(good)/2]},
		{"split index", withExt("link")},
		{"sparse index", withExt("sdir")},
		{"unknown mandatory extension", withExt("zzzz")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decodeIndex(tt.data); err == nil {
				t.Error("decodeIndex accepted it")
			}
		})
	}
}

// TestCommitIndexFormats commits through memvault in repositories whose
// index uses version 4 and has an unmerged path left by an aborted
// operation, then checks them with the git CLI.
func TestCommitIndexFormats(t *testing.T) {
	t.Parallel()
	requireGit(t)
	t.Run("version 4", func(t *testing.T) {
		dir, s := newRepo(t)
		commitFiles(t, s, "seed", map[string]string{"m/a.md": "a\n", "m/b.md": "b\n", "x/y.txt": "y\n"})
		runGit(t, dir, "update-index", "--index-version", "4")
		commitFiles(t, s, "v4", map[string]string{"m/a.md": "a2\n", "m/aa.md": "aa\n", "m/b.md": ""})
		if got := runGit(t, dir, "status", "--porcelain"); got != "" {
			t.Errorf("git status = %q", got)
		}
		if v := readFile(t, filepath.Join(dir, ".git/index"))[7]; v != 4 {
			t.Errorf("index version = %d, want 4", v)
		}
		checkCacheTree(t, dir)
		runGit(t, dir, "fsck", "--strict", "--no-progress")
	})
	t.Run("unmerged entries survive", func(t *testing.T) {
		dir, s := newRepo(t)
		commitFiles(t, s, "seed", map[string]string{"c.md": "base\n", "m/a.md": "a\n"})
		runGit(t, dir, "checkout", "-q", "-b", "side")
		commitFiles(t, s, "side", map[string]string{"c.md": "side\n"})
		runGit(t, dir, "checkout", "-q", "master")
		commitFiles(t, s, "master", map[string]string{"c.md": "master\n"})
		gitOutput(dir, nil, "merge", "-q", "side")
		unmerged := runGit(t, dir, "ls-files", "-u")
		if unmerged == "" {
			t.Fatal("no conflict was produced")
		}
		for _, f := range []string{"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"} {
			os.Remove(filepath.Join(dir, ".git", f))
		}
		commitFiles(t, s, "memory during a conflict", map[string]string{"m/a.md": "a2\n"})
		if got := runGit(t, dir, "ls-files", "-u"); got != unmerged {
			t.Errorf("unmerged entries = %q, want %q", got, unmerged)
		}
		if got := runGit(t, dir, "status", "--porcelain"); got != "UU c.md\n" {
			t.Errorf("git status = %q", got)
		}
	})
}

func FuzzDecodeIndex(f *testing.F) {
	files, _ := os.ReadDir(filepath.Join("testdata", "index"))
	for _, fi := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "index", fi.Name()))
		if err == nil && len(data) > 20 {
			f.Add(data[:len(data)-20])
		}
	}
	// The input is the index without its checksum, which is appended here
	// so that mutations reach the parser instead of failing verification.
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha1.Sum(body)
		data := append(body[:len(body):len(body)], sum[:]...)
		ix, err := decodeIndex(data)
		if err != nil {
			return
		}
		again, err := decodeIndex(ix.encode(nil))
		if err != nil {
			t.Fatalf("re-decoding an encoded index: %v", err)
		}
		if len(again.entries) != len(ix.entries) {
			t.Fatalf("%d entries after round trip, want %d", len(again.entries), len(ix.entries))
		}
	})
}

func FuzzParseTree(f *testing.F) {
	f.Add(encodeTree(nil, []treeEntry{{name: "a.md", mode: modeFile}, {name: "dir", mode: modeDir}}))
	f.Add([]byte("100644 x\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := parseTree(data)
		if err != nil {
			return
		}
		again, err := parseTree(encodeTree(nil, tr.entries))
		if err != nil {
			t.Fatalf("re-parsing an encoded tree: %v", err)
		}
		if len(again.entries) != len(tr.entries) {
			t.Fatalf("%d entries after round trip, want %d", len(again.entries), len(tr.entries))
		}
	})
}

func TestTreeOrder(t *testing.T) {
	t.Parallel()
	// git sorts "a.md" < "a" (as directory "a/") < "a0": '.' < '/' < '0'.
	tr := &tree{}
	for _, e := range []treeEntry{{name: "a0", mode: modeFile}, {name: "a", mode: modeDir}, {name: "a.md", mode: modeFile}, {name: "b", mode: modeFile}} {
		k, _ := tr.search(e.name, e.isDir())
		tr.insert(k, e)
	}
	var got []string
	for _, e := range tr.entries {
		got = append(got, e.name)
	}
	if diff := cmp.Diff([]string{"a.md", "a", "a0", "b"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if e, ok := tr.find("a"); !ok || !e.isDir() {
		t.Errorf("find(a) = %v, %v", e, ok)
	}
}

func TestWildmatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		fold, want    bool
	}{
		{"**/work/**", "/home/u/work/repo/.git", false, true},
		{"/home/u/work/**", "/home/u/work/repo/.git", false, true},
		{"/home/u/work/**", "/home/u/play/repo/.git", false, false},
		{"/home/*/repo/.git", "/home/u/repo/.git", false, true},
		{"/home/*/repo/.git", "/home/u/x/repo/.git", false, false},
		{"**/WORK/**", "/home/u/work/r/.git", true, true},
		{"feature/**", "feature/x/y", false, true},
		{"ma?n", "main", false, true},
		{"[mn]ain", "main", false, true},
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.name, tt.fold); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestTreeCompareBytes(t *testing.T) {
	t.Parallel()
	names := []string{"a", "a.md", "a0", "ab", "b", "", "a-b", "a\xff"}
	for _, e := range names {
		for _, dir := range []bool{false, true} {
			for _, n := range names {
				got := treeCompareBytes([]byte(e), dir, n)
				var want int
				switch {
				case e == n:
					want = 0
				case treeCompare(e, dir, n, true) > 0:
					want = 1
				default:
					want = -1
				}
				if got != want {
					t.Errorf("treeCompareBytes(%q, dir=%v, %q) = %d, want %d", e, dir, n, got, want)
				}
			}
		}
	}
}

// encode serialises the index with its checksum, as Commit writes it
// (layoutIndex, fillIndex).
func (ix *indexFile) encode(buf []byte) []byte {
	spill, spans, _ := ix.layout(nil)
	buf = ix.join(buf, spans, spill)
	sum := sha1.Sum(buf)
	return append(buf, sum[:]...)
}

// TestIndexRunsAcrossCommits commits one file after another, adding,
// editing and deleting, with a small bound on the entries encoded one by
// one, so that Commit alternates between writing runs from the bytes
// they were read from and laying the index out in full. After each commit
// git must read the index as the commit's tree, with nothing staged or
// changed.
func TestIndexRunsAcrossCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	requireGit(t)
	t.Parallel()
	root, s := newRepo(t)
	s.maxLooseIndex = 3
	seed := map[string]string{}
	for i := range 40 {
		seed[fmt.Sprintf("m/f%03d.md", i*2)] = fmt.Sprintf("seed %d\n", i)
	}
	commitFiles(t, s, "seed", seed)
	full := 0
	for i := range 30 {
		files := map[string]string{}
		switch i % 3 {
		case 0:
			files[fmt.Sprintf("m/f%03d.md", i*2+1)] = fmt.Sprintf("new %d\n", i) // between two entries
		case 1:
			files[fmt.Sprintf("m/f%03d.md", i*2)] = fmt.Sprintf("edit %d\n", i)
		case 2:
			files[fmt.Sprintf("m/f%03d.md", i*2)] = "" // delete
		}
		src := unsafe.SliceData(s.index.src)
		commitFiles(t, s, fmt.Sprintf("step %d", i), files)
		if unsafe.SliceData(s.index.src) != src { // laid out in full and adopted
			full++
		}
		// GIT_OPTIONAL_LOCKS=0: status must not rewrite the index, or
		// the next commit would decode git's file, not go on from its own.
		got, err := gitOutput(root, []string{"GIT_OPTIONAL_LOCKS=0"}, "status", "--porcelain")
		if err != nil || got != "" {
			t.Fatalf("step %d: git status: %v\n%s", i, err, got)
		}
		if got := runGit(t, root, "diff-index", "--cached", "HEAD"); got != "" {
			t.Fatalf("step %d: the index differs from HEAD:\n%s", i, got)
		}
	}
	if full == 0 || full == 30 {
		t.Errorf("%d of 30 commits laid the index out in full; want some, not all", full)
	}
	// The index git reads is the one the Store writes from its runs.
	data := readFile(t, filepath.Join(root, ".git", "index"))
	ix, err := decodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if again := ix.encode(nil); !bytes.Equal(again, data) {
		t.Errorf("the written index does not encode back to itself")
	}
	runGit(t, root, "fsck", "--strict")
}

// TestIndexSetInPlace checks that a decoded index takes the entries of a
// commit without moving all of them to a new array (indexSpare).
func TestIndexSetInPlace(t *testing.T) {
	t.Parallel()
	ix, err := decodeIndex(readFile(t, filepath.Join("testdata", "index", "v2-tree")))
	if err != nil {
		t.Fatal(err)
	}
	first := &ix.entries[0]
	var h [20]byte
	for i := range indexSpare {
		ix.set(newIndexEntry(fmt.Sprintf("zz/new-%02d.md", i), statData{}, modeFile, h))
	}
	if &ix.entries[0] != first {
		t.Errorf("%d new entries moved the index's entries to a new array", indexSpare)
	}
}
