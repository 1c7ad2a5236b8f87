package index

import (
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// cedictTab is the general dictionary: cedict.txt.gz, a pruned
// Chinese-to-English word list derived from CC-CEDICT (CC BY-SA 4.0: see
// CEDICT-LICENSE.txt; the list is written by gen/cedict), compiled by the
// test TestCedictTableIsCurrent (compileCedictTab) into tables sorted by
// lookup key. Lookups binary-search them in place, so a
// process pays nothing to load it: parsing the list took about 50 ms of
// CPU, paid on the first query of every process.
//
//go:generate go test -run ^TestCedictTableIsCurrent$ . -update
//go:embed cedict.tab
var cedictTab string

// generalDictionary opens cedict.tab once per process: a check of its
// framing, some tens of microseconds.
var generalDictionary = sync.OnceValue(func() *cedict {
	c, err := openCedict(cedictTab)
	if err != nil {
		// The table is embedded and checked by tests.
		panic("index: embedded cedict.tab: " + err.Error())
	}
	return c
})

// generalLexicon is a general dictionary as the query planner reads it:
// the terms that occur in a query, their texts and index terms, and where
// they lead. Chinese headwords lead to their English senses; one-word
// English senses lead back to the headwords that have them.
type generalLexicon interface {
	// match reports the terms that occur in a query given as its units,
	// as dictionary.match does.
	match(units []unit, fn func(term int32, start, end int))
	// text is the term as written.
	text(term int32) string
	// toks are the index terms a query gains when term is a target.
	toks(term int32) []string
	// senses are a headword's senses, in the list's order.
	senses(term int32) []int32
	// headwords are the headwords of a one-word sense, in the list's
	// order.
	headwords(term int32) []int32
}

// cedictMagic begins a compiled table; its version changes with the
// layout.
const cedictMagic = "memvault cedict table 1\n"

// Sense record flags (see compileCedictTab).
const (
	senseMulti   = 1 << 0 // several units: a stop-word mask follows the units
	senseOwnUnit = 1 << 1 // the units are stored; otherwise they are a prefix of the text
)

// recBlock is how many records share one stored offset.
const recBlock = 16

// cedict is a compiled general dictionary read in place (see compileCedictTab
// for the layout). Term ids 0 to headTab.n-1 are headwords, the next
// senseTab.n are senses.
type cedict struct {
	headTab, senseTab recTable
}

// recTable is a run of variable-length records: lens holds each record's
// length (uint16), base the offset of every recBlock-th record (uint32),
// both little-endian.
type recTable struct {
	n          int
	lens, base string
	data       string
}

func le16(s string, i int) int { return int(s[2*i]) | int(s[2*i+1])<<8 }

func le32(s string, i int) int {
	s = s[4*i : 4*i+4]
	return int(s[0]) | int(s[1])<<8 | int(s[2])<<16 | int(s[3])<<24
}

// openCedict reads a compiled table's framing; it checks that every record
// lies in the data, not what the records say (the table is generated and
// embedded, and tests compare every lookup with the word list's).
func openCedict(b string) (*cedict, error) {
	rest, ok := strings.CutPrefix(b, cedictMagic)
	if !ok {
		return nil, errors.New("not a compiled cedict table")
	}
	var c cedict
	var err error
	if rest, err = c.headTab.open(rest); err != nil {
		return nil, fmt.Errorf("headwords: %w", err)
	}
	if rest, err = c.senseTab.open(rest); err != nil {
		return nil, fmt.Errorf("senses: %w", err)
	}
	if rest != "" {
		return nil, fmt.Errorf("%d bytes after the tables", len(rest))
	}
	return &c, nil
}

// open reads a table from the front of b: n and the data's size (uint32
// each), lens, base, data. It returns what follows.
func (t *recTable) open(b string) (string, error) {
	if len(b) < 8 {
		return "", errors.New("truncated")
	}
	n, size := le32(b, 0), le32(b, 1)
	b = b[8:]
	nb := (n + recBlock - 1) / recBlock
	if n > 1<<24 || len(b) < 2*n+4*nb+size {
		return "", errors.New("truncated")
	}
	t.n, t.lens, t.base = n, b[:2*n], b[2*n:2*n+4*nb]
	t.data, b = b[2*n+4*nb:2*n+4*nb+size], b[2*n+4*nb+size:]
	off := 0
	for i := range n {
		if i%recBlock == 0 && le32(t.base, i/recBlock) != off {
			return "", fmt.Errorf("record %d: offset %d, want %d", i, le32(t.base, i/recBlock), off)
		}
		off += le16(t.lens, i)
	}
	if off != size {
		return "", fmt.Errorf("records end at %d, data at %d", off, size)
	}
	return b, nil
}

// offset returns where record i begins in data.
func (t *recTable) offset(i int) int {
	off := le32(t.base, i/recBlock)
	for j := i &^ (recBlock - 1); j < i; j++ {
		off += le16(t.lens, j)
	}
	return off
}

func (t *recTable) rec(i int) string {
	off := t.offset(i)
	return t.data[off : off+le16(t.lens, i)]
}

// seek returns the first record of which before is false, and its offset,
// in a table where before is true of the records up to some point and
// false from there on: a binary search over the blocks' first records,
// which need no summing, then a scan of one block.
func (t *recTable) seek(before func(rec string) bool) (i, off int) {
	nb := (t.n + recBlock - 1) / recBlock
	b := sort.Search(nb, func(b int) bool {
		off := le32(t.base, b)
		return !before(t.data[off : off+le16(t.lens, b*recBlock)])
	})
	if b == 0 {
		return 0, 0
	}
	i, off = (b-1)*recBlock, le32(t.base, b-1)
	for end := min(b*recBlock, t.n); i < end; i++ {
		l := le16(t.lens, i)
		if !before(t.data[off : off+l]) {
			break
		}
		off += l
	}
	return i, off
}

// A headword record is its text's length (one byte), its text, then its
// senses' numbers (uint16 each).
func headText(r string) string { return r[1 : 1+int(r[0])] }

// A sense record is its text's length (one byte), its text, its flags
// (one byte), the length of its units (one byte), its units joined by
// spaces if senseOwnUnit, a stop-word mask (bit i: unit i) if senseMulti,
// then its headwords' numbers (uint16 each).
type senseRec struct {
	text  string
	units string // joined by spaces; the first is the key
	stops byte   // bit i set: unit i is a stop word (multi-unit senses only)
	heads string
}

func readSense(r string) senseRec {
	s := senseRec{text: r[1 : 1+int(r[0])]}
	r = r[1+int(r[0]):]
	flags, ul := r[0], int(r[1])
	r = r[2:]
	if flags&senseOwnUnit != 0 {
		s.units, r = r[:ul], r[ul:]
	} else {
		s.units = s.text[:ul]
	}
	if flags&senseMulti != 0 {
		s.stops, r = r[0], r[1:]
	}
	s.heads = r
	return s
}

// key is the sense's first unit, which lookups search by.
func (s senseRec) key() string {
	k, _, _ := strings.Cut(s.units, " ")
	return k
}

// toks returns the units that are not stop words, each once.
func (s senseRec) toks() []string {
	toks := make([]string, 0, strings.Count(s.units, " ")+1)
	i := 0
	for u := range strings.SplitSeq(s.units, " ") {
		if s.stops&(1<<i) == 0 {
			toks = appendUnique(toks, u)
		}
		i++
	}
	return toks
}

// senseKey is readSense(r).key(), without reading the rest.
func senseKey(r string) string {
	tl := int(r[0])
	u := r[1 : 1+tl]
	flags, ul := r[1+tl], int(r[2+tl])
	if flags&senseOwnUnit != 0 {
		u = r[3+tl:]
	}
	u = u[:ul]
	if flags&senseMulti != 0 {
		u, _, _ = strings.Cut(u, " ")
	}
	return u
}

func (c *cedict) text(id int32) string {
	if int(id) < c.headTab.n {
		return headText(c.headTab.rec(int(id)))
	}
	return readSense(c.senseTab.rec(int(id) - c.headTab.n)).text
}

func (c *cedict) toks(id int32) []string {
	if int(id) < c.headTab.n {
		return bigrams(headText(c.headTab.rec(int(id))))
	}
	return readSense(c.senseTab.rec(int(id) - c.headTab.n)).toks()
}

func (c *cedict) senses(id int32) []int32 {
	if int(id) >= c.headTab.n {
		return nil
	}
	r := c.headTab.rec(int(id))
	return readIDs(r[1+int(r[0]):], c.headTab.n)
}

func (c *cedict) headwords(id int32) []int32 {
	if int(id) < c.headTab.n {
		return nil
	}
	return readIDs(readSense(c.senseTab.rec(int(id)-c.headTab.n)).heads, 0)
}

// readIDs decodes uint16 record numbers into term ids from base on.
func readIDs(b string, base int) []int32 {
	if len(b) == 0 {
		return nil
	}
	ids := make([]int32, len(b)/2)
	for i := range ids {
		ids[i] = int32(base + le16(b, i))
	}
	return ids
}

// match reports the terms that occur in units, as dictionary.match does
// for the dictionary the table was compiled from: senses whose first unit
// is a query word, in the list's order, and headwords in CJK runs.
func (c *cedict) match(units []unit, fn func(term int32, start, end int)) {
	for p, u := range units {
		if u.cjk != "" {
			matchCJKRun(u.cjk, c.cjkAt, func(id int32, s, e int) { fn(id, u.start+s, u.start+e) })
			continue
		}
		i, off := c.senseTab.seek(func(r string) bool { return senseKey(r) < u.word })
		for ; i < c.senseTab.n; i++ {
			l := le16(c.senseTab.lens, i)
			s := readSense(c.senseTab.data[off : off+l])
			off += l
			if s.key() != u.word {
				break
			}
			if n := matchWords(s.units, units, p); n > 0 {
				fn(int32(c.headTab.n+i), u.start, units[p+n-1].end)
			}
		}
	}
}

// matchWords returns how many units an all-Latin term (its units joined by
// spaces) has if it occurs in units at p, as dictionary.matchAt decides,
// or 0.
func matchWords(words string, units []unit, p int) int {
	n := 0
	for w := range strings.SplitSeq(words, " ") {
		if p+n >= len(units) || units[p+n].cjk != "" || units[p+n].word != w {
			return 0
		}
		n++
	}
	return n
}

// cjkAt appends the headwords that begin rest, as dictionary.cjkAt does:
// those whose first two runes rest begins with, in the list's order
// (headwords have two runes at least).
func (c *cedict) cjkAt(dst []cjkHit, rest string, p int) []cjkHit {
	_, n1 := utf8.DecodeRuneInString(rest)
	if n1 >= len(rest) {
		return dst
	}
	_, n2 := utf8.DecodeRuneInString(rest[n1:])
	// Headwords are sorted by their first two runes, k. Comparing
	// their first len(k) bytes with k orders them the same way: UTF-8
	// orders bytes as it orders runes, and of two different two-rune
	// strings neither begins the other.
	k := rest[:n1+n2]
	i, off := c.headTab.seek(func(r string) bool {
		t := headText(r)
		return t[:min(len(t), len(k))] < k
	})
	for ; i < c.headTab.n; i++ {
		l := le16(c.headTab.lens, i)
		t := headText(c.headTab.data[off : off+l])
		off += l
		if !strings.HasPrefix(t, k) {
			break
		}
		if strings.HasPrefix(rest, t) {
			dst = append(dst, cjkHit{int32(i), p, p + len(t)})
		}
	}
	return dst
}

func allCJK(s string) bool {
	for _, r := range s {
		if !isCJK(r) {
			return false
		}
	}
	return s != ""
}

// bigrams returns the index terms of an all-CJK word: its overlapping
// bigrams.
func bigrams(s string) []string {
	n := utf8.RuneCountInString(s) - 1
	if n < 1 {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < len(s); {
		_, n1 := utf8.DecodeRuneInString(s[i:])
		if i+n1 >= len(s) {
			break
		}
		_, n2 := utf8.DecodeRuneInString(s[i+n1:])
		out = append(out, s[i:i+n1+n2])
		i += n1
	}
	return out
}
