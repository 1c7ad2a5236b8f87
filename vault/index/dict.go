package index

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memvault/memvault/vault/fault"
)

// defaultTerms is the curated bilingual dictionary; terms.txt documents
// its format in its header.
//
//go:embed terms.txt
var defaultTerms string

// unit is one step of a term or query: a Latin word (stemmed, stop words
// kept) or a whole CJK run. Exactly one of word and cjk is set; start and
// end are its byte offsets in the query (zero in dictionary terms).
type unit struct {
	word       string
	cjk        string
	start, end int
}

// dictTerm is one spelling in the dictionary.
type dictTerm struct {
	text  string   // as written, for diagnostics
	units []unit   // what a query must contain
	toks  []string // index terms a query gains when this term is an expansion target
}

// dictionary maps query spellings to related index terms.
type dictionary struct {
	terms  []dictTerm
	expand [][]int32 // term -> terms of its synonym groups
	oneWay [][]int32 // term -> terms it expands to one way (paraphrases)
	byText map[string]int32

	latinFirst map[string][]int32 // first word -> all-Latin terms
	cjkFirst   map[string][]int32 // first two runes (one for one-rune terms) -> all-CJK terms
	mixed      []int32            // terms mixing Latin and CJK, checked everywhere
}

// embeddedDictionary parses terms.txt once per process: parsing took ~8 ms,
// paid by every New (each reload, each as-of snapshot, each cross-vault
// ranking pool). A dictionary is never modified after parsing, so every
// index can share it.
var embeddedDictionary = sync.OnceValues(func() (*dictionary, error) { return parseDictionary(defaultTerms) })

// DictError reports a malformed dictionary line.
type DictError struct {
	Line int
	Msg  string
}

func (e *DictError) Error() string { return fmt.Sprintf("terms line %d: %s", e.Line, e.Msg) }

// ErrorKind says the dictionary is memvault's own, not the caller's.
func (e *DictError) ErrorKind() string { return string(fault.Internal) }

// parseDictionary reads the terms.txt format:
//
//	# comment
//	部署 | 发布 | 上线 | deploy | release     (a group: every term expands to the others)
//	为什么 | 为何 -> 原因 | 理由 | reason      (one way: left terms expand to right terms)
func parseDictionary(src string) (*dictionary, error) {
	d := &dictionary{
		byText:     map[string]int32{},
		latinFirst: map[string][]int32{},
		cjkFirst:   map[string][]int32{},
	}
	var a analyzer
	a.keepStops = true
	for n, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lhs, rhs, oneWay := strings.Cut(line, "->")
		from, err := d.addTerms(&a, lhs, n+1)
		if err != nil {
			return nil, err
		}
		to := from
		if oneWay {
			if to, err = d.addTerms(&a, rhs, n+1); err != nil {
				return nil, err
			}
		}
		if !oneWay && len(from) < 2 {
			return nil, &DictError{n + 1, "a group needs at least two terms"}
		}
		for _, f := range from {
			for _, t := range to {
				switch {
				case f == t:
				case oneWay && !contains(d.oneWay[f], t):
					d.oneWay[f] = append(d.oneWay[f], t)
				case !oneWay && !contains(d.expand[f], t):
					d.expand[f] = append(d.expand[f], t)
				}
			}
		}
	}
	return d, nil
}

