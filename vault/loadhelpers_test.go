package vault

import (
	"context"

	"github.com/memvault/memvault/vault/load"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/store"
)

// The loader's names the tests of this package use.
const (
	CacheDirName     = load.CacheDirName
	maxUncachedReads = load.MaxUncachedReads
)

var (
	ErrBadCache     = store.ErrBadCache
	ErrCacheDir     = store.ErrCacheDir
	CheckCacheDir   = store.CheckDir
	FixCacheDir     = store.FixDir
	HeaderCacheName = load.HeaderCacheName
)

// The caches' formats with the vault's codecs.
func encodeHeaderCache(stamp string, entries []memory.HeaderEntry) []byte {
	return store.EncodeHeaders(stamp, entries, &memory.HeaderCodec{})
}

func decodeHeaderCache(data []byte, stamp string) ([]memory.HeaderEntry, error) {
	return store.DecodeHeaders(data, stamp, &memory.HeaderCodec{})
}

func decodeIndexCache(data []byte, key string, maxSize int64) (*store.Cache[Memory], error) {
	return store.DecodeIndex(data, key, maxSize, &memory.IndexCodec{})
}

// scan lists the memory files of the vault at dir.
func scan(ctx context.Context, dir string) ([]string, error) { return store.Scan(ctx, dir, nil) }
