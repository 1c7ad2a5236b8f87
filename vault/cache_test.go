package vault

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/store"
)

// cacheTestFiles is a vault with what a cache must carry or must leave to
// each load: memories of every layer with every field (refs, verified_at,
// links, wiki links, supersedes, source, dates), a note without front
// matter (a warning), two files carrying one id, a file with conflict
// markers (HEAD's version served), a file with a conflict entry, a file
// that is not text, and Chinese.
var cacheTestFiles = map[string]string{
	"project/deploy.md": "---\nid: deploy\ntitle: Deploy with the script\nlayer: project\nimportance: 8\ntags: [ops, 部署]\naliases: [ship it]\n" +
		"created_at: 2026-03-01T10:00:00Z\nupdated_at: 2026-03-02T10:00:00Z\nverified_at: 2026-03-03T10:00:00.5Z\nlinks: [tests]\n" +
		"refs: [ops/deploy.sh, 'cmd/memvault/app.go#Main']\nsource: {client: cursor, kind: manual}\nversion: 3\n---\n" +
		"# Deploy with the script\n\nRun `ops/deploy.sh` from the repository root; see [[tests]].\n",
	"project/tests.md": "---\nid: tests\ntitle: 测试怎么跑\nlayer: project\nstatus: active\ncreated_at: 2026-03-01T10:00:00Z\neffective_at: 2026-03-05T00:00:00Z\nsupersedes: [old-tests]\n---\n" +
		"用 `make test` 跑全部测试，**不要**跳过集成测试。\n",
	"project/old-tests.md": "---\nid: old-tests\ntitle: Old test command\nstatus: superseded\ncreated_at: 2025-01-01T00:00:00Z\nexpires_at: 2300-01-01T00:00:00Z\n---\nRun go test only.\n",
	// Two files, one id: the tracked one must keep it whatever the order.
	"project/a-checkout.md": "---\nid: checkout\ntitle: Checkout uses if/else chains\ncreated_at: 2026-11-01T00:00:00Z\n---\nNo patterns here.\n",
	"project/checkout.md":   "---\nid: checkout\ntitle: Checkout uses the strategy pattern\ncreated_at: 2026-11-01T00:00:00Z\n---\nPromotions multiply.\n",
	"project/money.md": "---\nid: money\ntitle: Money is int64 cents\n---\n" +
		"<<<<<<< HEAD\nNever float64.\n=======\nNever float32.\n>>>>>>> topic\n",
	"project/rate.md": "---\nid: rate\ntitle: Rates are decimals\n" +
		"conflict: {fields: 'title, body', theirs_title: 汇率用字符串, theirs_body: \"x\\n\"}\n---\nUse shopspring decimal for rates.\n",
	"short-term/wip.md": "---\nid: wip\ntitle: Work in progress\nlayer: short-term\ncreated_at: 2026-03-01T10:00:00Z\n---\n- one\n- two\n",
	"meta/plain.md":     "A hand-written note without front matter, about the deploy script.\n",
	"meta/nodates.md":   "---\nid: nodates\ntitle: Dates from the file\n---\nCreated and updated when the file was last modified.\n",
	"project/bin.md":    "---\nid: bin\n---\nnul \x00 byte\n",
}

// cacheTestHead is what the fake HEAD holds of the conflicted file.
var cacheTestHead = committedFiles{"project/money.md": "---\nid: money\ntitle: Money is int64 cents\n---\nNever float64.\n"}

var cacheTestNow = func() time.Time { return time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC) }

// vaultView is what a test compares between a vault loaded from its files
// and one loaded with the cache: everything a caller can see.
type vaultView struct {
	All       []*Memory
	Plain     []string
	Diags     []string
	Sentinels []string
	Stats     Stats
	Recall    [][]string
	Explained [][]Result // in force only, with explanations
	Related   []string
}