func contains(xs []int32, x int32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// addTerms registers the '|'-separated terms of one side of a line.
func (d *dictionary) addTerms(a *analyzer, side string, line int) ([]int32, error) {
	var ids []int32
	for _, raw := range strings.Split(side, "|") {
		text := strings.ToLower(strings.TrimSpace(raw))
		if text == "" {
			return nil, &DictError{line, "empty term"}
		}
		if id, ok := d.byText[text]; ok {
			ids = append(ids, id)
			continue
		}
		t := dictTerm{text: text}
		a.runs = true
		a.analyze(text, func(tk *token) {
			switch tk.kind {
			case kindWord, kindPart:
				t.units = append(t.units, unit{word: string(tk.text)})
			case kindCJKRun:
				t.units = append(t.units, unit{cjk: string(tk.text)})
				return
			}
			if !tk.stop {
				t.toks = appendUnique(t.toks, string(tk.text))
			}
		})
		if len(t.units) == 0 {
			return nil, &DictError{line, fmt.Sprintf("term %q has no letters, digits or CJK text", raw)}
		}
		id := int32(len(d.terms))
		d.terms = append(d.terms, t)
		d.expand = append(d.expand, nil)
		d.oneWay = append(d.oneWay, nil)
		d.byText[text] = id
		allLatin := true
		for _, u := range t.units {
			allLatin = allLatin && u.cjk == ""
		}
		switch {
		case allLatin:
			d.latinFirst[t.units[0].word] = append(d.latinFirst[t.units[0].word], id)
		case len(t.units) == 1:
			k := cjkKey(t.units[0].cjk)
			d.cjkFirst[k] = append(d.cjkFirst[k], id)
		default:
			d.mixed = append(d.mixed, id)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// cjkKey is the lookup key of a CJK string: its first two runes, or its
// only rune.
func cjkKey(s string) string {
	_, n1 := utf8.DecodeRuneInString(s)
	if n1 >= len(s) {
		return s
	}
	_, n2 := utf8.DecodeRuneInString(s[n1:])
	return s[:n1+n2]
}

func appendUnique(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// match calls fn for every dictionary term that occurs in a query given as
// its unit sequence, with the byte range of the query it covers. A term may
// be reported more than once.
func (d *dictionary) match(units []unit, fn func(term int32, start, end int)) {
	for p, u := range units {
		if u.cjk == "" {
			for _, id := range d.latinFirst[u.word] {
				if d.matchAt(id, units, p) {
					fn(id, u.start, units[p+len(d.terms[id].units)-1].end)
				}
			}
		} else {
			d.matchCJK(u.cjk, func(id int32, s, e int) { fn(id, u.start+s, u.start+e) })
		}
		for _, id := range d.mixed {
			if d.matchAt(id, units, p) {
				fn(id, u.start, units[p+len(d.terms[id].units)-1].end)
			}
		}
	}
}

// matchCJK reports the all-CJK terms that occur in run.
func (d *dictionary) matchCJK(run string, fn func(term int32, start, end int)) {
	matchCJKRun(run, d.cjkAt, fn)
}

// cjkAt appends the all-CJK terms that begin rest, which starts at byte p
// of its run: those of one rune, then those whose first two runes rest
// begins with, in the order they were added.
func (d *dictionary) cjkAt(dst []cjkHit, rest string, p int) []cjkHit {
	_, n1 := utf8.DecodeRuneInString(rest)
	for _, id := range d.cjkFirst[rest[:n1]] {
		dst = append(dst, cjkHit{id, p, p + n1})
	}
	if n1 < len(rest) {
		_, n2 := utf8.DecodeRuneInString(rest[n1:])
		for _, id := range d.cjkFirst[rest[:n1+n2]] {
			if t := d.terms[id].units[0].cjk; strings.HasPrefix(rest, t) {
				dst = append(dst, cjkHit{id, p, p + len(t)})
			}
		}
	}
	return dst
}

// cjkHit is a term found in a CJK run, with its byte range in the run.
type cjkHit struct {
	id         int32
	start, end int
}

// matchCJKRun reports the terms that occur in run, where at appends the
// terms that begin at each rune. Chinese has no spaces, so a short term
// can straddle two words ("天天" in "明天天气"): a match that crosses a
// longer (or, at equal length, earlier) match is dropped; matches nested
// inside one are kept.
func matchCJKRun(run string, at func(dst []cjkHit, rest string, p int) []cjkHit, fn func(term int32, start, end int)) {
	var found []cjkHit
	for p := 0; p < len(run); {
		found = at(found, run[p:], p)
		_, n1 := utf8.DecodeRuneInString(run[p:])
		p += n1
	}
	slices.SortStableFunc(found, func(x, y cjkHit) int {
		if lx, ly := x.end-x.start, y.end-y.start; lx != ly {
			return ly - lx
		}
		return x.start - y.start
	})
	// Longest first, each kept unless it crosses one kept already. A kept
	// match that crosses c starts less than the longest length before c
	// or inside it: only those starts are looked at, so a long run costs
	// linear time, not one comparison per pair.
	longest := 0
	if len(found) > 0 {
		longest = found[0].end - found[0].start
	}
	keptAt := map[int][]int{} // start -> ends of the kept matches there
	for _, c := range found {
		crosses := false
		for p := max(0, c.start-longest+1); p < c.end && !crosses; p++ {
			for _, kend := range keptAt[p] {
				if c.start < p && c.end > p && c.end < kend ||
					c.start > p && c.start < kend && c.end > kend {
					crosses = true
					break
				}
			}
		}
		if !crosses {
			keptAt[c.start] = append(keptAt[c.start], c.end)
			fn(c.id, c.start, c.end)
		}
	}
}

// matchAt reports whether term id occurs in units starting at p. Words
// must be equal; a CJK part must end the query run it meets when it starts
// the term, begin it when it ends the term, and equal it in between.
func (d *dictionary) matchAt(id int32, units []unit, p int) bool {
	tu := d.terms[id].units
	if len(tu) > len(units)-p {
		return false
	}
	last := len(tu) - 1
	for i, x := range tu {
		y := units[p+i]
		switch {
		case x.cjk == "":
			if y.word != x.word {
				return false
			}
		case y.cjk == "":
			return false
		case i == 0 && last > 0:
			if !strings.HasSuffix(y.cjk, x.cjk) {
				return false
			}
		case i == last && last > 0:
			if !strings.HasPrefix(y.cjk, x.cjk) {
				return false
			}
		case y.cjk != x.cjk:
			return false
		}
	}
	return true
}
