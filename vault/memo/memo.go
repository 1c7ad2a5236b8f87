// Package memo remembers the last values of a pure function, so that a
// value asked for again is not computed again. It holds speed work, not
// rules: a value is the same whether computed or remembered, and the
// memo is bounded, so it neither changes an answer nor grows without end.
//
// The vault keeps the token sets of memories' texts in one, which the
// near-duplicate check of every recall compares (docs/performance.md,
// "Recall CPU, issue 25").
package memo

import "sync"

// DefaultSize is a generation's size when Memo.Size is 0.
const DefaultSize = 128

// Memo remembers up to twice Size values of a function of K. The
// values are kept in two generations: a full current generation becomes
// the old one, dropping the old one, and a value found in the old
// generation moves back into the current one. The zero Memo is ready; a
// nil *Memo remembers nothing. It is safe for concurrent use.
type Memo[K comparable, V any] struct {
	// Size is how many values a generation holds; 0 means DefaultSize,
	// a negative Size remembers nothing.
	Size int

	mu       sync.Mutex
	cur, old map[K]V
}

// Get returns f(k), remembered when it was asked for lately. f runs
// without the memo's lock: two callers asking for the same k at once
// may both compute it.
func (m *Memo[K, V]) Get(k K, f func(K) V) V {
	if m == nil || m.Size < 0 {
		return f(k)
	}
	m.mu.Lock()
	v, ok := m.cur[k]
	if !ok {
		if v, ok = m.old[k]; ok {
			delete(m.old, k)
			m.putLocked(k, v)
		}
	}
	m.mu.Unlock()
	if ok {
		return v
	}
	v = f(k)
	m.mu.Lock()
	m.putLocked(k, v)
	m.mu.Unlock()
	return v
}

// Len is how many values the memo holds.
func (m *Memo[K, V]) Len() int {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.cur) + len(m.old)
}

func (m *Memo[K, V]) putLocked(k K, v V) {
	size := m.Size
	if size == 0 {
		size = DefaultSize
	}
	if len(m.cur) >= size {
		m.old, m.cur = m.cur, nil
	}
	if m.cur == nil {
		m.cur = make(map[K]V)
	}
	m.cur[k] = v
}