func viewOf(t *testing.T, v *Vault) vaultView {
	t.Helper()
	var w vaultView
	w.All = v.All()
	for _, m := range w.All {
		w.Plain = append(w.Plain, m.PlainText())
		for _, r := range v.Related(m) {
			w.Related = append(w.Related, m.ID+" -> "+r.ID)
		}
	}
	sentinels := []error{parser.ErrNoFrontMatter, parser.ErrBinary, ErrDuplicateID, ErrConflictMarkers, ErrSecret, ErrDangling}
	for _, d := range v.Diagnostics() {
		w.Diags = append(w.Diags, fmt.Sprintf("%s [%v]", d.Error(), d.Severity))
		var is []string
		for _, s := range sentinels {
			if errors.Is(d.Err, s) {
				is = append(is, s.Error())
			}
		}
		w.Sentinels = append(w.Sentinels, strings.Join(is, ","))
	}
	w.Stats = v.Stats()
	w.Stats.Dir, w.Stats.LoadedAt, w.Stats.UpdatedAt = "", time.Time{}, time.Time{}
	for _, q := range []string{"deploy script", "部署", "测试", "work", "note", "checkout pattern", "money float", "rates decimal", "ops"} {
		var got []string
		for _, r := range v.Recall(Query{Text: q, IncludeInactive: true}) {
			got = append(got, fmt.Sprintf("%s %.9g %s %s", r.Memory.ID, r.Score, r.State, r.Snippet))
		}
		w.Recall = append(w.Recall, got)
		w.Explained = append(w.Explained, v.Recall(Query{Text: q, Explain: true}))
	}
	return w
}

var viewOpts = []cmp.Option{cmp.AllowUnexported(Memory{}, Result{}), cmpopts.IgnoreFields(Memory{}, "text"), cmpopts.EquateEmpty()}

// cachePathOf is the index cache file of the vault in dir.
func cachePathOf(dir string) string { return filepath.Join(dir, CacheDirName, store.IndexFileName) }

// ageCache dates the cache file an hour ahead, so that the files written
// just before it are not racily clean: the next load then trusts their
// stat data, which is the path to test. (Racily clean files are read
// again, which would pass the parity checks too, without testing the
// stat path.)
func ageCache(t *testing.T, dir string) {
	t.Helper()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(cachePathOf(dir), later, later); err != nil {
		t.Fatal(err)
	}
}

