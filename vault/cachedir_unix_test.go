//go:build unix

package vault

import (
	"syscall"
	"testing"
)

func mustMkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}
