package secret

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// AllowMarker on a line suppresses the findings on that line and on the
// line after it (so that it can sit in an HTML comment above a key block).
const AllowMarker = "memvault:allow-secret"

// Finding is one secret found by [Scan]. It carries the place and the rule,
// never the secret: it is safe to print, log and send to a client.
type Finding struct {
	// Rule is the id of the rule that matched, such as "aws-access-key-id".
	Rule string
	// Line is the 1-based line of the secret's first byte.
	Line int
	// Column is the 1-based column of the secret's first byte, counted in
	// characters (Unicode code points), not bytes: "密码：AKIA..." reports
	// the key at column 4, as an editor shows it.
	Column int
	// Start and End are the byte offsets of the matched secret in the
	// scanned data (data[Start:End] is what [Redact] replaces).
	Start, End int
}

// String returns "rule at line L, column C".
func (f Finding) String() string {
	return fmt.Sprintf("%s at line %d, column %d", f.Rule, f.Line, f.Column)
}

// Rule describes one detection rule, for documentation and listings.
type Rule struct {
	ID          string
	Description string
}

// Rules lists the detection rules in table order.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = Rule{ID: r.id, Description: r.description}
	}
	return out
}

// rule is one row of the rule table in rules.go.
type rule struct {
	id          string
	description string
	// keywords gate the regexp: it runs only when one of them occurs in the
	// input, compared ASCII-case-insensitively. Each is at least 2 bytes and
	// written in lower case.
	keywords []string
	re       *lazyRegexp
	// group is the submatch holding the secret; 0 means the whole match.
	group int
	// minEntropy, when > 0, is the Shannon entropy in bits per byte the
	// secret must reach.
	minEntropy float64
	// valid, when set, vets a match: data is the whole input and
	// data[start:end] the secret. It rejects placeholders and examples.
	valid func(data []byte, start, end int) bool
	// extend, when set, returns the end of the span to redact.
	extend func(data []byte, end int) int
	// anchored rules have a regexp starting with ^ that is tried at each
	// keyword occurrence; the others are searched on each line holding a
	// keyword. Either way no regexp runs over text without its keywords.
	anchored bool
	// boundary asks for a non-word byte (or the start) before the
	// keyword. A match glued to a word ("xghp_…", "_AKIA…": a token pasted
	// after a letter or an underscore) is then taken only when glued
	// accepts it, which asks for evidence that the match is random
	// material; a nil glued refuses it.
	boundary bool
	glued    func(match []byte) bool
	// token rules match within one token (a run of bytes without ASCII
	// space or quote characters, see isTokenEnd) and only when need occurs
	// in it after the keyword: the regexp runs on that token instead of
	// the whole line. A long prose line holding a plain link then costs a
	// byte scan, not a backtracking search.
	token bool
	need  byte
	// generic rules give way to a specific rule matching the same bytes.
	generic bool
	// multiline rules look past the keyword's line (a key block's body,
	// a service account's private_key field).
	multiline bool
	// positives must be found by this rule, negatives by no rule; a test
	// runs them.
	positives, negatives []string
}

// Scan returns the secrets in data, ordered by position. It never returns
// the secret bytes themselves; see [Finding].
//
// It searches data as it is and, when data holds anything to normalise
// (invisible characters, compatibility and look-alike letters, string
// escapes, HTML entities: see normalize), the normalised text as well,
// reporting what either search finds at its place in data. So normalising
// can only add findings, never hide one the plain search makes.
func Scan(data []byte) []Finding {
	hits, present, strange := keywords.find(data)
	found := scan(data, hits, present, nil)
	if strange && mayReveal(data, hits, present) {
		n, _ := normalize(data, false)
		nhits, npresent, _ := keywords.find(n.text)
		if more := scan(n.text, nhits, npresent, &n); len(more) > 0 {
			// Rare: only now is the map back to data worth building.
			n, _ = normalize(data, true)
			for _, f := range more {
				f.Start, f.End = n.origin(f.Start, f.End)
				found = append(found, f)
			}
		}
	}
	if len(found) == 0 {
		return nil
	}
	found = dropOverlaps(found)
	return place(data, found)
}

