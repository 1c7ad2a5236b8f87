package review

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/access"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/staleness"
)

// DefaultDays is the window of expiring rules and unused memories when
// the caller gives none.
const DefaultDays = 14

// Thresholds of the duplicate rules.
const (
	// NearDuplicate is the title.Similarity from which two memories of one
	// layer are listed as near-duplicates: below Remember's refusal
	// (title.SameThreshold), because a person decides here. At 0.75
	// "Commit messages follow Conventional Commits" and "Commit messages
	// follow the Conventional Commits format" (5 of 6 terms) are listed.
	NearDuplicate = 0.75
	// TopicTags is how many tags two L2 notes share to be on one topic;
	// one shared tag is enough when their titles overlap by TopicTitle.
	TopicTags  = 2
	TopicTitle = 0.3
)

// Input is what a review reads.
type Input struct {
	// Memories are every memory of the vault (vault.All).
	Memories []*vault.Memory
	// Staleness is the staleness of the memories with refs, by id; nil
	// outside git.
	Staleness map[string]staleness.Staleness
	// Conflicted are the files a merge left in conflict (vault.Conflicted).
	Conflicted []vault.ConflictedFile
	// Recall is the vault's recall (vault.Vault.Recall). A pair of rules
	// that RivalPairs' criteria match is listed as rivals only when a
	// recall of either one's title returns both, flagged as a possible
	// conflict: the rivals an assistant actually meets. Nil lists every
	// pair the criteria match.
	Recall func(vault.Query) []vault.Result
	// Access is the clone's access record; nil when there is none to read
	// (outside git), which leaves the unused section out.
	Access *access.Summary
	// Now is the instant the review judges at; Days the window (expiring
	// rules, unused memories), DefaultDays when 0.
	Now  time.Time
	Days int
}

// Report is the review. Each section lists entries in the order a person
// should read them; an empty section is an empty list, never absent.
type Report struct {
	Now  time.Time `json:"now"`
	Days int       `json:"days"`
	// Stale: stale and possibly stale memories, with the reason.
	Stale []Entry `json:"stale"`
	// Expiring: rules that expire or take effect within Days.
	Expiring []Entry `json:"expiring"`
	// Rivals: pairs of rules in force that may contradict each other.
	Rivals []Entry `json:"rivals"`
	// Conflicted: files a git merge left in conflict.
	Conflicted []Entry `json:"conflicted"`
	// Duplicates: near-duplicate clusters and L2 notes on one topic.
	Duplicates []Entry `json:"duplicates"`
	// Dangling: links, supersedes and refs that name nothing.
	Dangling []Entry `json:"dangling"`
	// Unused: memories no recall returned within Days.
	Unused []Entry `json:"unused"`
	// AccessSince is when this clone's access record starts; zero when it
	// has none. Unused is judged only when it starts Days or more ago
	// (UnusedJudged).
	AccessSince  time.Time `json:"access_since,omitzero"`
	UnusedJudged bool      `json:"unused_judged"`
}

// Entry is one thing to look at.
type Entry struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Path   string `json:"path"`
	Layer  string `json:"layer"`
	Reason string `json:"reason"`
	// Kind refines the section: stale | possibly_stale; expires |
	// takes_effect; near_duplicate | same_topic; link | supersedes | ref;
	// the conflicted fields' kind is "record" or "markers".
	Kind string `json:"kind,omitempty"`
	// When is the instant the entry is about: the expiry or the effective
	// date, the last access (zero: never).
	When time.Time `json:"when,omitzero"`
	// With are the other memories of a pair or cluster.
	With []Other `json:"with,omitempty"`
	// Suggested is a title for the memory a cluster should become.
	Suggested string `json:"suggested_title,omitempty"`
}

// Other names another memory of an entry.
type Other struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Path  string `json:"path,omitempty"`
}

// Total is how many entries the report holds.
func (r Report) Total() int {
	return len(r.Stale) + len(r.Expiring) + len(r.Rivals) + len(r.Conflicted) + len(r.Duplicates) + len(r.Dangling) + len(r.Unused)
}

