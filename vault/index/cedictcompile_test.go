package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// compileCedictTab compiles a word list in the format of cedict.txt.gz (one
// "词语 -> sense | sense" line per headword; lines starting with # are
// comments) into the table the index embeds as cedict.tab. It is test
// code, not part of the index: TestCedictTableIsCurrent runs it, and with
// -update writes cedict.tab (go generate, and gen/cedict after it writes a
// new list). The table holds what parsing the list at run time would
// build, in the order lookups need:
//
//	"memvault cedict table 1\n"
//	headwords: sorted by their first two runes, in the list's order within
//	  each two-rune key; a record is the text's length (one byte), the
//	  text, then the record numbers of its senses (uint16 each).
//	senses: sorted by their first unit (the first word as the analyser
//	  reads it: lowercased, stemmed), in the order of first appearance
//	  within a key; a record is the text's length (one byte), the text,
//	  flags (one byte: several units, units stored), the length of the
//	  units joined by spaces (one byte), those units unless they are a
//	  prefix of the text ("deploy" of "deployment", "roll back" of itself),
//	  a stop-word mask for several units (one byte, bit i for unit i), then
//	  the record numbers of the headwords a one-word sense leads back to
//	  (uint16 each).
//
// Each of the two is stored as n and the size of its records (uint32
// each), each record's length (uint16), the offset of every 16th record
// (uint32), then the records; integers are little-endian. A lookup thus
// needs no analyser: a sense's index terms are its units that are not stop
// words.
//
// A line that is not "words -> senses" is skipped, as are senses with no
// index term. compileCedictTab fails on input the table cannot represent:
// duplicate headwords, one-rune headwords, text longer than 255 bytes,
// senses of more than 8 units, more than 65535 headwords or senses.
func compileCedictTab(list string) ([]byte, error) {
	d := parseCedict(list)
	if len(d.mixed) > 0 {
		return nil, errors.New("cedict: a term mixes Latin and CJK")
	}
	// Every term is in exactly one lookup list: headwords by their first
	// two runes, senses by their first word.
	const unset = -1
	pos := make([]int, len(d.terms))
	for i := range pos {
		pos[i] = unset
	}
	order := func(lists map[string][]int32) ([]int32, error) {
		keys := make([]string, 0, len(lists))
		for k := range lists {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var ids []int32
		for _, k := range keys {
			for _, id := range lists[k] {
				if pos[id] != unset {
					return nil, fmt.Errorf("cedict: duplicate term %q", d.terms[id].text)
				}
				pos[id] = len(ids)
				ids = append(ids, id)
			}
		}
		if len(ids) > 0xFFFF {
			return nil, fmt.Errorf("cedict: %d terms of one kind, want at most 65535", len(ids))
		}
		return ids, nil
	}
	heads, err := order(d.cjkFirst)
	if err != nil {
		return nil, err
	}
	isHead := make([]bool, len(d.terms))
	for _, id := range heads {
		isHead[id] = true
	}
	senses, err := order(d.latinFirst)
	if err != nil {
		return nil, err
	}
	for id, p := range pos {
		if p == unset {
			return nil, fmt.Errorf("cedict: term %q cannot be looked up", d.terms[id].text)
		}
	}
	ref := func(from int32, ids []int32, wantHead bool, buf []byte) ([]byte, error) {
		for _, id := range ids {
			if isHead[id] != wantHead {
				return nil, fmt.Errorf("cedict: %q leads to %q, of its own kind", d.terms[from].text, d.terms[id].text)
			}
			buf = binary.LittleEndian.AppendUint16(buf, uint16(pos[id]))
		}
		return buf, nil
	}
	short := func(s string) error {
		if len(s) > 0xFF {
			return fmt.Errorf("cedict: %q is longer than 255 bytes", s)
		}
		return nil
	}

	var ht, st tableWriter
	for _, id := range heads {
		t := d.terms[id]
		if len(t.units) != 1 || t.units[0].cjk != t.text || utf8.RuneCountInString(t.text) < 2 ||
			!slices.Equal(t.toks, bigrams(t.text)) || len(d.expand[id]) > 0 {
			return nil, fmt.Errorf("cedict: headword %q is not a CJK word of two runes or more", t.text)
		}
		if err := short(t.text); err != nil {
			return nil, err
		}
		rec := append([]byte{byte(len(t.text))}, t.text...)
		if rec, err = ref(id, d.oneWay[id], false, rec); err != nil {
			return nil, err
		}
		if err := ht.add(rec); err != nil {
			return nil, err
		}
	}
	var a analyzer
	for _, id := range senses {
		t := d.terms[id]
		if err := short(t.text); err != nil {
			return nil, err
		}
		// What a lookup reads must be what parsing gave: the units, and
		// the index terms they make.
		if u := analyzeSense(&a, t.text); !slices.Equal(u.units, t.units) || !slices.Equal(u.toks, t.toks) || len(d.oneWay[id]) > 0 {
			return nil, fmt.Errorf("cedict: sense %q does not read back", t.text)
		}
		s := senseRec{text: t.text}
		words := make([]string, len(t.units))
		for i, u := range t.units {
			if u.word == "" || strings.Contains(u.word, " ") {
				return nil, fmt.Errorf("cedict: sense %q has unit %q", t.text, u.word)
			}
			words[i] = u.word
		}
		s.units = strings.Join(words, " ")
		var flags byte
		if len(t.units) > 1 {
			if len(t.units) > 8 {
				return nil, fmt.Errorf("cedict: sense %q has more than 8 units", t.text)
			}
			flags |= senseMulti
			// Stop words are told apart before stemming: ask the
			// analyser, not the units.
			i := 0
			a.keepStops = true
			a.analyze(t.text, func(tk *token) {
				if tk.kind == kindWord || tk.kind == kindPart {
					if tk.stop {
						s.stops |= 1 << i
					}
					i++
				}
			})
		}
		if !slices.Equal(s.toks(), t.toks) {
			return nil, fmt.Errorf("cedict: sense %q: index terms %q, want %q", t.text, s.toks(), t.toks)
		}
		if err := short(s.units); err != nil {
			return nil, err
		}
		rec := append([]byte{byte(len(t.text))}, t.text...)
		if strings.HasPrefix(t.text, s.units) {
			rec = append(rec, flags, byte(len(s.units)))
		} else {
			rec = append(rec, flags|senseOwnUnit, byte(len(s.units)))
			rec = append(rec, s.units...)
		}
		if flags&senseMulti != 0 {
			rec = append(rec, s.stops)
		}
		if rec, err = ref(id, d.expand[id], true, rec); err != nil {
			return nil, err
		}
		if err := st.add(rec); err != nil {
			return nil, err
		}
	}
	out := []byte(cedictMagic)
	out = ht.appendTo(out)
	return st.appendTo(out), nil
}

// tableWriter collects the records of a recTable.
type tableWriter struct {
	lens, base, data []byte
	n                int
}

func (w *tableWriter) add(rec []byte) error {
	if len(rec) > 0xFFFF {
		return fmt.Errorf("cedict: record of %d bytes, want at most 65535", len(rec))
	}
	if w.n%recBlock == 0 {
		w.base = binary.LittleEndian.AppendUint32(w.base, uint32(len(w.data)))
	}
	w.lens = binary.LittleEndian.AppendUint16(w.lens, uint16(len(rec)))
	w.data = append(w.data, rec...)
	w.n++
	return nil
}

func (w *tableWriter) appendTo(out []byte) []byte {
	out = binary.LittleEndian.AppendUint32(out, uint32(w.n))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(w.data)))
	out = append(out, w.lens...)
	out = append(out, w.base...)
	return append(out, w.data...)
}

