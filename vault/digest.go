package vault

import (
	"context"
	"slices"
)

// The session-start digest's sections, in the order they come.
const (
	DigestPreferences = "Preferences"
	DigestKeyRules    = "Project rules (importance 8+)"
	DigestTaskState   = "Recent task state"
	DigestConflicts   = "Open conflicts"
)

// DigestSection is one part of the digest: memories, or for
// DigestConflicts pairs of rival rules.
type DigestSection struct {
	Title    string
	Memories []SetResult
	// Conflicts pairs the ids of rival rules, the smaller id first,
	// sorted (DigestConflicts only).
	Conflicts [][2]string
}

// Digest is what an assistant should know at session start: the
// developer's preferences, the project's rules of importance 8 and more,
// recent task state, and the rival rules among them, from every vault of
// the set with recall's rules across them.
type Digest struct {
	// Sections are the sections with something to list, in order. When
	// the budget cut the digest, the last one may list only part of its
	// entries, or none.
	Sections []DigestSection
	// LeftOut counts the memories and conflict pairs left out to stay
	// within the budget; 0 when the digest is whole.
	LeftOut int
}

// DigestSizer measures the parts of a digest as its renderer will write
// them (bytes, tokens), so Digest keeps within a budget it does not
// render.
type DigestSizer interface {
	Heading(title string) int
	Memory(r SetResult) int
	Conflict(pair [2]string) int
}

// digestSections are the digest's recall queries: which memories, how
// many at most, and which of the results to keep.
var digestSections = []struct {
	title string
	q     Query
	keep  func(SetResult) bool
}{
	{DigestPreferences, Query{Layers: []Layer{Preference}, Limit: 50}, nil},
	{DigestKeyRules, Query{Layers: []Layer{Project}, Limit: 200},
		func(r SetResult) bool { return r.Memory.Importance >= NoDecayImportance }},
	{DigestTaskState, Query{Layers: []Layer{ShortTerm}, Limit: 10}, nil},
}

// Digest builds the session-start digest at the set's now, within budget
// as size measures it: parts are taken in order until the next one does
// not fit, and the rest is left out. A memory another vault supersedes is
// left out, as in recall; rival rules from different vaults, which land
// in different sections, are judged over the whole digest and listed as
// open conflicts.
func (s *Set) Digest(ctx context.Context, budget int, size DigestSizer) (Digest, error) {
	var all []DigestSection
	var listed []SetResult
	for _, sec := range digestSections {
		rs, err := s.Recall(ctx, sec.q)
		if err != nil {
			return Digest{}, err
		}
		var kept []SetResult
		for _, r := range rs {
			if sec.keep == nil || sec.keep(r) {
				kept = append(kept, r)
			}
		}
		if len(kept) > 0 {
			all = append(all, DigestSection{Title: sec.title, Memories: kept})
			listed = append(listed, kept...)
		}
	}
	// A user preference and a project rule are in different sections:
	// judge the rivals across vaults over the whole digest. Marking works
	// on a copy, so the sections keep what each recall said.
	marked := slices.Clone(listed)
	markCrossConflicts(marked)
	var pairs [][2]string
	for _, r := range marked {
		for _, other := range r.PossibleConflict {
			if r.Memory.ID < other {
				pairs = append(pairs, [2]string{r.Memory.ID, other})
			}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]string) int { return slices.Compare(a[:], b[:]) })
	pairs = slices.Compact(pairs)
	if len(pairs) > 0 {
		all = append(all, DigestSection{Title: DigestConflicts, Conflicts: pairs})
	}
	return fitDigest(all, budget, size), nil
}

// fitDigest keeps the sections' parts, in order, while they fit in budget.
func fitDigest(all []DigestSection, budget int, size DigestSizer) Digest {
	var d Digest
	used := 0
	fits := func(n int) bool {
		if d.LeftOut > 0 || used+n > budget {
			return false
		}
		used += n
		return true
	}
	for _, sec := range all {
		if !fits(size.Heading(sec.Title)) {
			d.LeftOut += len(sec.Memories) + len(sec.Conflicts)
			continue
		}
		kept := DigestSection{Title: sec.Title}
		for _, r := range sec.Memories {
			if fits(size.Memory(r)) {
				kept.Memories = append(kept.Memories, r)
			} else {
				d.LeftOut++
			}
		}
		for _, p := range sec.Conflicts {
			if fits(size.Conflict(p)) {
				kept.Conflicts = append(kept.Conflicts, p)
			} else {
				d.LeftOut++
			}
		}
		d.Sections = append(d.Sections, kept)
	}
	return d
}
