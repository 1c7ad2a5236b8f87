package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer collects a server's standard error, written by a
// transport's or a process's goroutine and read by the test, which can
// wait for a line to be written.
type lockedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{} // holds a value after a write no waiter has seen
}

// signal returns the channel a write wakes waiters with; caller holds mu.
func (b *lockedBuffer) signal() chan struct{} {
	if b.wrote == nil {
		b.wrote = make(chan struct{}, 1)
	}
	return b.wrote
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	wrote := b.signal()
	b.mu.Unlock()
	select {
	case wrote <- struct{}{}:
	default:
	}
	return n, err
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Len is how much was written so far: a mark to wait from.
func (b *lockedBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

// waitFor waits until what was written after the mark from contains s,
// woken by each write, and returns the mark after it. The deadline only
// ends the wait for a server that never writes it.
func (b *lockedBuffer) waitFor(t testing.TB, from int, s string) int {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		text := b.buf.String()
		wrote := b.signal()
		b.mu.Unlock()
		if i := strings.Index(text[min(from, len(text)):], s); i >= 0 {
			return min(from, len(text)) + i + len(s)
		}
		select {
		case <-wrote:
		case <-deadline.C:
			t.Fatalf("the log never said %q; it says:\n%s", s, text)
		}
	}
}
