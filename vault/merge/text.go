package merge

import "strings"

// maxEdits bounds the Myers diff of two bodies: past this many differing
// lines, the rest is taken as one block replaced whole. The trace of a
// diff costs about maxEdits² words; a body edited beyond that merges as a
// conflict (both versions kept) rather than by lines.
const maxEdits = 2000

// Text merges two edits of base line by line, as diff3 does: a block
// changed on one side takes that side, a block changed identically on both
// takes it once, and blocks changed differently on both sides are a
// conflict. ok is false on a conflict, and merged is then empty.
func Text(base, ours, theirs string) (merged string, ok bool) {
	switch {
	case ours == theirs || theirs == base:
		return ours, true
	case ours == base:
		return theirs, true
	}
	var in interner
	b, o, t := in.lines(base), in.lines(ours), in.lines(theirs)
	mo, mt := matches(b.ids, o.ids), matches(b.ids, t.ids)
	var out strings.Builder
	i, jo, jt := 0, 0, 0
	for i < len(b.ids) || jo < len(o.ids) || jt < len(t.ids) {
		if i < len(b.ids) && mo[i] == jo && mt[i] == jt {
			out.WriteString(b.text[i])
			i, jo, jt = i+1, jo+1, jt+1
			continue
		}
		// The next base line both sides kept ends the unstable block.
		ni, no, nt := len(b.ids), len(o.ids), len(t.ids)
		for k := i; k < len(b.ids); k++ {
			if mo[k] >= 0 && mt[k] >= 0 {
				ni, no, nt = k, mo[k], mt[k]
				break
			}
		}
		bb, ob, tb := b.ids[i:ni], o.ids[jo:no], t.ids[jt:nt]
		switch {
		case equal(ob, bb), equal(ob, tb):
			writeLines(&out, t.text[jt:nt])
		case equal(tb, bb):
			writeLines(&out, o.text[jo:no])
		default:
			return "", false
		}
		i, jo, jt = ni, no, nt
	}
	return out.String(), true
}

func writeLines(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// interner numbers distinct lines, so diffs compare ints.
type interner map[string]int

// lined is a text cut into lines, each with its line ending, and their
// numbers.
type lined struct {
	text []string
	ids  []int
}

func (in *interner) lines(s string) lined {
	if *in == nil {
		*in = interner{}
	}
	var l lined
	for s != "" {
		n := strings.IndexByte(s, '\n') + 1
		if n == 0 {
			n = len(s)
		}
		line := s[:n]
		id, ok := (*in)[line]
		if !ok {
			id = len(*in)
			(*in)[line] = id
		}
		l.text, l.ids = append(l.text, line), append(l.ids, id)
		s = s[n:]
	}
	return l
}

// matches returns, for each line of a, the index of the line of b it is
// matched with in a longest common subsequence, or -1. The common prefix
// and suffix are matched first; the rest goes through Myers' O(ND) diff,
// or stays unmatched past maxEdits.
func matches(a, b []int) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		m[pre] = pre
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		m[len(a)-1-suf] = len(b) - 1 - suf
		suf++
	}
	for _, p := range myers(a[pre:len(a)-suf], b[pre:len(b)-suf]) {
		m[pre+p[0]] = pre + p[1]
	}
	return m
}

// myers returns the matched pairs (index in a, index in b) of a shortest
// edit script, in increasing order, or none when it needs more than
// maxEdits edits.
func myers(a, b []int) [][2]int {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return nil
	}
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int // trace[d]: v for k in [-d, d] before step d
	end := -1
	for d := 0; d <= limit && end < 0; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				end = d
				break
			}
		}
	}
	if end < 0 {
		return nil
	}
	var pairs [][2]int
	x, y := n, m
	for d := end; d > 0; d-- {
		vd := trace[d]
		at := func(k int) int { return vd[k+d] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		// The edit moved from (px, py) to (mx, my); the snake after it
		// matched lines up to (x, y).
		mx, my := px, py+1
		if pk == k-1 {
			mx, my = px+1, py
		}
		for x > mx && y > my {
			x, y = x-1, y-1
			pairs = append(pairs, [2]int{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		pairs = append(pairs, [2]int{x, y})
	}
	for i, j := 0, len(pairs)-1; i < j; i, j = i+1, j-1 {
		pairs[i], pairs[j] = pairs[j], pairs[i]
	}
	return pairs
}
