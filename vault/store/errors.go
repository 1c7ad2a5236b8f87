package store

import "github.com/memvault/memvault/vault/fault"

// ErrBadCache reports a cache file that cannot be used: another format
// or program, truncated, corrupted or inconsistent. A load never returns
// it: it reads the files instead.
var ErrBadCache = fault.New(fault.Internal, "bad index cache")