// scan runs the rules over data, given its keyword hits and the keywords
// present, and returns their matches, unordered, overlapping, without line
// and column. With norm, data is norm.text and only its changed lines are
// searched (see normalized.changed): the others are lines of the input,
// searched already. Rules that look past a line (multiline) search
// everywhere.
func scan(data []byte, allHits []hit, allPresent uint64, norm *normalized) []Finding {
	if allPresent == 0 {
		return nil
	}
	freshHits, freshPresent := allHits, allPresent
	if norm != nil {
		freshHits, freshPresent = changedLineHits(data, norm, allHits)
	}
	var found []Finding
	add := func(r *compiledRule, base int, loc []int, glued bool) {
		if loc == nil {
			return
		}
		start, end := loc[2*r.group], loc[2*r.group+1]
		if start < 0 {
			return
		}
		start, end = base+start, base+end
		if glued && !r.glued(data[start:end]) {
			return
		}
		if !r.accept(data, start, end) {
			return
		}
		if r.extend != nil {
			end = r.extend(data, end)
		}
		found = append(found, Finding{Rule: r.id, Start: start, End: end})
	}
	for i := range rules {
		r := &rules[i]
		hits, present := freshHits, freshPresent
		if r.multiline {
			hits, present = allHits, allPresent
		}
		if r.keywordMask&present == 0 {
			continue
		}
		if r.token {
			r.tokenMatches(data, hits, func(base int, loc []int) { add(r, base, loc, false) })
			continue
		}
		lineEnd := -1   // end of the last line searched, in line mode
		skipUntil := -1 // end of the last anchored match: hits inside it are done
		for _, h := range hits {
			if r.keywordMask&(1<<h.k) == 0 {
				continue
			}
			if r.anchored {
				// The regexp starts at the keyword: try it there only.
				glued := r.boundary && h.pos > 0 && isWordByte(data[h.pos-1])
				if h.pos < skipUntil || glued && r.glued == nil {
					continue
				}
				end := min(len(data), h.pos+anchoredWindow)
				if j := bytes.IndexByte(data[h.pos:end], '\n'); j >= 0 {
					end = h.pos + j
				}
				loc := r.re.FindSubmatchIndex(data[h.pos:end])
				if loc != nil {
					// A keyword inside a match (accepted or not) starts
					// no new one: this keeps repeated keywords linear.
					skipUntil = h.pos + loc[1]
				}
				add(r, h.pos, loc, glued)
				continue
			}
			// Line mode: search each line holding a keyword once.
			if h.pos < lineEnd {
				continue
			}
			ls := bytes.LastIndexByte(data[:h.pos], '\n') + 1
			lineEnd = len(data)
			if j := bytes.IndexByte(data[h.pos:], '\n'); j >= 0 {
				lineEnd = h.pos + j
			}
			for _, loc := range r.re.FindAllSubmatchIndex(data[ls:lineEnd], -1) {
				add(r, ls, loc, false)
			}
		}
	}
	return found
}

// changedLineHits keeps the hits on lines of norm.text that differ from
// the input, and returns the keywords they hold.
func changedLineHits(data []byte, norm *normalized, hits []hit) ([]hit, uint64) {
	var out []hit
	var present uint64
	ls, le, changed := -1, -1, false // the last line looked at
	for _, h := range hits {
		if h.pos < ls || h.pos > le {
			ls = bytes.LastIndexByte(data[:h.pos], '\n') + 1
			le = len(data)
			if j := bytes.IndexByte(data[h.pos:], '\n'); j >= 0 {
				le = h.pos + j
			}
			changed = norm.lineChanged(ls, le)
		}
		if changed {
			out = append(out, h)
			present |= 1 << h.k
		}
	}
	return out, present
}

// accept applies the rule's entropy threshold and validator and the checks
// common to every rule.
func (r *rule) accept(data []byte, start, end int) bool {
	s := data[start:end]
	if isDocumentedExample(s) {
		return false
	}
	if r.minEntropy > 0 && entropy(s) < r.minEntropy {
		return false
	}
	return r.valid == nil || r.valid(data, start, end)
}

// anchoredWindow bounds the text an anchored regexp sees (besides the end
// of the line); no secret rule matches more than this.
const anchoredWindow = 1024

// tokenMatches calls fn with each match of r's regexp (loc relative to
// base) in the tokens of data that hold one of r's keywords (hits) with
// r.need after it, searching each such token once. See rule.token.
func (r *compiledRule) tokenMatches(data []byte, hits []hit, fn func(base int, loc []int)) {
	tokenEnd := -1 // end of the last token searched
	for _, h := range hits {
		if r.keywordMask&(1<<h.k) == 0 || h.pos < tokenEnd {
			continue
		}
		ts, te := tokenAround(data, h.pos)
		tokenEnd = te
		if bytes.IndexByte(data[h.pos:te], r.need) < 0 {
			continue
		}
		for _, loc := range r.re.FindAllSubmatchIndex(data[ts:te], -1) {
			fn(ts, loc)
		}
	}
}

