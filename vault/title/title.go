// Package title says when two memory titles name the same thing: the
// comparison behind Remember's refusal of a near-identical title and the
// review's duplicate clusters. A title is compared by its key (letters and
// digits, lower-cased, full-width folded), its polarity (a negation turns
// a rule around) and its index terms in order.
package title

import (
	"strings"
	"unicode"

	"github.com/memvault/memvault/vault/index"
)

// SameThreshold is the similarity from which Remember takes a new memory
// for one that exists. Similarity is the Jaccard index of the two titles'
// index-term sequences (longest common subsequence over the union), so
// word order counts. At 0.85 titles of up to six terms must have the same
// terms in the same order; longer ones may differ by one. "Use pytest for
// tests" and "Use pytest for integration tests" (3 of 4 terms, 0.75) stay
// two memories on purpose: the second narrows the first, and refusing it
// would lose the narrower rule.
const SameThreshold = 0.85

// Title is a title analysed once, to compare it with many others.
type Title struct {
	key  string   // see key
	neg  bool     // see negated
	toks []string // index.Tokenize
}

// New analyses a title.
func New(s string) Title {
	return Title{key: key(s), neg: negated(s), toks: index.Tokenize(s)}
}

// Same reports whether a and b name the same memory: equal once case,
// width, punctuation and spacing are ignored, or of the same polarity
// with term sequences at least SameThreshold alike (stop words and
// inflections aside, as the index sees them). It is Similarity(a, b) >=
// SameThreshold, without computing the similarity when the lengths
// already rule it out.
func (a Title) Same(b Title) bool {
	if a.key == "" || b.key == "" {
		return false
	}
	if a.key == b.key {
		return true
	}
	// "Use tabs" and "Do not use tabs" share every index term (the
	// index drops "do" and "not"), and are opposites.
	if a.neg != b.neg {
		return false
	}
	// The LCS is at most the shorter sequence and the union at least the
	// longer: a ratio of lengths under the threshold cannot reach it.
	la, lb := len(a.toks), len(b.toks)
	if float64(min(la, lb)) < SameThreshold*float64(max(la, lb)) {
		return false
	}
	return seqJaccard(a.toks, b.toks) >= SameThreshold
}

// Similarity says how alike two titles are, as Remember judges
// near-duplicates (it refuses a new memory from SameThreshold): 1 when
// they are equal once case, width, punctuation and spacing are ignored,
// 0 when one is negated and the other not ("Use tabs", "Do not use tabs")
// or either is empty, else the Jaccard index of their index-term
// sequences, where the shared terms must keep their order.
func (a Title) Similarity(b Title) float64 {
	switch {
	case a.key == "" || b.key == "":
		return 0
	case a.key == b.key:
		return 1
	case a.neg != b.neg:
		return 0
	}
	return seqJaccard(a.toks, b.toks)
}

// Similarity is the Similarity of two titles analysed once.
func Similarity(a, b string) float64 { return New(a).Similarity(New(b)) }

// key normalises a title for duplicate detection: letters and digits
// only, lowercased, full-width forms folded to ASCII.
func key(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFEE0
		case r == 0x3000:
			r = ' '
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// negations are words that turn a rule around; the index drops several
// of them as stop words.
var negations = []string{"not", "no", "never", "don't", "dont", "doesn't", "avoid", "without", "stop", "n't"}

// cjkNegations are Chinese characters and words that negate.
var cjkNegations = []string{"不", "别", "勿", "禁止", "没", "无需", "避免", "非"}

// negated reports whether a title contains a negation.
func negated(s string) bool {
	lower := strings.ToLower(s)
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }) {
		w = strings.ReplaceAll(w, "’", "'")
		for _, n := range negations {
			if w == n || (n == "n't" && strings.HasSuffix(w, n)) {
				return true
			}
		}
	}
	for _, n := range cjkNegations {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// seqJaccard is |LCS(a, b)| / (|a| + |b| - |LCS(a, b)|): the Jaccard index
// of two sequences, where the shared part must keep its order.
func seqJaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	lcs := prev[len(b)]
	return float64(lcs) / float64(len(a)+len(b)-lcs)
}

// Parts are what New computed of a title, for a cache that stores the
// analysis (the header cache) rather than repeat it at every load.
func (a Title) Parts() (key string, negated bool, terms []string) { return a.key, a.neg, a.toks }

// FromParts is the Title whose Parts are these, as a cache read them.
func FromParts(key string, negated bool, terms []string) Title {
	return Title{key: key, neg: negated, toks: terms}
}
