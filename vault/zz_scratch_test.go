package vault

import (
	"os"
	"testing"

	"github.com/memvault/memvault/vault/index"
)

func BenchmarkZZSnap(b *testing.B) {
	data, err := os.ReadFile(os.Getenv("ZZCACHE"))
	if err != nil {
		b.Skip(err)
	}
	r := &cacheReader{b: data, s: string(data), i: len(cacheMagic)}
	r.uv()
	key := r.str()
	lim := int64(r.uv())
	c, err := decodeCheckedCache(data, key, lim)
	if err != nil {
		b.Skip(err)
	}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			decodeCheckedCache(data, key, lim)
		}
	})
	b.Run("snap", func(b *testing.B) {
		for b.Loop() {
			ix := index.New()
			if err := ix.LoadSnapshot(c.snap); err != nil {
				b.Fatal(err)
			}
		}
	})
}
