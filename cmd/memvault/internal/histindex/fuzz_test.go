package histindex

import (
	"bytes"
	"crypto/sha256"
	"testing"
)

// FuzzDecode feeds Decode index files whose body is arbitrary (the
// checksum made to match, or the fuzzer would never pass it): it never
// panics, a snapshot it returns answers every question without
// panicking, and its encoding decodes back to the same snapshot.
func FuzzDecode(f *testing.F) {
	body := func(data []byte) []byte { return data[len(magic) : len(data)-sha256.Size] }
	f.Add(body(New(".memory", "Memory-Id").Snapshot().Encode()))
	seed := &Snapshot{prefix: ".memory", key: "Memory-Id", tip: "0202020202020202020202020202020202020202",
		paths: []string{".memory", ".memory/a.md"},
		commits: []commit{
			{hash: "0101010101010101010101010101010101010101", when: 100, changed: [][]int32{{0, 1}}, trailers: []string{"a"}},
			{hash: "0202020202020202020202020202020202020202", when: 90, parents: []int{0}, changed: [][]int32{{1}}},
		}}
	f.Add(body(seed.Encode()))
	f.Fuzz(func(t *testing.T, b []byte) {
		data := append([]byte(magic), b...)
		sum := sha256.Sum256(data)
		data = append(data, sum[:]...)
		s, err := Decode(data)
		if err != nil {
			return
		}
		for n := range s.commits {
			_, _, parents := s.Commit(n)
			for i := range max(len(parents), 1) {
				for _, p := range append(s.paths, "elsewhere", s.prefix+"/new") {
					s.Changed(n, i, p)
				}
			}
			s.Trailer(n, s.key, "a")
		}
		// Varints may be spelt longer than Encode spells them: the
		// encoding of what was read reads back to itself.
		again, err := Decode(s.Encode())
		if err != nil || !bytes.Equal(again.Encode(), s.Encode()) {
			t.Fatalf("encoded and decoded again: %v, or another file", err)
		}
	})
}
