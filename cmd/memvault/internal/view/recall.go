package view

import (
	"strings"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/index"
)

// RecallOf builds the answer of a recall or a list from the set's
// results, in their order.
func RecallOf(rs []vault.SetResult) Recall {
	out := Recall{Results: make([]RecallResult, 0, len(rs))}
	for _, r := range rs {
		out.Results = append(out.Results, RecallResultOf(r))
	}
	return out
}

// Where a matched term came from (ExplainTerm.Origin).
const (
	// OriginQuery is a word or identifier typed in the query.
	OriginQuery = "query"
	// OriginPart is a part of a typed identifier (deploy in
	// ops/deploy.sh) or of a typed Chinese word.
	OriginPart = "part"
	// OriginExpansion is a term the query did not contain: a synonym or
	// translation (curated dictionary, CC-CEDICT, the vault's learned
	// table) or a question word's paraphrase.
	OriginExpansion = "expansion"
)

// Explain says why a result ranks where it does: which of the query's
// concepts it covers, which terms it matched and where each came from,
// and the structure rules that moved it. `memvault recall --explain` and
// the MCP recall tool's explain argument.
type Explain struct {
	// Relevance is the text's score: the sum of the terms' scores times
	// Coverage (the share of the query's concepts covered, by weight).
	Relevance float64          `json:"relevance"`
	Coverage  float64          `json:"coverage"`
	Concepts  []ExplainConcept `json:"concepts"`
	// Terms are the matched terms, heaviest first.
	Terms []ExplainTerm `json:"terms"`
	// Adjustments are the structure rules applied after the text ranked
	// the result: links, supersession, near-duplicates, ranking across
	// vaults.
	Adjustments []Adjustment `json:"adjustments"`
}

// ExplainConcept is one concept of the query.
type ExplainConcept struct {
	Label string `json:"label"`
	// Weight is its share of the query (the weights add up to 1).
	Weight float64 `json:"weight"`
	// How the memory covers it: typed, expanded, partly (n of m) or
	// missing.
	How string `json:"how"`
}

// ExplainTerm is one matched term.
type ExplainTerm struct {
	Term string `json:"term"`
	// Origin is OriginQuery, OriginPart or OriginExpansion.
	Origin string `json:"origin"`
	// Source names the term's source: typed, dictionary, paraphrase,
	// cc-cedict or learned.
	Source string `json:"source"`
	// From is, for an expansion, the query word it translates.
	From string `json:"from,omitempty"`
	// Concept is the query concept the term stands for.
	Concept string `json:"concept,omitempty"`
	// Weight is the term's weight in the query; Score what it added to
	// the relevance before coverage.
	Weight float64 `json:"weight"`
	Score  float64 `json:"score"`
	// Fields counts the term's occurrences in title, aliases, tags and
	// body.
	Fields map[string]int `json:"fields"`
}

// Adjustment is one structure rule applied to a result.
type Adjustment struct {
	// Rule is link, supersession, near-duplicate or cross-vault.
	Rule string `json:"rule"`
	// Factor multiplied the score; absent when the rule only moved the
	// result or set its score.
	Factor float64 `json:"factor,omitempty"`
	Note   string  `json:"note"`
}

// ExplainOf builds the view of an explanation and the adjustments of the
// same result; nil when e is nil.
func ExplainOf(e *index.Explanation, adjustments []vault.Adjustment) *Explain {
	if e == nil {
		return nil
	}
	out := &Explain{Relevance: Round3(e.Relevance), Coverage: Round3(e.Coverage),
		Concepts: []ExplainConcept{}, Terms: []ExplainTerm{}, Adjustments: []Adjustment{}}
	for _, c := range e.Concepts {
		how := c.How
		if how == "" {
			how = "missing"
		}
		out.Concepts = append(out.Concepts, ExplainConcept{Label: c.Label, Weight: Round3(c.Weight), How: how})
	}
	for _, t := range e.Terms {
		origin := OriginExpansion
		if t.Source == index.SourceTyped {
			origin = OriginQuery
			if !wholeConcept(t.Term, t.Concept) {
				origin = OriginPart
			}
		}
		fields := map[string]int{}
		for name, n := range map[string]int{"title": t.Title, "aliases": t.Aliases, "tags": t.Tags, "body": t.Body} {
			if n > 0 {
				fields[name] = n
			}
		}
		out.Terms = append(out.Terms, ExplainTerm{Term: t.Term, Origin: origin, Source: t.Source.String(), From: t.From,
			Concept: t.Concept, Weight: Round3(t.Weight), Score: Round3(t.Score), Fields: fields})
	}
	for _, a := range adjustments {
		out.Adjustments = append(out.Adjustments, Adjustment{Rule: a.Rule, Factor: Round3(a.Factor), Note: a.Note})
	}
	return out
}

// wholeConcept reports whether the index term stands for the whole of the
// typed concept (strategi for strategy, ops/deploy.sh for itself) rather
// than a part of it (deploy of ops/deploy.sh, 覆盖 of 覆盖率).
func wholeConcept(term, concept string) bool {
	if concept == "" || strings.EqualFold(term, concept) {
		return true
	}
	toks := index.Tokenize(concept)
	return len(toks) == 1 && toks[0] == term
}
