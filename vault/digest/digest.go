// Package digest builds the session-start digest: what an assistant
// should know before it asks anything, in sections, within a budget. It
// reads the set of vaults through recall only (Source), so the digest
// ranks, filters and supersedes exactly as recall does.
package digest

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/memvault/memvault/vault"
)

// The session-start digest's sections, in the order they come.
const (
	Preferences = "Preferences"
	KeyRules    = "Project rules (importance 8+)"
	Recent      = "Decisions of the last 7 days"
	TaskState   = "Recent task state"
	Conflicts   = "Open conflicts"
)

// Section is one part of the digest: memories, or for Conflicts pairs of
// rival rules.
type Section struct {
	Title    string
	Memories []vault.SetResult
	// Conflicts pairs the ids of rival rules, the smaller id first,
	// sorted (the Conflicts section only).
	Conflicts [][2]string
}

// Digest is what an assistant should know at session start: the
// developer's preferences, the project's rules of importance 8 and more,
// the project decisions of the last 7 days, recent task state, and the rival rules among them, from every vault of
// the set with recall's rules across them.
type Digest struct {
	// Sections are the sections with something to list, in order. When
	// the budget cut the digest, the last one may list only part of its
	// entries, or none.
	Sections []Section
	// LeftOut counts the memories and conflict pairs the sections select
	// but the digest does not show (beyond a section's cap, or to stay
	// within the budget); 0 when the digest is whole.
	LeftOut int
	// Omitted counts the memories left out by layer, and
	// OmittedConflicts the conflict pairs; they add up to LeftOut.
	Omitted          map[vault.Layer]int
	OmittedConflicts int
}

// Sizer measures the parts of a digest as its renderer will write them
// (bytes, tokens), so Build keeps within a budget it does not render.
type Sizer interface {
	Heading(title string) int
	Memory(r vault.SetResult) int
	Conflict(pair [2]string) int
}

// Source is what the digest reads: the set of vaults (vault.Set) through
// its recall and its clock.
type Source interface {
	Recall(ctx context.Context, q vault.Query) ([]vault.SetResult, error)
	Instant() time.Time
}

// sections are the digest's recall queries: which memories, how
// many a section shows at most, and for recent ones how far back they go
// (a memory listed by an earlier section is not listed again).
var sections = []struct {
	title  string
	q      vault.Query
	show   int
	recent time.Duration
}{
	{Preferences, vault.Query{Layers: []vault.Layer{vault.Preference}}, 50, 0},
	{KeyRules, vault.Query{Layers: []vault.Layer{vault.Project}, MinImportance: vault.NoDecayImportance}, 200, 0},
	{Recent, vault.Query{Layers: []vault.Layer{vault.Project}}, 15, RecentDecisions},
	{TaskState, vault.Query{Layers: []vault.Layer{vault.ShortTerm}}, 10, 0},
}

// RecentDecisions is how far back the digest's recent decisions go.
const RecentDecisions = 7 * 24 * time.Hour

// candidates bounds the memories a section weighs (the most
// recently updated ones); far more than a digest can show.
const candidates = 10000

// Build makes the session-start digest of the set s at its instant,
// within budget as size measures it. Each section ranks its memories as
// recall ranks them when the text says nothing: by layer weight x time
// decay x importance (vault.Weight), so what the budget drops is what recall would rank
// last. Parts are taken in order until the next one does not fit, and the
// rest is left out and counted (Omitted). A memory another vault
// supersedes is left out, as in recall; rival rules from different
// vaults, which land in different sections, are judged over the whole
// digest and listed as open conflicts.
func Build(ctx context.Context, s Source, budget int, size Sizer) (Digest, error) {
	var all []Section
	var listed []vault.SetResult
	capped := map[vault.Layer]int{}
	at := s.Instant()
	seen := map[string]bool{}
	for _, sec := range sections {
		q := sec.q
		q.Limit = candidates
		if sec.recent > 0 {
			q.Since = at.Add(-sec.recent)
		}
		rs, err := s.Recall(ctx, q)
		if err != nil {
			return Digest{}, err
		}
		rs = slices.DeleteFunc(rs, func(r vault.SetResult) bool { return seen[r.Vault+"\x00"+r.Memory.ID] })
		for _, r := range rs {
			seen[r.Vault+"\x00"+r.Memory.ID] = true
		}
		byWeight(rs, at)
		if len(rs) > sec.show {
			for _, r := range rs[sec.show:] {
				capped[r.Memory.Layer]++
			}
			rs = rs[:sec.show]
		}
		if len(rs) > 0 {
			all = append(all, Section{Title: sec.title, Memories: rs})
			listed = append(listed, rs...)
		}
	}
	// A user preference and a project rule are in different sections:
	// judge the rivals across vaults over the whole digest. Marking works
	// on a copy, so the sections keep what each recall said.
	marked := slices.Clone(listed)
	vault.MarkCrossConflicts(marked)
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
		all = append(all, Section{Title: Conflicts, Conflicts: pairs})
	}
	d := fit(all, budget, size)
	for l, n := range capped {
		if d.Omitted == nil {
			d.Omitted = map[vault.Layer]int{}
		}
		d.Omitted[l] += n
		d.LeftOut += n
	}
	return d, nil
}

// byWeight orders results by vault.Weight at instant at, the most recently
// updated first among equals, then by id.
func byWeight(rs []vault.SetResult, at time.Time) {
	slices.SortStableFunc(rs, func(a, b vault.SetResult) int {
		return cmp.Or(cmp.Compare(vault.Weight(b.Memory, at), vault.Weight(a.Memory, at)),
			b.Memory.UpdatedAt.Compare(a.Memory.UpdatedAt), cmp.Compare(a.Memory.ID, b.Memory.ID))
	})
}

// fit keeps the sections' parts, in order, while they fit in budget.
func fit(all []Section, budget int, size Sizer) Digest {
	var d Digest
	used := 0
	fits := func(n int) bool {
		if d.LeftOut > 0 || used+n > budget {
			return false
		}
		used += n
		return true
	}
	omit := func(r vault.SetResult) {
		if d.Omitted == nil {
			d.Omitted = map[vault.Layer]int{}
		}
		d.Omitted[r.Memory.Layer]++
		d.LeftOut++
	}
	for _, sec := range all {
		if !fits(size.Heading(sec.Title)) {
			for _, r := range sec.Memories {
				omit(r)
			}
			d.OmittedConflicts += len(sec.Conflicts)
			d.LeftOut += len(sec.Conflicts)
			continue
		}
		kept := Section{Title: sec.Title}
		for _, r := range sec.Memories {
			if fits(size.Memory(r)) {
				kept.Memories = append(kept.Memories, r)
			} else {
				omit(r)
			}
		}
		for _, p := range sec.Conflicts {
			if fits(size.Conflict(p)) {
				kept.Conflicts = append(kept.Conflicts, p)
			} else {
				d.OmittedConflicts++
				d.LeftOut++
			}
		}
		d.Sections = append(d.Sections, kept)
	}
	return d
}