// Build reviews in.Memories at in.Now.
func Build(in Input) Report {
	days := cmp.Or(in.Days, DefaultDays)
	r := Report{Now: in.Now, Days: days}
	byID := make(map[string]*vault.Memory, len(in.Memories))
	for _, m := range in.Memories {
		byID[m.ID] = m
	}
	// live are the memories a review is about: active and not expired
	// (a rule yet to take effect is included), L1 scratch left out.
	var live []*vault.Memory
	for _, m := range in.Memories {
		if m.Status == vault.StatusActive && m.Layer != vault.Transient && (m.ExpiresAt.IsZero() || in.Now.Before(m.ExpiresAt)) {
			live = append(live, m)
		}
	}
	window := in.Now.AddDate(0, 0, days)
	r.Stale = staleEntries(live, in.Staleness)
	r.Expiring = expiring(live, in.Now, window)
	dups, dupPair := duplicates(live, in.Now)
	r.Duplicates = dups
	r.Rivals = rivals(live, in.Now, dupPair, in.Recall)
	r.Conflicted = conflicted(in.Conflicted, byID)
	r.Dangling = dangling(in.Memories, byID)
	if in.Access != nil {
		r.AccessSince = in.Access.Since
		r.UnusedJudged = !in.Access.Since.IsZero() && !in.Access.Since.After(in.Now.AddDate(0, 0, -days))
		if r.UnusedJudged {
			r.Unused = unused(live, *in.Access, in.Now, days)
		}
	}
	for _, s := range []*[]Entry{&r.Stale, &r.Expiring, &r.Rivals, &r.Conflicted, &r.Duplicates, &r.Dangling, &r.Unused} {
		if *s == nil {
			*s = []Entry{}
		}
	}
	return r
}

func entryOf(m *vault.Memory) Entry {
	return Entry{ID: m.ID, Title: m.Title, Path: m.Path, Layer: m.Layer.String()}
}

func otherOf(m *vault.Memory) Other { return Other{ID: m.ID, Title: m.Title, Path: m.Path} }

// staleEntries lists the live memories that are stale or possibly
// stale: stale ones first, then by path. Unknown is left to lint (a ref
// to a path that never existed) or to a later answer (one not ready in
// time).
func staleEntries(live []*vault.Memory, states map[string]staleness.Staleness) []Entry {
	var out []Entry
	for _, m := range live {
		st, ok := states[m.ID]
		if !ok || st.State != staleness.Stale && st.State != staleness.PossiblyStale {
			continue
		}
		e := entryOf(m)
		e.Kind, e.Reason = string(st.State), st.Reason
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)), strings.Compare(a.Path, b.Path))
	})
	return out
}

func kindRank(k string) int {
	if k == string(staleness.Stale) {
		return 0
	}
	return 1
}

// isRule reports whether a memory is a rule: an L3 decision or an L4
// preference (as recall judges rivals).
func isRule(m *vault.Memory) bool { return m.Layer == vault.Project || m.Layer == vault.Preference }

// expiring lists the rules that expire or take effect in (now, until],
// soonest first.
func expiring(live []*vault.Memory, now, until time.Time) []Entry {
	var out []Entry
	in := func(t time.Time) bool { return !t.IsZero() && t.After(now) && !t.After(until) }
	for _, m := range live {
		if !isRule(m) {
			continue
		}
		if in(m.EffectiveAt) {
			e := entryOf(m)
			e.Kind, e.When = "takes_effect", m.EffectiveAt
			e.Reason = fmt.Sprintf("takes effect %s (%s); until then recall hides it", dayOf(m.EffectiveAt), inDays(now, m.EffectiveAt))
			out = append(out, e)
		}
		if in(m.ExpiresAt) {
			e := entryOf(m)
			e.Kind, e.When = "expires", m.ExpiresAt
			e.Reason = fmt.Sprintf("expires %s (%s); after that recall hides it", dayOf(m.ExpiresAt), inDays(now, m.ExpiresAt))
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Or(a.When.Compare(b.When), strings.Compare(a.Path, b.Path), strings.Compare(a.Kind, b.Kind))
	})
	return out
}

