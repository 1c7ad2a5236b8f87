//go:build !unix

package gitstore

import "errors"

func holdLocks() error { return errors.New("not on this system") }
