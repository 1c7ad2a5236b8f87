package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/store"
)

// treeOf lists every path under root with its type, never following a
// link: what a test compares before and after memvault ran.
func treeOf(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel+" "+d.Type().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCacheDirRefused checks that a cache folder that is a link (to the
// repository's top, to the vault itself, to a folder elsewhere) or not
// a folder is never used (issue 27 finding 3): loads with the cache
// write nothing anywhere, clearing killed writes' temporary files
// removes nothing through it, the memories load all the same, and
// CheckCacheDir names it; FixCacheDir replaces a link with a folder and
// leaves anything else alone.
func TestCacheDirRefused(t *testing.T) {
	tests := []struct {
		name  string
		make  func(t *testing.T, top, vault string) string // returns a decoy folder the link leads to, or ""
		fixed bool
	}{
		{"link to the top", func(t *testing.T, top, vault string) string {
			mustSymlink(t, "..", filepath.Join(vault, CacheDirName))
			return top
		}, true},
		{"link to the vault", func(t *testing.T, top, vault string) string {
			mustSymlink(t, ".", filepath.Join(vault, CacheDirName))
			return vault
		}, true},
		{"link outside", func(t *testing.T, top, vault string) string {
			out := filepath.Join(top, "elsewhere")
			mustMkdir(t, out)
			mustSymlink(t, out, filepath.Join(vault, CacheDirName))
			return out
		}, true},
		{"a file", func(t *testing.T, top, vault string) string {
			if err := os.WriteFile(filepath.Join(vault, CacheDirName), []byte("someone's notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return ""
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			vault := filepath.Join(top, ".memory")
			writeFiles(t, vault, cacheTestFiles)
			decoy := tc.make(t, top, vault)
			if decoy != "" {
				// What store.RemoveTemps removes in a real cache folder.
				if err := os.WriteFile(filepath.Join(decoy, store.IndexFileName+".tmp-decoy"), []byte("keep\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := treeOf(t, top)
			plain, err := Open(t.Context(), vault, Options{Now: cacheTestNow})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				v, err := Open(t.Context(), vault, Options{Now: cacheTestNow, IndexCache: true})
				if err != nil {
					t.Fatal(err)
				}
				if v.load.stats.FromCache || len(v.All()) != len(plain.All()) {
					t.Errorf("load through a refused cache folder: from cache %v, %d memories; want false, %d", v.load.stats.FromCache, len(v.All()), len(plain.All()))
				}
				store.RemoveTemps(v.dir)
			}
			if after := treeOf(t, top); !slices.Equal(before, after) {
				t.Errorf("files changed:\nbefore %v\nafter  %v", before, after)
			}
			if err := CheckCacheDir(vault); !errors.Is(err, ErrCacheDir) {
				t.Errorf("CheckCacheDir: %v, want ErrCacheDir", err)
			}
			err = FixCacheDir(vault)
			if !tc.fixed {
				if err == nil {
					t.Error("FixCacheDir removed what is not a link")
				}
				if after := treeOf(t, top); !slices.Equal(before, after) {
					t.Errorf("FixCacheDir changed files:\nbefore %v\nafter  %v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckCacheDir(vault); err != nil {
				t.Errorf("CheckCacheDir after the fix: %v", err)
			}
			if b, err := os.ReadFile(filepath.Join(vault, CacheDirName, GitignoreName)); err != nil || string(b) != store.GitignoreBody {
				t.Errorf("the new folder's .gitignore: %q, %v", b, err)
			}
			if decoy != "" {
				if _, err := os.Stat(filepath.Join(decoy, store.IndexFileName+".tmp-decoy")); err != nil {
					t.Errorf("the fix reached through the link: %v", err)
				}
			}
			v, err := Open(t.Context(), vault, Options{Now: cacheTestNow, IndexCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(cachePathOf(vault)); err != nil || len(v.All()) != len(plain.All()) {
				t.Errorf("after the fix: cache %v, %d memories", err, len(v.All()))
			}
		})
	}
}

// TestCacheFileNotRegular checks that what is not a regular file at the
// cache's name is refused without blocking (issue 27 finding 7: a FIFO
// hung the load forever): the load reads the files, and its write
// replaces the thing by a cache.
func TestCacheFileNotRegular(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, p string)
	}{
		{"fifo", func(t *testing.T, p string) { mustMkfifo(t, p) }},
		{"link to a cache elsewhere", func(t *testing.T, p string) {
			other := filepath.Join(t.TempDir(), "v")
			writeFiles(t, other, cacheTestFiles)
			if _, err := Open(t.Context(), other, Options{Now: cacheTestNow, IndexCache: true}); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, cachePathOf(other), p)
		}},
		{"folder", func(t *testing.T, p string) { mustMkdir(t, p) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, cacheTestFiles)
			mustMkdir(t, filepath.Join(dir, CacheDirName))
			tc.make(t, cachePathOf(dir))
			v, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if v.load.stats.FromCache || v.load.stats.Read != len(cacheTestFiles) {
				t.Errorf("from cache %v, %d files read; want false, %d", v.load.stats.FromCache, v.load.stats.Read, len(cacheTestFiles))
			}
			fi, err := os.Lstat(cachePathOf(dir))
			if tc.name != "folder" && (err != nil || !fi.Mode().IsRegular()) {
				t.Errorf("the load's write left %v, %v at the cache's name", fi, err)
			}
		})
	}
}

// TestCacheSparseTail checks that a cache whose size is not the one it
// declares is refused when opened, before its checksum reads it through
// (issue 27 finding 7: a 3 GiB sparse tail cost 8 s a load).
func TestCacheSparseTail(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, cacheTestFiles)
	v, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true})
	if err != nil {
		t.Fatal(err)
	}
	p := cachePathOf(dir)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, fi.Size()+3<<30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	if cf := store.OpenIndex[Memory](v.dir, v.load.cfg.IndexCache, v.maxFileSize, false); cf != nil {
		cf.Release()
		t.Fatal("a cache with a 3 GiB tail was opened")
	}
	again, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.load.stats.FromCache {
		t.Error("the load used the cache with a tail")
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() > 1<<20 {
		t.Errorf("the load did not write the cache again: %v, %v", fi, err)
	}
}

// TestCacheTruncatedUnderMapping checks that a vault opened with
// CopyIndexCache (a server) keeps reading its memories after another
// program truncated the cache file (issue 27 finding 7: the mapping of
// the file faulted, SIGBUS, and the server died). The reads run with
// faults turned into panics, so that the test fails rather than dies.
func TestCacheTruncatedUnderMapping(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cache is mapped on Linux only")
	}
	dir := t.TempDir()
	writeFiles(t, dir, cacheTestFiles)
	if _, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true}); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(cachePathOf(dir), later, later); err != nil {
		t.Fatal(err)
	}
	v, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true, CopyIndexCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if !v.load.stats.FromCache {
		t.Fatal("the load did not use the cache")
	}
	want := map[string]int{}
	for _, m := range v.All() {
		want[m.Path] = len(m.Body)
	}
	if err := os.Truncate(cachePathOf(dir), 0); err != nil {
		t.Fatal(err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("reading a memory after the cache was truncated: %v", r)
		}
	}()
	for _, m := range v.All() {
		sum := 0
		for i := range len(m.Body) {
			sum += int(m.Body[i])
		}
		if len(m.Body) != want[m.Path] || (len(m.Body) > 0 && sum == 0) {
			t.Errorf("%s: body of %d bytes, want %d", m.Path, len(m.Body), want[m.Path])
		}
	}
}