func dayOf(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// inDays says how far t is from now, in whole days, rounded down.
func inDays(now, t time.Time) string {
	d := int(t.Sub(now).Hours() / 24)
	switch d {
	case 0:
		return "within a day"
	case 1:
		return "in 1 day"
	}
	return fmt.Sprintf("in %d days", d)
}

// rivals lists the pairs of rules in force at now that recall would flag
// as a possible conflict, leaving out near-duplicate pairs (listed as
// duplicates). Each pair once, by the smaller id.
func rivals(live []*vault.Memory, now time.Time, dup map[[2]string]bool, recall func(vault.Query) []vault.Result) []Entry {
	var rules []*vault.Memory
	for _, m := range live {
		if isRule(m) && m.InForce(now) {
			rules = append(rules, m)
		}
	}
	slices.SortFunc(rules, func(a, b *vault.Memory) int { return strings.Compare(a.ID, b.ID) })
	toks := make([]map[string]bool, len(rules))
	for i, m := range rules {
		toks[i] = tokens(m.Title)
	}
	var out []Entry
	for _, p := range vault.RivalPairsOf(rules, candidates(toks)) {
		a, b := rules[p[0]], rules[p[1]]
		if dup[pairKey(a.ID, b.ID)] || recall != nil && !flagged(recall, now, a, b) && !flagged(recall, now, b, a) {
			continue
		}
		e := entryOf(a)
		e.With = []Other{otherOf(b)}
		e.Reason = rivalReason(a, b)
		out = append(out, e)
	}
	return out
}

// rivalRecallLimit is how many results the recall of a rival's title
// reads: recall's default.
const rivalRecallLimit = vault.DefaultLimit

// flagged reports whether a recall of a's title at now returns a flagged
// as a possible conflict with b.
func flagged(recall func(vault.Query) []vault.Result, now time.Time, a, b *vault.Memory) bool {
	for _, r := range recall(vault.Query{Text: a.Title, Limit: rivalRecallLimit, AsOf: now}) {
		if r.Memory.ID == a.ID {
			return slices.Contains(r.PossibleConflict, b.ID)
		}
	}
	return false
}

func pairKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// rivalReason says what the two rules share.
func rivalReason(a, b *vault.Memory) string {
	var shared []string
	for _, t := range a.Tags {
		if slices.ContainsFunc(b.Tags, func(u string) bool { return strings.EqualFold(t, u) }) {
			shared = append(shared, t)
		}
	}
	s := "both in force, neither supersedes the other, titles on one subject"
	if len(shared) > 0 {
		s += ", shared tags: " + strings.Join(shared, ", ")
	}
	return s
}

// conflicted lists the files a merge left in conflict, with what
// disagrees and the other side's values.
func conflicted(files []vault.ConflictedFile, byID map[string]*vault.Memory) []Entry {
	var out []Entry
	for _, f := range files {
		// A file whose markers keep it out of the vault has no memory:
		// its path stands for the title.
		e := Entry{ID: f.ID, Title: f.Path, Path: f.Path, Kind: "record"}
		m := byID[f.ID]
		if m != nil {
			e.Title, e.Layer = m.Title, m.Layer.String()
		}
		if len(f.What) == 1 && f.What[0] == vault.ConflictedMarkers {
			e.Kind = "markers"
			e.Reason = "the file holds git conflict markers; the last committed version is served"
		} else {
			var parts []string
			for _, w := range f.What {
				if m != nil {
					if v, ok := m.ConflictTheirs[w]; ok && w != "body" {
						parts = append(parts, fmt.Sprintf("%s (theirs: %s)", w, oneLine(v, 40)))
						continue
					}
				}
				parts = append(parts, w)
			}
			e.Reason = "a merge kept our side and recorded theirs: " + strings.Join(parts, ", ")
		}
		out = append(out, e)
	}
	return out
}

// dangling lists links and supersedes naming no memory of the vault, and
// refs that do not parse, for every memory (an archived one's links still
// mislead whoever follows them).
func dangling(ms []*vault.Memory, byID map[string]*vault.Memory) []Entry {
	// An old path id a memory keeps in aliases (a hand-written memory
	// given an id) still names it.
	aliases := map[string]bool{}
	for _, m := range ms {
		for _, a := range m.Aliases {
			aliases[a] = true
		}
	}
	var out []Entry
	for _, m := range ms {
		for _, f := range []struct {
			kind string
			ids  []string
		}{{"supersedes", m.Supersedes}, {"link", m.Links}} {
			for i, id := range f.ids {
				if id == m.ID || slices.Contains(f.ids[:i], id) || byID[id] != nil || aliases[id] {
					continue
				}
				e := entryOf(m)
				e.Kind = f.kind
				e.Reason = fmt.Sprintf("%s names %s, which no memory of this vault has (deleted, or a mistyped id)", map[string]string{"supersedes": "supersedes", "link": "links"}[f.kind], id)
				out = append(out, e)
			}
		}
		for _, ref := range m.Refs {
			if _, err := staleness.ParseRef(ref); err != nil {
				e := entryOf(m)
				e.Kind = "ref"
				e.Reason = fmt.Sprintf("ref %q is not a path, folder, glob or path#Symbol: %v", ref, err)
				out = append(out, e)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// unused lists the live memories no recall returned within days of now,
// among those that existed for all of that window: never recalled first,
// then the longest unrecalled.
func unused(live []*vault.Memory, acc access.Summary, now time.Time, days int) []Entry {
	from := now.AddDate(0, 0, -days)
	var out []Entry
	for _, m := range live {
		if m.CreatedAt.After(from) {
			continue // too new to judge
		}
		last := acc.Last[m.ID]
		if last.After(from) {
			continue
		}
		e := entryOf(m)
		e.Kind, e.When = "unused", last
		if last.IsZero() {
			e.Reason = fmt.Sprintf("never returned by a recall in this clone since %s", acc.Since.UTC().Format("2006-01-02"))
		} else {
			e.Reason = fmt.Sprintf("last returned by a recall %s (%d days ago, %d times in all)", last.UTC().Format("2006-01-02"), int(now.Sub(last).Hours()/24), acc.Count[m.ID])
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Or(a.When.Compare(b.When), strings.Compare(a.Path, b.Path))
	})
	return out
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// tokens is a title's set of index terms.
func tokens(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range index.Tokenize(s) {
		out[t] = true
	}
	return out
}

// capitalise upper-cases the first letter of s.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