// TestCacheParity checks, across hand edits, conflicted files, duplicate
// ids whose tracking changes, HEAD changing and files coming and going,
// that a load with the index cache gives exactly what a load from the
// files gives, and that a load after nothing changed reads no file and
// takes its index from the cache.
func TestCacheParity(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, cacheTestFiles)
	tracked := trackedSet{"project/checkout.md": true}
	head := committedFiles{}
	for k, s := range cacheTestHead {
		head[k] = s
	}
	// The cache folder exists before the first load: creating it changes
	// the root folder's times after the load listed it, and the root
	// would be listed until the cache is next written.
	mustMkdir(t, filepath.Join(dir, CacheDirName))
	// Folders changed a moment ago are listed each time (store.RacyWindow); an
	// hour ahead, every folder's listing may be recorded, and a step
	// that changes a folder's entries moves its times (see touchChanged).
	later := time.Now().Add(time.Hour)
	open := func(cache bool) *Vault {
		t.Helper()
		v, err := Open(t.Context(), dir, Options{Now: cacheTestNow, Tracker: tracked, Committed: head, IndexCache: cache, FSNow: func() time.Time { return later }})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// appendTo appends a line to the body of each file.
	appendTo := func(t *testing.T, line string, rels ...string) {
		t.Helper()
		for _, rel := range rels {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, map[string]string{rel: string(b) + line + "\n"})
		}
	}
	steps := []struct {
		name   string
		change func(t *testing.T)
	}{
		{"first load", func(*testing.T) {}},
		{"nothing changed", func(*testing.T) {}},
		{"hand edit of a body", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"short-term/wip.md": strings.Replace(cacheTestFiles["short-term/wip.md"], "- two", "- two and a deploy step", 1)})
		}},
		{"same size, times put back", func(t *testing.T) {
			p := filepath.Join(dir, "short-term", "wip.md")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			b[len(b)-2] = 'X'
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"tracking changes hands", func(*testing.T) {
			delete(tracked, "project/checkout.md")
			tracked["project/a-checkout.md"] = true
		}},
		{"nobody tracked", func(*testing.T) { delete(tracked, "project/a-checkout.md") }},
		{"HEAD changes the conflicted file", func(*testing.T) {
			head["project/money.md"] = "---\nid: money\ntitle: Money is int64 cents\n---\nNever float64, never float32.\n"
		}},
		{"HEAD loses the conflicted file", func(*testing.T) { delete(head, "project/money.md") }},
		{"conflict resolved", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"project/money.md": cacheTestHead["project/money.md"]})
		}},
		{"markers come back", func(t *testing.T) {
			head["project/money.md"] = cacheTestHead["project/money.md"]
			writeFiles(t, dir, map[string]string{"project/money.md": cacheTestFiles["project/money.md"]})
		}},
		{"a file added in the middle", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"project/build.md": "---\nid: build\ntitle: Build with make\nrefs: [Makefile]\n---\nmake build; see [[Deploy with the script]].\n"})
		}},
		{"a file removed", func(t *testing.T) {
			if err := os.Remove(filepath.Join(dir, "project", "old-tests.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"modification time only", func(t *testing.T) {
			at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
			if err := os.Chtimes(filepath.Join(dir, "meta", "nodates.md"), at, at); err != nil {
				t.Fatal(err)
			}
		}},
		{"refs and verified_at edited", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"project/deploy.md": strings.Replace(strings.Replace(cacheTestFiles["project/deploy.md"],
				"refs: [ops/deploy.sh,", "refs: [ops/deploy2.sh,", 1), "2026-03-03T10:00:00.5Z", "2026-03-04T10:00:00Z", 1)})
		}},
		{"id moved to another file", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"project/a-checkout.md": strings.Replace(cacheTestFiles["project/a-checkout.md"], "id: checkout", "id: checkout-2", 1)})
		}},
		{"one file edited", func(t *testing.T) {
			appendTo(t, "One more deploy step: 先跑测试。", "project/deploy.md")
		}},
		{"a few files edited", func(t *testing.T) {
			appendTo(t, "Checked again for the deploy script.", "project/tests.md", "short-term/wip.md", "meta/nodates.md")
		}},
		{"one added and one removed", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"meta/alpha.md": "---\nid: alpha\ntitle: Alpha notes on 部署\ntags: [ops]\n---\nThe deploy script has an alpha mode.\n"})
			if err := os.Remove(filepath.Join(dir, "project", "build.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{"many files edited", func(t *testing.T) {
			appendTo(t, "Work noted for the money and the rates.", "project/deploy.md", "project/tests.md", "short-term/wip.md",
				"meta/nodates.md", "meta/plain.md", "meta/alpha.md")
		}},
		{"a file added, nothing else", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"project/zeta.md": "---\nid: zeta\ntitle: Zeta is last\n---\nA work note about checkout.\n"})
		}},
	}
	// Where the first load after each step takes its index from (see
	// indexSource): while preferTracked gives a DocID to a tracked file,
	// the cached index is never patched, nor when many files changed.
	sources := map[string]string{
		"first load": "build", "nothing changed": "snapshot", "hand edit of a body": "build",
		"same size, times put back": "build", "tracking changes hands": "build", "nobody tracked": "snapshot",
		"many files edited": "build",
	}
	touch := folderToucher(t, dir)
	for i, st := range steps {
		st.change(t)
		touch(t)
		fresh := viewOf(t, open(false))
		warm := open(true)
		want := sources[st.name]
		if want == "" {
			want = "patch"
		}
		if got := indexSource(warm); got != want {
			t.Errorf("step %d (%s): the index came from the %s, want the %s", i, st.name, got, want)
		}
		if diff := cmp.Diff(fresh, viewOf(t, warm), viewOpts...); diff != "" {
			t.Fatalf("step %d (%s): the load with the cache differs from the load from files (-files +cache):\n%s", i, st.name, diff)
		}
		ageCache(t, dir)
		again := open(true)
		if diff := cmp.Diff(fresh, viewOf(t, again), viewOpts...); diff != "" {
			t.Fatalf("step %d (%s): the second load with the cache differs (-files +cache):\n%s", i, st.name, diff)
		}
		// Files with a problem of their own are read each time; every
		// other file, and the index, come from the cache.
		problems := map[string]bool{}
		for _, d := range again.Diagnostics() {
			if !errors.Is(d.Err, ErrDuplicateID) && !errors.Is(d.Err, ErrDangling) && !errors.Is(d.Err, ErrStatusDisagrees) {
				problems[d.Path] = true
			}
		}
		if !again.load.stats.FromCache || again.load.stats.Read != len(problems) || again.load.stats.Listed != 0 {
			t.Errorf("step %d (%s): second load: index from cache %v, %d files read, %d folders listed; want true, %d (the files with problems), 0",
				i, st.name, again.load.stats.FromCache, again.load.stats.Read, again.load.stats.Listed, len(problems))
		}
	}
}

