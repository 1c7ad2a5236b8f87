package vault

import (
	"sync"
	"time"
)

// fakeClock is a settable clock for ranking and expiry tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock(s string) *fakeClock {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &fakeClock{t: t}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
