package transfer

import "errors"

// Sentinel errors of the package.
var (
	// ErrFormat means a source is not in the format asked for, or in none
	// that import recognises.
	ErrFormat = errors.New("unrecognised import format")
	// ErrOutput means an export destination cannot be used.
	ErrOutput = errors.New("unusable export destination")
)
