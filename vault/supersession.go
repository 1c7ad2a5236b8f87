package vault

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/memvault/memvault/parser"
)

// dedupeIDs returns ids without repeats, first occurrences kept in order.
// A list that repeats nothing is returned as it is.
func dedupeIDs(ids []string) []string {
	for i := range ids {
		if slices.Contains(ids[:i], ids[i]) {
			out := make([]string, 0, len(ids))
			for _, id := range ids {
				if !slices.Contains(out, id) {
					out = append(out, id)
				}
			}
			return out
		}
	}
	return ids
}

// checkSupersession refuses a write that would make the memory id
// supersede itself, or close a ring of supersession: each memory in a
// ring would hide the others, and recall would show none of them. olds
// is the memory's new supersedes list. The ring is looked for in the
// index (what this vault holds), following supersedes from each of olds
// back to id.
func (v *Vault) checkSupersession(id string, olds []string) error {
	return v.checkSupersessionWith(id, olds, nil)
}

// checkSupersessionWith is checkSupersession with pending: the supersedes
// lists of memories about to be written with this one (earlier items of
// an import), looked up before the index.
func (v *Vault) checkSupersessionWith(id string, olds []string, pending map[string][]string) error {
	if id == "" || len(olds) == 0 {
		return nil
	}
	if slices.Contains(olds, id) {
		return fmt.Errorf("%w: %s lists itself in supersedes", ErrSupersedesSelf, id)
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	for _, old := range olds {
		if path := v.supersessionPathLocked(old, id, pending); path != nil {
			ring := append(append([]string{id}, path...), id)
			return fmt.Errorf("%w: supersedes %s would close the ring %s (→ means supersedes); each memory in a ring hides the others, so recall would show none of them",
				ErrSupersessionCycle, old, strings.Join(ring, " → "))
		}
	}
	return nil
}

// supersessionPathLocked returns the ids from `from` to `to` along
// supersedes (from, ..., x where x lists to), or nil when to cannot be
// reached. pending lists are used before the index's. Caller holds v.mu.
func (v *Vault) supersessionPathLocked(from, to string, pending map[string][]string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		olds, ok := pending[cur]
		if !ok {
			m := v.memLocked(cur)
			if m == nil {
				continue
			}
			olds = m.Supersedes
		}
		for _, next := range olds {
			if next == to {
				var path []string
				for x := cur; x != ""; x = prev[x] {
					path = append(path, x)
				}
				slices.Reverse(path)
				return path
			}
			if _, seen := prev[next]; !seen {
				prev[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// supersessionCycles finds the rings of supersession among entries (byID
// maps ids to them) and returns one error diagnostic per memory in a ring,
// on its supersedes line: lint reports them. A memory that supersedes
// itself is warned about when its file is read.
func supersessionCycles(entries []*Memory, byID func(string) *Memory) []*Diagnostic {
	// Tarjan's strongly connected components over the memories that
	// supersede something; supersession is rare, so the graph is small.
	type node struct {
		index, low int
		onStack    bool
	}
	nodes := map[string]*node{}
	var stack []string
	var rings [][]string
	counter := 0
	var visit func(id string) *node
	visit = func(id string) *node {
		n := &node{index: counter, low: counter, onStack: true}
		counter++
		nodes[id] = n
		stack = append(stack, id)
		if m := byID(id); m != nil {
			for _, next := range m.Supersedes {
				if next == id || byID(next) == nil {
					continue
				}
				if w, seen := nodes[next]; !seen {
					w = visit(next)
					n.low = min(n.low, w.low)
				} else if w.onStack {
					n.low = min(n.low, w.index)
				}
			}
		}
		if n.low == n.index {
			var ring []string
			for {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				nodes[top].onStack = false
				ring = append(ring, top)
				if top == id {
					break
				}
			}
			if len(ring) > 1 {
				rings = append(rings, ring)
			}
		}
		return n
	}
	for _, m := range entries {
		if m == nil || len(m.Supersedes) == 0 {
			continue
		}
		if _, seen := nodes[m.ID]; !seen {
			visit(m.ID)
		}
	}
	var out []*Diagnostic
	for _, ring := range rings {
		sort.Strings(ring)
		for _, id := range ring {
			m := byID(id)
			out = append(out, &Diagnostic{Path: m.Path, Line: m.FieldLine("supersedes"), Field: "supersedes", Severity: parser.SeverityError,
				Err: fmt.Errorf("%w among %s: each hides the others, so recall shows none of them; remove one of the supersedes entries",
					ErrSupersessionCycle, strings.Join(ring, ", "))})
		}
	}
	return out
}
