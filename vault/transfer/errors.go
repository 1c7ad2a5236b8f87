package transfer

import (
	"github.com/memvault/memvault/vault/fault"
)

// Sentinel errors of the package.
var (
	// ErrFormat means a source is not in the format asked for, or in none
	// that import recognises.
	ErrFormat = fault.New(fault.Invalid, "unrecognised import format")
	// ErrOutput means an export destination cannot be used.
	ErrOutput = fault.New(fault.Invalid, "unusable export destination")
)