// folderToucher returns a function that gives every folder of the vault
// in dir whose listing changed since the last call a modification time
// no earlier listing recorded. A real change moves the folder's times,
// but on a file system with coarse timestamps one made in the same tick
// as the last listing may not, which store.RacyWindow guards against in a load
// and a test whose clock runs an hour ahead does not.
func folderToucher(t *testing.T, dir string) func(t *testing.T) {
	entries := func(t *testing.T) map[string]string {
		t.Helper()
		out := map[string]string{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == CacheDirName {
				return fs.SkipDir
			}
			ents, err := os.ReadDir(p)
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			out[p] = strings.Join(names, "\x00")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	last := entries(t)
	stamp := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	return func(t *testing.T) {
		t.Helper()
		now := entries(t)
		for p, names := range now {
			if old, ok := last[p]; ok && old == names {
				continue
			}
			stamp = stamp.Add(time.Second)
			if err := os.Chtimes(p, stamp, stamp); err != nil {
				t.Fatal(err)
			}
		}
		last = now
	}
}

// indexSource says where the last load's index came from: "snapshot"
// (the cached index as it was), "patch" (the cached index patched) or
// "build" (built from the memories).
func indexSource(v *Vault) string {
	switch {
	case v.load.stats.Patched > 0:
		return "patch"
	case v.load.stats.FromCache:
		return "snapshot"
	}
	return "build"
}

// TestCacheIgnoredByGit checks the cache folder ignores itself.
func TestCacheIgnoredByGit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, cacheTestFiles)
	if _, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true}); err != nil {
		t.Fatal(err)
	}
	ignore, err := os.ReadFile(filepath.Join(dir, CacheDirName, ".gitignore"))
	if err != nil || !strings.HasSuffix(string(ignore), "\n*\n") {
		t.Fatalf(".gitignore = %q, %v; want one that ignores everything", ignore, err)
	}
	if _, err := os.Stat(cachePathOf(dir)); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	// An empty or missing vault gets none: nothing is created before the
	// first write.
	empty := filepath.Join(t.TempDir(), "none")
	if _, err := Open(t.Context(), empty, Options{IndexCache: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("opening a missing vault created %s: %v", empty, err)
	}
}

// TestCacheInvalid checks that a damaged cache, or one of another program
// or format, is never used: the load reads every file and gives what a
// load from the files gives.
func TestCacheInvalid(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, p string)
	}{
		{"truncated", func(t *testing.T, p string) {
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()/2)
		}},
		{"empty", func(t *testing.T, p string) { os.Truncate(p, 0) }},
		{"one byte flipped", func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			b[len(b)/3] ^= 0x20
			os.WriteFile(p, b, 0o644)
		}},
		{"a body byte flipped", func(t *testing.T, p string) {
			// Past the header, the folder listings and the records: a
			// load takes the listings from the cache before the checksum
			// fails.
			b, _ := os.ReadFile(p)
			b[len(b)-8] ^= 0x20
			os.WriteFile(p, b, 0o644)
		}},
		{"another format version", func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			b[len(store.IndexMagic)] = store.IndexVersion + 1
			binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
			os.WriteFile(p, b, 0o644)
		}},
		{"another program", func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			i := len(store.IndexMagic) + 2 // after the version and the key's length
			b[i] ^= 1
			binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
			os.WriteFile(p, b, 0o644)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, cacheTestFiles)
			// Every folder old enough for its listing to be recorded.
			later := time.Now().Add(time.Hour)
			opts := Options{Now: cacheTestNow, Tracker: trackedSet{"project/checkout.md": true}, Committed: cacheTestHead, FSNow: func() time.Time { return later }}
			fresh, err := Open(t.Context(), dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.IndexCache = true
			if _, err := Open(t.Context(), dir, opts); err != nil {
				t.Fatal(err)
			}
			ageCache(t, dir)
			tc.change(t, cachePathOf(dir))
			ageCache(t, dir)
			v, err := Open(t.Context(), dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if v.load.stats.FromCache || v.load.stats.Read != len(cacheTestFiles) {
				t.Errorf("index from cache %v, %d files read; want false, %d", v.load.stats.FromCache, v.load.stats.Read, len(cacheTestFiles))
			}
			if diff := cmp.Diff(viewOf(t, fresh), viewOf(t, v), viewOpts...); diff != "" {
				t.Errorf("load after a bad cache differs (-files +cache):\n%s", diff)
			}
			// That load wrote a good cache again.
			ageCache(t, dir)
			again, err := Open(t.Context(), dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !again.load.stats.FromCache || again.load.stats.Listed != 0 {
				t.Errorf("load after the rewrite: index from cache %v, %d folders listed; want true, 0", again.load.stats.FromCache, again.load.stats.Listed)
			}
			if diff := cmp.Diff(viewOf(t, fresh), viewOf(t, again), viewOpts...); diff != "" {
				t.Errorf("load after the rewrite differs (-files +cache):\n%s", diff)
			}
		})
	}
}

