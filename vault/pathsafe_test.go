package vault

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/diskwrite"
)

// TestWriteRefusesSymlinks plants symbolic links where a write would go and
// checks that the write is refused with a clear error and nothing lands
// behind the link.
func TestWriteRefusesSymlinks(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	tests := []struct {
		name    string
		plant   func(t *testing.T, vaultDir, outside string)
		layer   Layer
		wantErr error
		wantMsg string
	}{
		{
			name: "layer folder links outside",
			plant: func(t *testing.T, dir, outside string) {
				mustSymlink(t, outside, filepath.Join(dir, "project"))
			},
			layer: Project, wantErr: ErrOutsideVault, wantMsg: "project is a symbolic link to",
		},
		{
			name: "layer folder links inside",
			plant: func(t *testing.T, dir, _ string) {
				mustMkdir(t, filepath.Join(dir, "meta"))
				mustSymlink(t, filepath.Join(dir, "meta"), filepath.Join(dir, "preferences"))
			},
			layer: Preference, wantErr: ErrInvalid, wantMsg: "inside the vault",
		},
		{
			name: "dangling link",
			plant: func(t *testing.T, dir, outside string) {
				mustSymlink(t, filepath.Join(outside, "gone"), filepath.Join(dir, "short-term"))
			},
			layer: ShortTerm, wantErr: ErrOutsideVault, wantMsg: "does not resolve",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			tt.plant(t, dir, outside)
			c := &recordingCommitter{}
			v, err := Open(t.Context(), dir, Options{Committer: c})
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.Create(t.Context(), NewMemory{Title: "Linked away", Content: "x", Layer: tt.layer}, Author{})
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Create = %v, want %v mentioning %q", err, tt.wantErr, tt.wantMsg)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Errorf("the write landed outside the vault: %v", ents)
			}
			if len(c.commits) != 0 {
				t.Errorf("%d commits after a refused write", len(c.commits))
			}
			if _, err := os.Lstat(filepath.Join(dir, JournalName)); err == nil {
				t.Errorf("journal left behind by a refused write")
			}
		})
	}
}

