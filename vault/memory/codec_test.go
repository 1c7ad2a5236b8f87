package memory

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/store"
	"github.com/memvault/memvault/vault/title"
)

// The header cache's format with this package's codec.
func encodeHeaderCache(stamp string, entries []HeaderEntry) []byte {
	return store.EncodeHeaders(stamp, entries, &HeaderCodec{})
}

func decodeHeaderCache(data []byte, stamp string) ([]HeaderEntry, error) {
	return store.DecodeHeaders(data, stamp, &HeaderCodec{})
}

// TestHeaderCacheRoundTrip encodes header entries and decodes them again,
// for counts that split into halves evenly and not, and checks that a
// cache whose halves do not add up (checksum made to match) is refused,
// not misread.
func TestHeaderCacheRoundTrip(t *testing.T) {
	entry := func(i int) HeaderEntry {
		m := &Memory{Path: fmt.Sprintf("project/m%02d.md", i), ID: fmt.Sprintf("id%d", i), Title: fmt.Sprintf("记忆 %d", i),
			Layer: Project, Importance: i%10 + 1, CreatedAt: time.Unix(int64(1e9+i), int64(i)).UTC(), Status: StatusActive, Version: i, idLine: 2}
		if i%2 == 1 {
			m.Supersedes = []string{fmt.Sprintf("old%d", i), "older"}
		}
		return HeaderEntry{Key: store.StatKey{Size: int64(100 + i), Mtime: int64(i), Ctime: int64(2 * i), Ino: uint64(i)}, Mem: m, Sig: title.New(m.Title)}
	}
	for _, n := range []int{0, 1, 2, 3, 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var in []HeaderEntry
			for i := range n {
				in = append(in, entry(i))
			}
			data := encodeHeaderCache("stamp", in)
			out, err := decodeHeaderCache(data, "stamp")
			if err != nil || len(out) != n {
				t.Fatalf("decode: %d entries, %v; want %d", len(out), err, n)
			}
			for i := range out {
				got, want := out[i], in[i]
				if got.Key != want.Key || !reflect.DeepEqual(*got.Mem, *want.Mem) || !reflect.DeepEqual(got.Sig, want.Sig) {
					t.Errorf("entry %d:\n got %+v %+v\nwant %+v %+v", i, got, *got.Mem, want, *want.Mem)
				}
			}
			if _, err := decodeHeaderCache(data, "other stamp"); err == nil {
				t.Error("a cache of another stamp was read")
			}
			// The length of the first half moved by one byte.
			magic := len("memvault-headers 2\n")
			r := store.NewReader(data, magic)
			r.Str()
			r.Uv()
			at := r.Pos()
			bad := slices.Clone(data[:len(data)-4])
			bad[at]++
			bad = binary.BigEndian.AppendUint32(bad, crc32.ChecksumIEEE(bad))
			if out, err := decodeHeaderCache(bad, "stamp"); err == nil {
				t.Errorf("a cache with a wrong split was read: %d entries", len(out))
			}
		})
	}
}

// FuzzDecodeHeaderCache feeds the header cache decoder damaged caches
// whose checksum is made to match, so that mutations reach the structure:
// it must never panic, and what it accepts must encode back to a cache
// that decodes to the same entries.
func FuzzDecodeHeaderCache(f *testing.F) {
	var entries []HeaderEntry
	for i := range 5 {
		m := &Memory{Path: fmt.Sprintf("project/m%02d.md", i), ID: fmt.Sprintf("id%d", i), Title: fmt.Sprintf("记忆 %d note", i),
			Layer: Project, Importance: i + 1, CreatedAt: time.Unix(int64(1e9+i), 0).UTC(), Status: StatusActive, Version: i, idLine: 2}
		if i%2 == 1 {
			m.Supersedes = []string{"old", fmt.Sprintf("older%d", i)}
		}
		entries = append(entries, HeaderEntry{Key: store.StatKey{Size: int64(i), Mtime: int64(i), Ino: uint64(i)}, Mem: m, Sig: title.New(m.Title)})
		f.Add(encodeHeaderCache("stamp", entries))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= 4 {
			body := data[:len(data)-4]
			data = binary.BigEndian.AppendUint32(slices.Clone(body), crc32.ChecksumIEEE(body))
		}
		out, err := decodeHeaderCache(data, "stamp")
		if err != nil {
			return
		}
		again, err := decodeHeaderCache(encodeHeaderCache("stamp", out), "stamp")
		if err != nil || len(again) != len(out) {
			t.Fatalf("re-encoded cache: %d entries, %v; want %d", len(again), err, len(out))
		}
		for i := range out {
			if again[i].Key != out[i].Key || !reflect.DeepEqual(*again[i].Mem, *out[i].Mem) {
				t.Fatalf("entry %d changed through a round trip:\n%+v\n%+v", i, *out[i].Mem, *again[i].Mem)
			}
		}
	})
}
