package index

import (
	"cmp"
	"slices"
)

// Patch relabels and drops documents, adds new ones, then lays the index
// out as a bulk load of its documents in increasing id order lays it out:
// live documents in slots 0, 1, ... by id, every posting list in that
// slot order, no retired slot. A vault whose cached index was built from
// almost the same memories patches it instead of building one anew.
//
// relabel gives each live document's new id, or false to drop it; put
// holds the documents to add, under ids that relabel gives no kept
// document. Searches then answer as on an index built afresh from the
// same documents in id order: the slot order decides which documents a
// learned translation samples (see learn), and the length sums are sums
// of whole numbers, exact in any order.
//
// dropped, when not nil, holds the documents relabel drops, exactly as
// they were indexed (the caller vouches for that: the vault matches them
// by SHA-256). With them, when no kept document changes slot (documents
// changed in place, none added or removed before others), only the
// posting lists of their terms and of put's are written anew. Should
// those lists hold fewer or more postings of dropped documents than
// dropped has terms (a count, which catches most mistakes, not all), all
// lists past the first moved slot are written anew.
// Otherwise posting lists whose slots all precede the first slot that
// moved are kept as they are (they may be read-only memory, as a mapped
// snapshot's are) and the others are written anew.
func (ix *Index) Patch(relabel func(DocID) (DocID, bool), put []Entry, dropped []Doc) {
	ix.buildSlots()
	ix.terms.checkAll(ix.noteRead) // a loaded snapshot's lists, before any change
	retired, kept := 0, len(ix.ids)
	for s, id := range ix.ids {
		if !ix.alive[s] {
			continue
		}
		if nid, ok := relabel(id); ok {
			ix.ids[s] = nid
		} else {
			ix.retire(uint32(s))
			retired++
		}
	}
	// The posting lists the dropped and added documents are in, and how
	// many postings the dropped ones have.
	var lists map[*postingList]bool
	want := 0
	if dropped != nil && len(dropped) == retired && ix.dead == retired {
		lists = map[*postingList]bool{}
		for _, d := range dropped {
			ix.analyzeDoc(&ix.an, &ix.doc, d)
			for _, e := range ix.doc.ents {
				t := &ix.terms.shards[shardOf(e.hash)]
				pl := t.lookup(e.hash, ix.doc.buf[e.start:e.end])
				if pl == nil {
					lists = nil // not a document of this index
					break
				}
				lists[pl] = true
				want++
			}
			if lists == nil {
				break
			}
		}
	}
	clear(ix.slotOf)
	for s, id := range ix.ids {
		if ix.alive[s] {
			ix.slotOf[id] = uint32(s)
		}
	}
	for _, e := range put {
		lens := ix.analyzeDoc(&ix.an, &ix.doc, e.Doc)
		slot := ix.newSlot(e.ID, lens, ix.doc.ents, ix.doc.buf)
		ix.ins.insertDoc(ix.terms, allShards, slot, ix.doc.ents, ix.doc.buf)
		for _, e := range ix.doc.ents {
			if lists != nil {
				lists[ix.terms.shards[shardOf(e.hash)].lookup(e.hash, ix.doc.buf[e.start:e.end])] = true
			}
		}
	}
	ix.layOutByID(lists, want, kept)
}

// layOutByID renumbers the live slots in increasing id order and drops
// the retired ones (compact keeps the slots' order instead). lists, when
// not nil, holds every posting list with a retired or new slot, provided
// the retired slots have want postings in them, and the slots before
// kept are the ones that were there before the new documents: see Patch.
func (ix *Index) layOutByID(lists map[*postingList]bool, want, kept int) {
	ix.buildSlots()
	ix.patchLists = 0
	order := make([]uint32, 0, ix.live)
	for s, ok := range ix.alive {
		if ok {
			order = append(order, uint32(s))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(ix.ids[a], ix.ids[b]) })
	remap := make([]uint32, len(ix.ids))
	for s := range remap {
		remap[s] = ^uint32(0)
	}
	for n, s := range order {
		remap[s] = uint32(n)
	}
	first := uint32(len(remap)) // the first slot whose number changes
	for s, to := range remap {
		if to != uint32(s) {
			first = uint32(s)
			break
		}
	}
	ix.gen++
	if first == uint32(len(remap)) {
		return
	}
	type posting struct {
		slot uint32
		tf   [numFields]uint8
	}
	var ps []posting
	// rewrite writes pl anew in the new slot order and returns how many
	// postings of retired slots it dropped.
	rewrite := func(pl *postingList) int {
		ix.patchLists++
		ix.noteRead(len(pl.data))
		ps = ps[:0]
		sorted, gone := true, 0
		pl.each(func(slot uint32, tf [numFields]uint8) {
			if to := remap[slot]; to != ^uint32(0) {
				sorted = sorted && (len(ps) == 0 || ps[len(ps)-1].slot < to)
				ps = append(ps, posting{to, tf})
			} else {
				gone++
			}
		})
		if !sorted {
			slices.SortFunc(ps, func(a, b posting) int { return cmp.Compare(a.slot, b.slot) })
		}
		np := postingList{}
		for _, p := range ps {
			np.add(p.slot, p.tf)
		}
		if len(np.data) > 0 {
			np.data = slices.Clip(np.data)
		}
		*pl = np
		return gone
	}
	// Kept slots that keep their numbers leave every list without a
	// retired or new slot as it is.
	inPlace := lists != nil
	for s, to := range remap[:kept] {
		if ix.alive[s] && to != uint32(s) {
			inPlace = false
			break
		}
	}
	done := false
	if inPlace {
		gone := 0
		for pl := range lists {
			gone += rewrite(pl)
		}
		done = gone == want
	}
	if !done {
		ix.terms.each(func(pl *postingList) {
			if pl.df != 0 && pl.last >= first && !(inPlace && lists[pl]) {
				rewrite(pl)
			}
		})
	}
	n := len(order)
	ids := make([]DocID, n)
	var lens [numFields][]uint8
	for f := range lens {
		lens[f] = make([]uint8, n)
	}
	short := shortTerms{offs: make([]uint32, 1, n+1)}
	for i, s := range order {
		ids[i] = ix.ids[s]
		for f := range lens {
			lens[f][i] = ix.lens[f][s]
		}
		if int(s)+1 < len(ix.short.offs) {
			short.text = append(short.text, ix.short.text[ix.short.offs[s]:ix.short.offs[s+1]]...)
		}
		short.offs = append(short.offs, uint32(len(short.text)))
	}
	ix.ids, ix.lens, ix.short = ids, lens, short
	ix.alive = make([]bool, n)
	for i := range ix.alive {
		ix.alive[i] = true
	}
	clear(ix.slotOf)
	for i, id := range ids {
		ix.slotOf[id] = uint32(i)
	}
	ix.live, ix.dead = n, 0
	recomputeSums(ix)
}
