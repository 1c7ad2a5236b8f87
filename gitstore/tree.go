package gitstore

import (
	"bytes"
	"container/list"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// treeEntry is one entry of a git tree object.
type treeEntry struct {
	name string
	mode uint32
	hash plumbing.Hash
}

func (e treeEntry) isDir() bool { return e.mode == modeDir }

// tree is a decoded tree object; its entries are in git order and must not
// be modified, because decoded trees are shared through the cache.
type tree struct {
	entries []treeEntry
}

// parseTree decodes the body of a tree object.
func parseTree(data []byte) (*tree, error) {
	t := &tree{entries: make([]treeEntry, 0, bytes.Count(data, []byte{0}))}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp <= 0 {
			return nil, fmt.Errorf("corrupt tree: missing mode")
		}
		mode, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("corrupt tree: mode %q", data[:sp])
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul <= 0 || len(data) < nul+1+20 {
			return nil, fmt.Errorf("corrupt tree: truncated entry")
		}
		e := treeEntry{name: string(data[:nul]), mode: uint32(mode)}
		copy(e.hash[:], data[nul+1:nul+21])
		data = data[nul+21:]
		t.entries = append(t.entries, e)
	}
	return t, nil
}

// encodeTree serialises entries, which must already be in git order,
// appending to buf (which may be a reused buffer: the tree of a large
// folder runs to megabytes; docs/git.md, "Server writes: the folder's tree
// object").
func encodeTree(buf []byte, entries []treeEntry) []byte {
	n := 0
	for _, e := range entries {
		n += len(e.name) + 28
	}
	buf = slices.Grow(buf[:0], n)
	for _, e := range entries {
		// A memory folder's tree is tens of thousands of plain files:
		// their mode is spelled without a conversion each.
		if e.mode == modeFile {
			buf = append(buf, "100644"...)
		} else {
			buf = strconv.AppendUint(buf, uint64(e.mode), 8)
		}
		buf = append(buf, ' ')
		buf = append(buf, e.name...)
		buf = append(buf, 0)
		buf = append(buf, e.hash[:]...)
	}
	return buf
}

// treeCompare orders tree entries as git does: bytewise by name, where a
// directory's name is compared as if it ended in '/'.
func treeCompare(a string, aDir bool, b string, bDir bool) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	ca, cb := nameTail(a, n, aDir), nameTail(b, n, bDir)
	switch {
	case ca < cb:
		return -1
	case ca > cb:
		return 1
	}
	return 0
}

func nameTail(s string, i int, dir bool) byte {
	if i < len(s) {
		return s[i]
	}
	if dir {
		return '/'
	}
	return 0
}

// search returns where an entry with this name and kind is or would be.
func (t *tree) search(name string, dir bool) (int, bool) {
	lo, hi := 0, len(t.entries)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		e := t.entries[m]
		if treeCompare(e.name, e.isDir(), name, dir) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(t.entries) && t.entries[lo].name == name && t.entries[lo].isDir() == dir
}

// find returns the entry called name, file or directory.
func (t *tree) find(name string) (treeEntry, bool) {
	if i, ok := t.search(name, false); ok {
		return t.entries[i], true
	}
	if i, ok := t.search(name, true); ok {
		return t.entries[i], true
	}
	return treeEntry{}, false
}

// lru is a least-recently-used cache bounded by a total cost.
type lru[K comparable, V any] struct {
	max, cost int
	ll        list.List
	m         map[K]*list.Element
}

type lruItem[K comparable, V any] struct {
	key  K
	val  V
	cost int
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, m: make(map[K]*list.Element)}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	if el, ok := c.m[k]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*lruItem[K, V]).val, true
	}
	var zero V
	return zero, false
}

// remove drops k from the cache.
func (c *lru[K, V]) remove(k K) {
	if el, ok := c.m[k]; ok {
		c.ll.Remove(el)
		delete(c.m, k)
		c.cost -= el.Value.(*lruItem[K, V]).cost
	}
}

func (c *lru[K, V]) put(k K, v V, cost int) {
	if cost > c.max {
		return
	}
	if el, ok := c.m[k]; ok {
		it := el.Value.(*lruItem[K, V])
		c.cost += cost - it.cost
		it.val, it.cost = v, cost
		c.ll.MoveToFront(el)
	} else {
		c.m[k] = c.ll.PushFront(&lruItem[K, V]{k, v, cost})
		c.cost += cost
	}
	for c.cost > c.max {
		el := c.ll.Back()
		it := el.Value.(*lruItem[K, V])
		c.ll.Remove(el)
		delete(c.m, it.key)
		c.cost -= it.cost
	}
}
