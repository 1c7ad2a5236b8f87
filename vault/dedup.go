package vault

import (
	"slices"
	"strings"
	"unicode"

	"github.com/memvault/memvault/vault/index"
)

// dedupThreshold is the title similarity from which Remember takes a new
// memory for one that exists. Similarity is the Jaccard index of the two
// titles' index-term sequences (longest common subsequence over the
// union), so word order counts. At 0.85 titles of up to six terms must
// have the same terms in the same order; longer ones may differ by one.
// "Use pytest for tests" and "Use pytest for integration tests" (3 of 4
// terms, 0.75) stay two memories on purpose: the second narrows the
// first, and refusing it would lose the narrower rule.
const dedupThreshold = 0.85

// dedupCandidates is how many recall hits are compared with a new title.
const dedupCandidates = 10

// nearDuplicate finds an active memory of the given layer whose title is
// near-identical to title (see titleSig.same), leaving out the ids in exempt:
// models often remember the same thing twice, and one memory that evolves
// is better than two that drift apart. The rule is one; where the
// candidates come from is the vault's mode: the best recall hits for the
// title, or, in a headers-only vault, which has no index to recall with,
// every memory of the layer (which finds whatever the recall finds among
// its hits, and also a same-titled memory ranked below them).
func (v *Vault) nearDuplicate(title string, layer Layer, exempt []string) *Memory {
	if layer == 0 {
		layer = Project
	}
	want := newTitleSig(title)
	same := func(m *Memory, sig titleSig) bool {
		return !slices.Contains(exempt, m.ID) && want.same(sig)
	}
	if v.headersOnly {
		return v.sameTitleScan(layer, same)
	}
	for _, r := range v.Recall(Query{Text: title, Limit: dedupCandidates + len(exempt), Layers: []Layer{layer}}) {
		if r.State == string(StatusActive) && same(r.Memory, newTitleSig(r.Memory.Title)) {
			return r.Memory
		}
	}
	return nil
}

// sameTitleScan returns a copy of the first active memory of layer that
// same accepts, every memory of the layer a candidate, with the title
// signatures the headers-only load computed.
func (v *Vault) sameTitleScan(layer Layer, same func(*Memory, titleSig) bool) *Memory {
	at := v.now()
	v.mu.RLock()
	defer v.mu.RUnlock()
	succ := v.successors()
	for id, m := range v.entries {
		if m == nil || m.Layer != layer {
			continue
		}
		if v.stateLocked(index.DocID(id), m, at, succ) != string(StatusActive) {
			continue
		}
		var sig titleSig
		if sigs := v.load.titleSigs; id < len(sigs) && sigs[id].mem == m {
			sig = sigs[id].sig
		} else {
			sig = newTitleSig(m.Title) // written since the load
		}
		if same(m, sig) {
			return m.clone()
		}
	}
	return nil
}

// titleSig is what sameTitle compares of a title, computed once.
type titleSig struct {
	key  string   // titleKey
	neg  bool     // negated
	toks []string // index.Tokenize
}

func newTitleSig(title string) titleSig {
	return titleSig{key: titleKey(title), neg: negated(title), toks: index.Tokenize(title)}
}

// same is sameTitle on signatures.
func (a titleSig) same(b titleSig) bool {
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
	if float64(min(la, lb)) < dedupThreshold*float64(max(la, lb)) {
		return false
	}
	return seqJaccard(a.toks, b.toks) >= dedupThreshold
}

// titleKey normalises a title for duplicate detection: letters and digits
// only, lowercased, full-width forms folded to ASCII.
func titleKey(s string) string {
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

// TitleSimilarity says how alike two titles are, as Remember judges
// near-duplicates (it refuses a new memory from DedupThreshold): 1 when
// they are equal once case, width, punctuation and spacing are ignored,
// 0 when one is negated and the other not ("Use tabs", "Do not use tabs")
// or either is empty, else the Jaccard index of their index-term
// sequences, where the shared terms must keep their order.
func TitleSimilarity(a, b string) float64 { return NewTitle(a).Similarity(NewTitle(b)) }

// Title is a title analysed once for TitleSimilarity, to compare it with
// many others.
type Title struct{ sig titleSig }

// NewTitle analyses a title.
func NewTitle(s string) Title { return Title{newTitleSig(s)} }

// Similarity is TitleSimilarity of the two titles.
func (t Title) Similarity(o Title) float64 {
	sa, sb := t.sig, o.sig
	switch {
	case sa.key == "" || sb.key == "":
		return 0
	case sa.key == sb.key:
		return 1
	case sa.neg != sb.neg:
		return 0
	}
	return seqJaccard(sa.toks, sb.toks)
}

// DedupThreshold is the TitleSimilarity from which Remember takes a new
// memory for one that exists.
const DedupThreshold = dedupThreshold
