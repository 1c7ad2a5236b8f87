package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/store"
)

// headerView is what a headers-only vault must agree on with a full load.
type headerView struct {
	ID, Title, Path, Status              string
	Layer                                Layer
	Importance, Version                  int
	Created, Updated, Effective, Expires int64
	Supersedes                           string
	Diagnostics                          string
}

func headerViews(t *testing.T, v *Vault) []headerView {
	t.Helper()
	unix := func(tm time.Time) int64 {
		if tm.IsZero() {
			return 0
		}
		return tm.UnixNano()
	}
	var out []headerView
	for _, m := range v.All() {
		out = append(out, headerView{ID: m.ID, Title: m.Title, Path: m.Path, Status: string(m.Status), Layer: m.Layer,
			Importance: m.Importance, Version: m.Version, Created: unix(m.CreatedAt), Updated: unix(m.UpdatedAt),
			Effective: unix(m.EffectiveAt), Expires: unix(m.ExpiresAt), Supersedes: strings.Join(m.Supersedes, ",")})
	}
	var diags []string
	for _, d := range v.Diagnostics() {
		diags = append(diags, d.Path+": "+d.Error())
	}
	slices.Sort(diags)
	out = append(out, headerView{Diagnostics: strings.Join(diags, "\n")})
	slices.SortFunc(out, func(a, b headerView) int { return strings.Compare(a.Path+a.ID, b.Path+b.ID) })
	return out
}

// headerVaultFiles has what a header must carry: hand-written defaults,
// supersession across layers, an archived memory, a duplicate id, a file
// that does not parse, and dates with an offset.
var headerVaultFiles = map[string]string{
	"project/checkout.md":  "---\nid: c1\ntitle: Checkout uses the strategy pattern\nlayer: project\nimportance: 8\ncreated_at: 2026-10-01T08:00:00+08:00\nupdated_at: 2026-10-02T08:00:00+08:00\nstatus: active\nversion: 3\n---\nOne strategy per promotion.\n",
	"project/old.md":       "---\nid: o1\ntitle: 结算用 if/else\ncreated_at: 2026-09-01T00:00:00Z\nstatus: superseded\n---\n旧的做法。\n",
	"meta/new.md":          "---\nid: n1\ntitle: Replace the old checkout rule\nsupersedes: [o1]\neffective_at: 2026-11-01T00:00:00Z\nexpires_at: 2027-11-01T00:00:00Z\n---\nNew rule.\n",
	"project/archived.md":  "---\nid: a1\ntitle: Deploy on Fridays\nstatus: archived\n---\nNo longer.\n",
	"project/hand.md":      "# Hand-written note\n\nNo front matter at all.\n",
	"short-term/dup.md":    "---\nid: c1\ntitle: Same id as checkout\n---\nSkipped.\n",
	"preferences/tabs.md":  "---\nid: p1\ntitle: Use tabs\nlayer: preference\n---\nTabs.\n",
	"project/broken.md":    "---\nid: [unclosed\n---\nBody.\n",
	"transient/scratch.md": "---\nid: t1\ntitle: Scratch\n---\nSession scratch.\n",
}

