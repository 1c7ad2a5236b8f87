package gitstore

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestLooseCompressionConfig(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   int
	}{
		{"", looseLevelUnset},
		{"[core]\n\tcompression = 9\n", 9},
		{"[core]\n\tcompression = -1\n", zlib.DefaultCompression},
		{"[core]\n\tcompression = 9\n\tlooseCompression = 0\n", 0},
		{"[core]\n\tlooseCompression = 3\n", 3},
		{"[core]\n\tlooseCompression = 10\n", looseLevelUnset},
		{"[core]\n\tlooseCompression = fast\n", looseLevelUnset},
	} {
		t.Run(tc.config, func(t *testing.T) {
			dir, _ := newRepo(t)
			appendFile(t, filepath.Join(dir, ".git", "config"), tc.config)
			s2, err := Open(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if s2.looseLevel != tc.want {
				t.Errorf("looseLevel = %d, want %d", s2.looseLevel, tc.want)
			}
		})
	}
}

// TestLargeObjectsStored checks the level each loose object is written
// at: a file of largeObjectBytes or more is stored without compression
// unless the configuration names a level, a small one at level 1; git
// reads both back.
func TestLargeObjectsStored(t *testing.T) {
	big := strings.Repeat("a memory line that compresses very well\n", largeObjectBytes/40+100)
	small := strings.Repeat("one small memory\n", 200) // under largeObjectBytes
	for _, tc := range []struct {
		name, config  string
		wantBigStored bool
	}{
		{"default", "", true},
		{"configured", "[core]\n\tlooseCompression = 1\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := newRepo(t)
			appendFile(t, filepath.Join(dir, ".git", "config"), tc.config)
			s, err := Open(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			commitFiles(t, s, "add two files", map[string]string{"big.md": big, "small.md": small})
			for _, f := range []struct {
				content    string
				wantStored bool
			}{{big, tc.wantBigStored}, {small, false}} {
				h := plumbing.ComputeHash(plumbing.BlobObject, []byte(f.content))
				raw := readFile(t, s.loosePath(h))
				if len(raw) < 3 {
					t.Fatalf("loose object %s: %d bytes", h, len(raw))
				}
				// The first deflate block's type, after the two-byte zlib
				// header: 0 is a stored block.
				stored := raw[2]>>1&3 == 0
				if stored != f.wantStored {
					t.Errorf("%d-byte blob written as %d bytes: stored %v, want %v", len(f.content), len(raw), stored, f.wantStored)
				}
				zr, err := zlib.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if _, err := got.ReadFrom(zr); err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("blob %d\x00%s", len(f.content), f.content); got.String() != want {
					t.Errorf("object %s inflates to %d bytes, want %d", h, got.Len(), len(want))
				}
			}
			if gitPath() != "" {
				if out, err := gitOutput(dir, nil, "fsck", "--strict"); err != nil {
					t.Errorf("git fsck: %v\n%s", err, out)
				}
				if out := runGit(t, dir, "cat-file", "blob", "HEAD:big.md"); out != big {
					t.Errorf("git cat-file reads %d bytes of big.md, want %d", len(out), len(big))
				}
			}
		})
	}
}
