// Package rank orders and cuts what a recall found: the Result of a
// recalled memory and why it ranks where it does, the structure rules
// applied after the text ranked the memories (links vouching for what
// they link to, supersession, near-duplicates kept apart), the strong and
// weak labels and the cut of the tail (Cut), rival rules on one subject,
// and the memo of what recalls derive from memories' texts. The index
// scores the text; a vault gathers the candidates and their states and
// hands them here.
package rank

import (
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/memory"
)

// Memory is the model's memory.
type Memory = memory.Memory

// Ref names another memory.
type Ref struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// Result is one recalled memory with why it ranks where it does.
type Result struct {
	Memory    *Memory `json:"memory"`
	Score     float64 `json:"score"`
	Relevance float64 `json:"relevance"`
	Snippet   string  `json:"snippet"`
	// State is the memory's state at the query instant: active, archived,
	// superseded, expired or future.
	State string `json:"state"`
	// Supersedes names the memories this one replaces.
	Supersedes []Ref `json:"supersedes,omitempty"`
	// SupersededBy names the in-force memories that replace this one
	// (only with IncludeInactive).
	SupersededBy []Ref `json:"superseded_by,omitempty"`
	// PossibleConflict lists the ids of other results that look like rival
	// rules on the same subject, neither superseding the other.
	PossibleConflict []string `json:"possible_conflict,omitempty"`
	// Match is MatchStrong or MatchWeak: how well the memory answers the
	// query. Empty for a query without text (a list of recent memories).
	Match string `json:"match,omitempty"`
	// MatchReason says why a weak result is weak ("matches 1 of 3 query
	// concepts") or what lifted it ("linked from ...").
	MatchReason string `json:"match_reason,omitempty"`
	// Coverage is the rarity-weighted share of the query's concepts the
	// memory matched (typed words, identifiers, Chinese words, each
	// directly or through a translation); Matched of Concepts counts them.
	Coverage float64 `json:"coverage,omitempty"`
	Matched  int     `json:"matched,omitempty"`
	Concepts int     `json:"concepts,omitempty"`
	// Explain says why the memory matched (with Query.Explain); its
	// Format method writes it as text.
	Explain *index.Explanation `json:"explain,omitempty"`
	// Adjustments are the structure rules that changed the result's score
	// or place after the text ranked it (links, supersession,
	// near-duplicates, ranking across vaults), in the order they applied.
	Adjustments []Adjustment `json:"adjustments,omitempty"`

	linked bool    // a strong match links to it: kept below the tail cut
	norm   float64 // index.Hit.Norm, for the strength analysis in eval_test.go
	// snip holds what the snippet needs until the result survives the
	// cut (a pooled recall leaves the snippet to its Set): each snippet
	// parses the memory's body (see Memory.PlainText).
	snip *snipSpec
}

// The structure rules an Adjustment names.
const (
	AdjustLink          = "link"
	AdjustSupersession  = "supersession"
	AdjustNearDuplicate = "near-duplicate"
	AdjustCrossVault    = "cross-vault"
)

// Adjustment is one structure rule applied to a result after the text
// ranked it.
type Adjustment struct {
	// Rule is AdjustLink, AdjustSupersession, AdjustNearDuplicate or
	// AdjustCrossVault.
	Rule string `json:"rule"`
	// Factor multiplied the score; 0 when the rule set the score or only
	// moved the result.
	Factor float64 `json:"factor,omitempty"`
	// Note says what the rule did, for people.
	Note string `json:"note"`
}

// snipSpec is a snippet still to be made: the matched terms and its size.
type snipSpec struct {
	terms []string
	runes int
}

// FillSnippet makes the snippet a pooled recall left for later; texts
// remembers the texts' analyses across calls (nil: nothing).
func (r *Result) FillSnippet(texts *TextMemo) {
	if r.snip != nil {
		r.Snippet = texts.snippet(r.Memory, r.snip.terms, r.snip.runes)
		r.snip = nil
	}
}

// FromHit is the result of the index's hit h on m, in state.
func FromHit(m *Memory, state string, h index.Hit) Result {
	return Result{Memory: m, Score: h.Score, Relevance: h.Relevance, State: state,
		Coverage: h.Coverage, Matched: h.Matched, Concepts: h.Concepts, norm: h.Norm}
}

// DeferSnippet leaves r's snippet, of the matched terms and runes long,
// to FillSnippet: a pooled recall makes only the snippets of the results
// that survive the cut of the merged list.
func (r *Result) DeferSnippet(terms []string, runes int) {
	r.snip = &snipSpec{terms: terms, runes: runes}
}

// Norm is the result's text relevance divided by that of an ideal match
// for the query (index.Hit.Norm): how fully the memory's text answers the
// words typed, whatever the layer, age and importance. 0 for a query
// without text.
func (r Result) Norm() float64 { return r.norm }

// Linked reports whether a strong match links to r's memory, which keeps
// it below the tail cut.
func (r Result) Linked() bool { return r.linked }