// FuzzDecodeCache checks that no cache file, however damaged, makes the
// decoder panic or return memories the loader could not have made.
func FuzzDecodeCache(f *testing.F) {
	dir := f.TempDir()
	for rel, text := range cacheTestFiles {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	v, err := Open(f.Context(), dir, Options{Now: cacheTestNow, IndexCache: true})
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(cachePathOf(dir))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(store.IndexMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The checksum would refuse almost every mutation: fix it, so
		// that the decoder behind it is what is fuzzed.
		if len(data) >= len(store.IndexMagic)+store.Trailer {
			data = slices.Clone(data)
			binary.LittleEndian.PutUint64(data[len(data)-store.Trailer:], uint64(len(data)))
			binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.ChecksumIEEE(data[:len(data)-4]))
		}
		c, err := decodeIndexCache(data, v.load.cfg.IndexCache, v.maxFileSize)
		if err != nil {
			if !errors.Is(err, ErrBadCache) {
				t.Fatalf("error %v does not wrap ErrBadCache", err)
			}
			return
		}
		for i, r := range c.Recs {
			if r.Mem == nil || r.Mem.Path != r.Rel || !IsMemoryPath(r.Rel) || (i > 0 && c.Recs[i-1].Rel >= r.Rel) {
				t.Fatalf("record %d (%q) is not one a load writes", i, r.Rel)
			}
		}
		// The load trusts the cache's checksum for the snapshot too:
		// whatever the snapshot holds must load safely or be refused.
		if c.Snap != nil {
			ix := index.New()
			if ix.LoadCheckedSnapshot(c.Snap) == nil {
				ix.Search(index.Query{Text: "checkout 订单"})
				ix.Put(1<<20, index.Doc{Title: "checkout 订单", Body: "deploy"})
				ix.Search(index.Query{Text: "checkout deploy"})
			}
		}
	})
}

// TestCacheSnapshotAligned checks that the index snapshot starts at a
// multiple of 8 bytes into the cache file, which lets a mapped cache's
// term tables be used in place rather than copied.
func TestCacheSnapshotAligned(t *testing.T) {
	for extra := range 8 {
		dir := t.TempDir()
		files := maps.Clone(cacheTestFiles)
		// Paths of different lengths move the snapshot in the file.
		files["project/pad"+strings.Repeat("x", extra)+".md"] = "---\nid: pad\ntitle: Pad\n---\nPadding.\n"
		writeFiles(t, dir, files)
		v, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true})
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(cachePathOf(dir))
		if err != nil {
			t.Fatal(err)
		}
		c, err := decodeIndexCache(data, v.load.cfg.IndexCache, v.maxFileSize)
		if err != nil {
			t.Fatal(err)
		}
		if c.Snap == nil {
			t.Fatal("no index snapshot in the cache")
		}
		if off := uintptr(unsafe.Pointer(&c.Snap[0])) - uintptr(unsafe.Pointer(&data[0])); off%8 != 0 {
			t.Errorf("path padding %d: snapshot at offset %d", extra, off)
		}
	}
}

// TestCacheOnSlowLoad checks when a load with the index cache calls
// Options.OnSlowLoad: once for a load without a cache and for one that
// patches the cached index, never for one that takes the index as it is.
func TestCacheOnSlowLoad(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, cacheTestFiles)
	calls := 0
	open := func(t *testing.T) {
		t.Helper()
		if _, err := Open(t.Context(), dir, Options{Now: cacheTestNow, IndexCache: true, OnSlowLoad: func() { calls++ }}); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []struct {
		name   string
		change func(t *testing.T)
		want   int
	}{
		{"no cache", func(*testing.T) {}, 1},
		{"nothing changed", func(*testing.T) {}, 0},
		{"one file edited: patched", func(t *testing.T) {
			writeFiles(t, dir, map[string]string{"project/deploy.md": cacheTestFiles["project/deploy.md"] + "One more step.\n"})
		}, 1},
		{"nothing changed again", func(*testing.T) {}, 0},
	} {
		st.change(t)
		calls = 0
		open(t)
		ageCache(t, dir)
		if calls != st.want {
			t.Errorf("%s: OnSlowLoad called %d times, want %d", st.name, calls, st.want)
		}
	}
}