// TestUpdateRefusesFileSymlink replaces a memory's file with a link to a
// copy outside the vault: the update must not write through it.
func TestUpdateRefusesFileSymlink(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir, outside := t.TempDir(), t.TempDir()
	v, err := Open(t.Context(), dir, Options{Committer: &recordingCommitter{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "Soon a link", Content: "x"}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.FromSlash(res.Memory.Path))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(outside, "copy.md")
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, copyPath, p)
	content := "changed"
	_, err = v.Update(t.Context(), res.Memory.ID, 0, Patch{Content: &content}, Author{})
	if !errors.Is(err, ErrOutsideVault) || !strings.Contains(err.Error(), "symbolic link to") {
		t.Fatalf("Update = %v, want ErrOutsideVault naming the link", err)
	}
	if got, _ := os.ReadFile(copyPath); string(got) != string(data) {
		t.Errorf("file outside the vault changed:\n%s", got)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
}

func TestValidateTagsAndDates(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		n    NewMemory
		want string // "" means accepted
	}{
		{"plain tags", NewMemory{Tags: []string{"go", "中文", "machine learning"}}, ""},
		{"tag at limit", NewMemory{Tags: []string{strings.Repeat("标", MaxTagRunes)}}, ""},
		{"tag too long", NewMemory{Tags: []string{strings.Repeat("a", MaxTagRunes+1)}}, "limit 64"},
		{"tag with comma", NewMemory{Tags: []string{"a,b"}}, "contains ','"},
		{"tag with bracket", NewMemory{Tags: []string{"a]"}}, "contains ']'"},
		{"tag with inner hash", NewMemory{Tags: []string{"c#"}}, "contains '#'"},
		{"tag with newline", NewMemory{Tags: []string{"a\nb"}}, "U+000A"},
		{"tag with bidi override", NewMemory{Tags: []string{"abc\u202edef"}}, "U+202E"},
		{"tag with zero width space", NewMemory{Tags: []string{"a\u200bb"}}, "U+200B"},
		{"dates in order", NewMemory{EffectiveAt: now, ExpiresAt: now.Add(time.Hour)}, ""},
		{"expiry equals effect", NewMemory{EffectiveAt: now, ExpiresAt: now}, "not after effective_at"},
		{"expiry before effect", NewMemory{EffectiveAt: now, ExpiresAt: now.Add(-time.Hour)}, "not after effective_at"},
		{"effective before 1970", NewMemory{EffectiveAt: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}, "effective_at: 1969"},
		{"expires after 9999", NewMemory{ExpiresAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, "expires_at"},
		{"supersedes a path", NewMemory{Supersedes: []string{"../x"}}, "supersedes"},
		{"title with tab", NewMemory{Title: "a\tb"}, "U+0009"},
		{"title with bidi override", NewMemory{Title: "access \u202eenimda"}, "U+202E"},
		{"title with emoji sequence", NewMemory{Title: "Pair with 👨\u200d💻 on Fridays"}, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.n.Title == "" {
				tt.n.Title = "memory " + string(rune('a'+i))
			}
			_, err := v.Create(t.Context(), tt.n, Author{})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Create = %v, want it accepted", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Create = %v, want an error containing %q", err, tt.want)
			case tt.want != "" && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrSupersedesSelf):
				t.Fatalf("Create = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestValidatePatch(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Create(t.Context(), NewMemory{Title: "Patched"}, Author{})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Memory.ID
	early := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	before := now.Add(-time.Hour)
	bad := []string{"/abs"}
	badTag := []string{"x\x00"}
	tests := []struct {
		name string
		p    Patch
		want string
	}{
		{"effective out of range", Patch{EffectiveAt: &early}, "effective_at"},
		{"expiry before effect", Patch{EffectiveAt: &now, ExpiresAt: &before}, "not after"},
		{"link is a path", Patch{Links: &bad}, "absolute"},
		{"tag with NUL", Patch{Tags: &badTag}, "U+0000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Update(t.Context(), id, 0, tt.p, Author{})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Update = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}

// hostileSeeds reads testdata/hostile-paths.txt.
func hostileSeeds(f interface{ Add(...any) }) error {
	file, err := os.Open(filepath.Join("testdata", "hostile-paths.txt"))
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			f.Add(l)
		}
	}
	return sc.Err()
}

// FuzzValidateRel checks that a path ValidateRel accepts stays inside any
// base folder once joined, in both slash and native form.
func FuzzValidateRel(f *testing.F) {
	if err := hostileSeeds(f); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		if diskwrite.ValidateRel(rel) != nil {
			return
		}
		base := filepath.FromSlash("/vault/root")
		joined := filepath.Join(base, filepath.FromSlash(rel))
		r, err := filepath.Rel(base, joined)
		if err != nil || !filepath.IsLocal(r) || r == "." {
			t.Fatalf("ValidateRel accepted %q, which joins to %q outside %q", rel, joined, base)
		}
		if filepath.ToSlash(r) != rel {
			t.Fatalf("ValidateRel accepted %q, which is not clean (%q)", rel, filepath.ToSlash(r))
		}
	})
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestSafePathOnlyMemoryFiles(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel string
		ok  bool
	}{
		{"project/a.md", true},
		{GitignoreName, true},
		{".git/hooks/pre-commit", false},
		{".git/config.md", false},
		{"project/a.txt", false},
		{"README.md", false},
		{"project/.hidden.md", false},
		{"../outside.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			_, err := v.safePath(tt.rel)
			if (err == nil) != tt.ok {
				t.Fatalf("safePath(%q) = %v, want ok=%v", tt.rel, err, tt.ok)
			}
		})
	}
}

// TestContentNotText: a NUL in content is named as a NUL with its line
// and column, not as invalid UTF-8 (issue 13, finding 15); invalid UTF-8
// is placed the same way.
func TestContentNotText(t *testing.T) {
	t.Parallel()
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, content, want string
	}{
		{"NUL on the first line", "ab\x00c", "content: NUL byte at line 1, column 3"},
		{"NUL after Han text", "第一行\n部署\x00", "content: NUL byte at line 2, column 3"},
		{"NUL alone", "\x00", "content: NUL byte at line 1, column 1"},
		{"invalid UTF-8", "ok\nx\xffy", "content: invalid UTF-8 at line 2, column 2 (byte 0xff)"},
		{"a cut character", "部\xe9\x83", "content: invalid UTF-8 at line 1, column 2 (byte 0xe9)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Create(t.Context(), NewMemory{Title: "Text " + tt.name, Content: tt.content}, Author{})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Create = %v, want ErrInvalid containing %q", err, tt.want)
			}
		})
	}
}