// tokenAround returns the token holding data[pos]: the bytes around it up
// to the nearest byte for which isTokenEnd holds, or the input's ends.
func tokenAround(data []byte, pos int) (start, end int) {
	start, end = pos, pos
	for start > 0 && !isTokenEnd(data[start-1]) {
		start--
	}
	for end < len(data) && !isTokenEnd(data[end]) {
		end++
	}
	return start, end
}

// isTokenEnd reports the bytes no token-mode match may contain: the
// regexp \s class (tab, newline, form feed, carriage return, space),
// quotes, angle brackets and the backquote, which end a URL in prose,
// code and markup.
func isTokenEnd(c byte) bool {
	switch c {
	case '\t', '\n', '\f', '\r', ' ', '"', '\'', '<', '>', '`':
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// dropOverlaps removes a generic finding whose span overlaps a specific
// one, and a finding overlapping an earlier one of the same rule. It runs
// in O(n log n): adversarial input can yield thousands of findings.
func dropOverlaps(found []Finding) []Finding {
	slices.SortStableFunc(found, func(a, b Finding) int { return a.Start - b.Start })
	// The union of the specific findings' spans, sorted and disjoint.
	var spans [][2]int
	for _, f := range found {
		if isGeneric(f.Rule) {
			continue
		}
		if n := len(spans); n > 0 && f.Start < spans[n-1][1] {
			spans[n-1][1] = max(spans[n-1][1], f.End)
		} else {
			spans = append(spans, [2]int{f.Start, f.End})
		}
	}
	lastEnd := map[string]int{}
	out := found[:0]
	for _, f := range found {
		if end, ok := lastEnd[f.Rule]; ok && f.Start < end {
			continue
		}
		if isGeneric(f.Rule) {
			k, _ := slices.BinarySearchFunc(spans, f.Start, func(s [2]int, start int) int {
				if s[1] <= start {
					return -1
				}
				return 1
			})
			if k < len(spans) && spans[k][0] < f.End {
				continue
			}
		}
		lastEnd[f.Rule] = f.End
		out = append(out, f)
	}
	return out
}

func isGeneric(id string) bool {
	r := ruleByID(id)
	return r != nil && r.generic
}

func ruleByID(id string) *rule {
	for i := range rules {
		if rules[i].id == id {
			return &rules[i].rule
		}
	}
	return nil
}

// place fills Line and Column and drops findings the allow marker covers.
func place(data []byte, found []Finding) []Finding {
	var allowed map[int]bool
	if bytes.Contains(data, []byte(AllowMarker)) {
		allowed = map[int]bool{}
		line := 1
		for rest := data; len(rest) > 0; line++ {
			l, after, _ := bytes.Cut(rest, []byte{'\n'})
			if bytes.Contains(l, []byte(AllowMarker)) {
				allowed[line], allowed[line+1] = true, true
			}
			rest = after
		}
	}
	out := found[:0]
	// col is the column at colPos; both advance with the findings, so
	// many findings on one long line cost one pass, not one each.
	line, pos, col, colPos := 1, 0, 1, 0
	for _, f := range found { // sorted by Start
		for pos < f.Start {
			if data[pos] == '\n' {
				line++
				col, colPos = 1, pos+1
			}
			pos++
		}
		col += utf8.RuneCount(data[colPos:f.Start])
		colPos = f.Start
		if allowed[line] {
			continue
		}
		f.Line = line
		f.Column = col
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Redact returns a copy of data with every finding's bytes replaced by
// "[REDACTED:rule]". Text the allow marker covers is kept.
//
// It scans again until nothing is found: a secret that runs into the next
// one ("sk_live_A…sk_live_B…") has no word boundary where it ends, so
// only the second matches until it is replaced, and then the first does.
// Every pass replaces text of the input, so there are at most len(data)
// passes; one or two in practice.
func Redact(data []byte) []byte {
	out := bytes.Clone(data)
	for pass := 0; pass <= len(data); pass++ {
		found := Scan(out)
		if len(found) == 0 {
			break
		}
		out = redact(out, found)
	}
	return out
}

// redact replaces found, sorted by Start, in data.
func redact(data []byte, found []Finding) []byte {
	out := make([]byte, 0, len(data))
	last := 0
	for _, f := range found {
		if f.Start < last {
			continue // overlaps a span already replaced
		}
		out = append(out, data[last:f.Start]...)
		out = append(out, "[REDACTED:"+f.Rule+"]"...)
		last = f.End
	}
	return append(out, data[last:]...)
}

// entropy returns the Shannon entropy of s in bits per byte.
func entropy(s []byte) float64 {
	if len(s) == 0 {
		return 0
	}
	var counts [256]int
	for _, c := range s {
		counts[c]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
