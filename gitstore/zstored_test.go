package gitstore

import (
	"bytes"
	"compress/zlib"
	"io"
	"testing"
)

// inflate reads a zlib stream whole.
func inflate(t testing.TB, z []byte) []byte {
	t.Helper()
	zr, err := zlib.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	return out
}

func TestAppendStoredZlib(t *testing.T) {
	block := maxStoredBlock
	for _, tc := range []struct {
		name  string
		sizes []int // the parts' lengths
	}{
		{"empty", nil},
		{"empty parts", []int{0, 0}},
		{"one byte", []int{1}},
		{"header and data", []int{12, 300}},
		{"one full block", []int{block}},
		{"one past a block", []int{block + 1}},
		{"parts across a block end", []int{10, block - 5, 20}},
		{"two full blocks", []int{block, block}},
		{"a 2.4 MB tree", []int{13, 2_400_000}},
		{"empty part between", []int{7, 0, block}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts [][]byte
			var want []byte
			for i, n := range tc.sizes {
				p := make([]byte, n)
				for j := range p {
					p[j] = byte(i*31 + j*7)
				}
				parts = append(parts, p)
				want = append(want, p...)
			}
			prefix := []byte("kept")
			z := appendStoredZlib(append([]byte(nil), prefix...), parts...)
			if !bytes.HasPrefix(z, prefix) {
				t.Fatalf("dst's bytes were not kept")
			}
			z = z[len(prefix):]
			if got := inflate(t, z); !bytes.Equal(got, want) {
				t.Fatalf("inflates to %d bytes, want %d", len(got), len(want))
			}
			// Stored blocks only: 5 bytes of block header per 64 KB.
			if over := len(z) - len(want) - 6; over != 5*max(1, (len(want)+block-1)/block) {
				t.Errorf("%d bytes for %d of data: %d bytes of block headers", len(z), len(want), over)
			}
		})
	}
}

func FuzzAppendStoredZlib(f *testing.F) {
	f.Add([]byte("tree 3\x00"), []byte("abc"))
	f.Add([]byte{}, bytes.Repeat([]byte{1}, maxStoredBlock+3))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		want := append(append([]byte(nil), a...), b...)
		if got := inflate(t, appendStoredZlib(nil, a, b)); !bytes.Equal(got, want) {
			t.Fatalf("inflates to %d bytes, want %d", len(got), len(want))
		}
	})
}
