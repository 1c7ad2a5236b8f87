package index

import (
	"cmp"
	"slices"
	"sort"
)

// spanSet holds byte ranges of a query (the dictionary terms found in it)
// and tells, for another range, whether one of them crosses it or lies
// inside it. Each answer takes logarithmic time, so that planning a query
// stays linear in its length however many terms it has: comparing every
// pair of ranges made a long query quadratic.
type spanSet struct {
	byStart, byEnd []bspan
	// maxEnd[k][i] is the largest end among byStart[i : i+2^k];
	// minStart[k][i] the smallest start among byEnd[i : i+2^k].
	maxEnd, minStart [][]int
}

// bspan is a byte range [start, end) of a query.
type bspan struct{ start, end int }

func newSpanSet(n int) *spanSet { return &spanSet{byStart: make([]bspan, 0, n)} }

// add records the range [start, end); call build before asking.
func (s *spanSet) add(start, end int) { s.byStart = append(s.byStart, bspan{start, end}) }

// build sorts the ranges and fills the range tables.
func (s *spanSet) build() {
	slices.SortFunc(s.byStart, func(x, y bspan) int { return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.end, y.end)) })
	s.byEnd = slices.Clone(s.byStart)
	slices.SortFunc(s.byEnd, func(x, y bspan) int { return cmp.Or(cmp.Compare(x.end, y.end), cmp.Compare(x.start, y.start)) })
	ends := make([]int, len(s.byStart))
	for i, sp := range s.byStart {
		ends[i] = sp.end
	}
	starts := make([]int, len(s.byEnd))
	for i, sp := range s.byEnd {
		starts[i] = sp.start
	}
	s.maxEnd = rangeTable(ends, func(a, b int) int { return max(a, b) })
	s.minStart = rangeTable(starts, func(a, b int) int { return min(a, b) })
}

// rangeTable is the sparse table of xs under op (max or min): row k holds
// op over every window of 2^k values.
func rangeTable(xs []int, op func(a, b int) int) [][]int {
	t := [][]int{xs}
	for w := 1; 2*w <= len(xs); w *= 2 {
		prev := t[len(t)-1]
		row := make([]int, len(prev)-w)
		for i := range row {
			row[i] = op(prev[i], prev[i+w])
		}
		t = append(t, row)
	}
	return t
}

// rangeOf is op over xs[lo:hi] (lo < hi) from its table t.
func rangeOf(t [][]int, lo, hi int, op func(a, b int) int) int {
	k := 0
	for 1<<(k+1) <= hi-lo {
		k++
	}
	return op(t[k][lo], t[k][hi-1<<k])
}

// crosses reports whether a range of the set overlaps [start, end) with
// neither holding the other: it begins before start and ends inside, or
// begins inside and ends after end.
func (s *spanSet) crosses(start, end int) bool {
	// Begins inside, ends after.
	lo := sort.Search(len(s.byStart), func(i int) bool { return s.byStart[i].start > start })
	hi := sort.Search(len(s.byStart), func(i int) bool { return s.byStart[i].start >= end })
	if lo < hi && rangeOf(s.maxEnd, lo, hi, func(a, b int) int { return max(a, b) }) > end {
		return true
	}
	// Ends inside, begins before.
	lo = sort.Search(len(s.byEnd), func(i int) bool { return s.byEnd[i].end > start })
	hi = sort.Search(len(s.byEnd), func(i int) bool { return s.byEnd[i].end >= end })
	return lo < hi && rangeOf(s.minStart, lo, hi, func(a, b int) int { return min(a, b) }) < start
}

// holds reports whether a range of the set other than [start, end) itself
// lies inside it.
func (s *spanSet) holds(start, end int) bool {
	k := sort.Search(len(s.byStart), func(i int) bool { return s.byStart[i].start >= start })
	for ; k < len(s.byStart) && s.byStart[k].start < end; k++ {
		// Sorted by end among equal starts: the first that starts here
		// ends soonest.
		if sp := s.byStart[k]; sp.end <= end && sp != (bspan{start, end}) {
			return true
		}
	}
	return false
}