// TestHeadersOnlyLoad checks a headers-only vault against a full load of
// the same folder: without a cache, from its cache, after an in-place edit
// the cache must notice, and with a cache that is damaged or was written
// by another program.
func TestHeadersOnlyLoad(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, headerVaultFiles)
	cache := filepath.Join(t.TempDir(), "git", "memvault", HeaderCacheName(dir))
	later := func() time.Time { return time.Now().Add(time.Hour) } // every file is old enough to cache
	open := func(t *testing.T) *Vault {
		t.Helper()
		v, err := Open(t.Context(), dir, Options{HeadersOnly: true, HeaderCache: cache, FSNow: later})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	full := func(t *testing.T) []headerView {
		t.Helper()
		v, err := Open(t.Context(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return headerViews(t, v)
	}
	// broken.md (an error) and hand.md (a warning: no front matter) are
	// read every time, for their diagnostics.
	const problems = 2
	files := len(headerVaultFiles)
	check := func(t *testing.T, wantRead int) {
		t.Helper()
		v := open(t)
		if got, want := headerViews(t, v), full(t); !slices.Equal(got, want) {
			t.Errorf("headers-only load differs from the full load:\n got %+v\nwant %+v", got, want)
		}
		if v.load.stats.Read != wantRead {
			t.Errorf("read %d files, want %d", v.load.stats.Read, wantRead)
		}
	}
	t.Run("no cache", func(t *testing.T) { check(t, files) })
	t.Run("cached", func(t *testing.T) { check(t, problems) })
	t.Run("edited in place", func(t *testing.T) {
		// Same size, same folder entry: only the file's stat data says.
		p := filepath.Join(dir, "project", "checkout.md")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(data), "strategy", "Strategy", 1)
		if _, err := f.WriteAt([]byte(edited), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		check(t, problems+1)
		if m, err := open(t).Get("c1"); err != nil || m.Title != "Checkout uses the Strategy pattern" {
			t.Errorf("Get(c1) = %+v, %v; want the edited title", m, err)
		}
	})
	t.Run("file removed and added", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, "preferences", "tabs.md")); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{"preferences/spaces.md": "---\nid: p2\ntitle: Use spaces\n---\nSpaces.\n"})
		// A few files read are not worth a rewrite of the cache: the
		// edited checkout.md is read again too (maxUncachedReads).
		check(t, problems+2)
	})
	t.Run("damaged cache", func(t *testing.T) {
		data, err := os.ReadFile(cache)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 0xff
		if err := os.WriteFile(cache, data, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, files)
		check(t, problems) // and rewritten
	})
	t.Run("written by another program", func(t *testing.T) {
		entries, err := decodeHeaderCache(mustRead(t, cache), store.ExecutableStamp())
		if err != nil || len(entries) != files-problems {
			t.Fatalf("cache holds %d entries (%v), want %d", len(entries), err, files-problems)
		}
		if err := os.WriteFile(cache, encodeHeaderCache("another build", entries), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, files)
	})
	t.Run("files added", func(t *testing.T) {
		// Each add writes a file: reading it again costs less than
		// rewriting the cache, up to maxUncachedReads files.
		before := mustRead(t, cache)
		writeFiles(t, dir, map[string]string{"project/added-0.md": "---\nid: x0\ntitle: Added 0\n---\nA.\n"})
		check(t, problems+1)
		if !slices.Equal(mustRead(t, cache), before) {
			t.Error("the cache was rewritten for one file read")
		}
		more := map[string]string{}
		for i := 1; i <= maxUncachedReads; i++ {
			more[fmt.Sprintf("project/added-%d.md", i)] = fmt.Sprintf("---\nid: x%d\ntitle: Added %d\n---\nA.\n", i, i)
		}
		writeFiles(t, dir, more)
		check(t, problems+1+maxUncachedReads) // and rewritten
		check(t, problems)
	})
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestHeadersOnlyRacyFiles checks that a file changed a moment before the
// cache is written is not cached: a second change within the file
// system's timestamp granularity would leave its stat data as it was.
func TestHeadersOnlyRacyFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"project/a.md": "---\nid: a\ntitle: A\n---\nA.\n", "project/b.md": "---\nid: b\ntitle: B\n---\nB.\n"})
	cache := filepath.Join(t.TempDir(), "headers")
	// The files were written just now, as far as the cache can tell.
	if _, err := Open(t.Context(), dir, Options{HeadersOnly: true, HeaderCache: cache, FSNow: time.Now}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(cache); err == nil {
		entries, err := decodeHeaderCache(data, store.ExecutableStamp())
		if err != nil || len(entries) != 0 {
			t.Errorf("cache holds %d entries (%v), want none", len(entries), err)
		}
	}
	v, err := Open(t.Context(), dir, Options{HeadersOnly: true, HeaderCache: cache, FSNow: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if v.load.stats.Read != 2 {
		t.Errorf("read %d files, want both", v.load.stats.Read)
	}
}

// TestHeadersOnlyRemember runs the same-title refusal on a vault loaded
// in full and on one loaded with headers only, on the same folder: they
// must agree, and the headers-only one must find the memory from its file
// header (written by another vault value, as another process would).
func TestHeadersOnlyRemember(t *testing.T) {
	tests := []struct {
		name  string
		n     NewMemory
		dup   bool
		dupID string
	}{
		{"same title, other case and punctuation", NewMemory{Title: "tests use pytest!", Content: "Run pytest -q."}, true, "first"},
		{"a stop word more", NewMemory{Title: "The tests use pytest.", Content: "Content."}, true, "first"},
		{"full-width", NewMemory{Title: "Ｔｅｓｔｓ ｕｓｅ ｐｙｔｅｓｔ", Content: "Content."}, true, "first"},
		{"Chinese", NewMemory{Title: "测试使用 pytest", Content: "中文。"}, true, "zh"},
		{"narrower rule is a new memory", NewMemory{Title: "Use pytest for integration tests", Content: "Content."}, false, ""},
		{"negation is a new memory", NewMemory{Title: "Tests do not use pytest", Content: "Content."}, false, ""},
		{"other layer is a new memory", NewMemory{Title: "Tests use pytest", Content: "Content.", Layer: Meta}, false, ""},
		{"superseded memory is no duplicate", NewMemory{Title: "Deploy with make", Content: "Content."}, false, ""},
		{"archived memory is no duplicate", NewMemory{Title: "Deploy on Fridays", Content: "Content."}, false, ""},
	}
	seed := func(t *testing.T) string {
		dir := t.TempDir()
		v, _ := openRecorded(t, dir)
		set := NewSet(Member{Name: ProjectVault, Vault: v})
		for _, n := range []NewMemory{
			{ID: "first", Title: "Tests use pytest", Content: "Run pytest."},
			{ID: "zh", Title: "测试使用 pytest", Content: "运行 pytest。"},
			{ID: "old", Title: "Deploy with make", Content: "make deploy"},
			{ID: "new", Title: "Deploy with the script", Content: "ops/deploy.sh", Supersedes: []string{"old"}},
			{ID: "fri", Title: "Deploy on Fridays", Content: "Yes."},
		} {
			if _, err := set.Remember(t.Context(), n, "", Author{Reason: "seed"}); err != nil {
				t.Fatalf("seed %q: %v", n.Title, err)
			}
		}
		if _, err := v.Forget(t.Context(), "fri", false, Author{Reason: "no more"}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, headersOnly := range []bool{false, true} {
				dir := seed(t)
				c := &recordingCommitter{}
				v, err := Open(t.Context(), dir, Options{Now: newClock("2026-11-30T11:00:00Z").Now, Committer: c,
					HeadersOnly: headersOnly, HeaderCache: filepath.Join(t.TempDir(), "headers")})
				if err != nil {
					t.Fatal(err)
				}
				r, err := NewSet(Member{Name: ProjectVault, Vault: v}).Remember(t.Context(), tc.n, "", Author{Reason: "r"})
				var de *DuplicateError
				switch {
				case tc.dup && (!errors.As(err, &de) || de.ID != tc.dupID):
					t.Errorf("headers only %v: got %+v, %v; want a refusal naming %s", headersOnly, r, err, tc.dupID)
				case !tc.dup && err != nil:
					t.Errorf("headers only %v: %v; want a new memory", headersOnly, err)
				case !tc.dup && (r.Memory == nil || r.Memory.Body != "Content.\n" || len(c.commits) != 1):
					t.Errorf("headers only %v: wrote %+v with %d commits; want the new memory, read back whole, in one commit", headersOnly, r.Memory, len(c.commits))
				}
			}
		})
	}
}

func TestHeadersOnlyEmptyVault(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		v, err := Open(t.Context(), dir, Options{HeadersOnly: true, HeaderCache: filepath.Join(t.TempDir(), "headers")})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(v.All()); n != 0 {
			t.Errorf("%s: %d memories, want an empty vault", dir, n)
		}
	}
}

func TestHeadersOnlyHasNoTextRecall(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, headerVaultFiles)
	v, err := Open(t.Context(), dir, Options{HeadersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.RecallContext(t.Context(), Query{Text: "checkout"}); !errors.Is(err, ErrHeadersOnly) {
		t.Errorf("recall on a headers-only vault: %v, want ErrHeadersOnly", err)
	}
}