// parseCedict builds a dictionary from cedict.txt lines: each headword
// expands one way to its senses, and each one-word sense one way back to
// the headwords that have it. It trusts its input's shape (the file is
// generated) but never panics on any input. It is compileCedictTab's engine,
// and the reference tests compare the compiled table's lookups with.
func parseCedict(src string) *dictionary {
	d := &dictionary{
		byText:     map[string]int32{},
		latinFirst: map[string][]int32{},
		cjkFirst:   map[string][]int32{},
	}
	var a analyzer
	newTerm := func(t dictTerm) int32 {
		if id, ok := d.byText[t.text]; ok {
			return id
		}
		id := int32(len(d.terms))
		d.terms = append(d.terms, t)
		d.expand = append(d.expand, nil)
		d.oneWay = append(d.oneWay, nil)
		d.byText[t.text] = id
		return id
	}
	for len(src) > 0 {
		var line string
		line, src, _ = strings.Cut(src, "\n")
		head, senses, ok := strings.Cut(line, " -> ")
		if !ok || strings.HasPrefix(line, "#") || !allCJK(head) || utf8.RuneCountInString(head) < 2 {
			continue
		}
		h := newTerm(dictTerm{text: head, units: []unit{{cjk: head}}, toks: bigrams(head)})
		if len(d.terms[h].units) == 1 && len(d.oneWay[h]) == 0 {
			k := cjkKey(head)
			d.cjkFirst[k] = append(d.cjkFirst[k], h)
		}
		for _, s := range strings.Split(senses, " | ") {
			t := analyzeSense(&a, strings.TrimSpace(s))
			if len(t.units) == 0 || len(t.toks) == 0 {
				continue
			}
			_, seen := d.byText[t.text]
			id := newTerm(t)
			if !seen {
				d.latinFirst[t.units[0].word] = append(d.latinFirst[t.units[0].word], id)
			}
			if !contains(d.oneWay[h], id) {
				d.oneWay[h] = append(d.oneWay[h], id)
			}
			if len(t.units) == 1 && !contains(d.expand[id], h) {
				// One-word senses lead back to their headwords; expand
				// (not oneWay) marks the reverse direction.
				d.expand[id] = append(d.expand[id], h)
			}
		}
	}
	return d
}

// analyzeSense reads an English sense as parseCedict always has: its units
// are its words and identifier parts, stop words included; its index terms
// the units that are not stop words.
func analyzeSense(a *analyzer, s string) dictTerm {
	t := dictTerm{text: s}
	a.keepStops = true
	a.analyze(s, func(tk *token) {
		switch tk.kind {
		case kindWord, kindPart:
			t.units = append(t.units, unit{word: string(tk.text)})
			if !tk.stop {
				t.toks = appendUnique(t.toks, string(tk.text))
			}
		}
	})
	return t
}
