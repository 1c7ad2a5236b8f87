package vault

import (
	"time"

	"github.com/memvault/memvault/vault/internal/vaulttest"
)

// fakeClock is the settable clock vault's subpackages test with too.
type fakeClock = vaulttest.Clock

// newClock starts a fake clock at an RFC 3339 instant.
func newClock(s string) *fakeClock {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return vaulttest.NewClock(t)
}
