package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"unsafe"

	"github.com/memvault/memvault/vault/fault"
)

// ErrSnapshot reports a snapshot that is not one WriteTo wrote: wrong
// magic or version, truncated, corrupted or inconsistent.
var ErrSnapshot = fault.New(fault.Internal, "index: bad snapshot")

// ErrNotEmpty reports a ReadFrom into an index that already has documents.
var ErrNotEmpty = fault.New(fault.Internal, "index: ReadFrom needs an empty index")

const (
	snapshotMagic   = "MVIX"
	snapshotVersion = 3
	maxSnapshotDocs = 1 << 30
)

// WriteTo writes a snapshot of the index to w, so that a later process can
// load it with ReadFrom instead of analysing every document again. The
// snapshot holds documents' terms and statistics, not their text, nor the
// dictionary or ranking parameters (the reading index brings its own).
// WriteTo may run alongside Search, but not alongside Put or Delete.
//
// Format, little endian: "MVIX", version (uvarint), slot count, live and
// dead counts, total posting bytes; per slot its DocID (uint32), live flag
// and four length codes; the vocabulary's 16-byte hash key; per shard of
// the vocabulary its term count, slot count, text bytes and posting bytes
// (uvarints), zero bytes up to a multiple of 8 from the start, the hash
// table's slots as they are (head uint64, hash and id+1 uint32), each
// term's text offset (uint32, one more than the terms), the texts, zero
// bytes up to a multiple of 4, per term its df, last slot and posting
// byte count (uint32 each), then the posting bytes back to back; the
// short-field terms of every slot (the text's length and bytes, then one
// uvarint end offset per slot); finally the CRC-32 (IEEE) of everything
// before it.
//
// Version 3 stores the hash tables, which version 2 rebuilt by hashing and
// inserting every term (a third of loading a 100k snapshot); version 2
// added the short-field terms, which version 1 rebuilt by decoding every
// posting list.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	crc := crc32.NewIEEE()
	out := io.MultiWriter(bw, crc)
	var scratch [binary.MaxVarintLen64]byte
	var err error
	pos := 0 // bytes put so far
	put := func(b []byte) {
		if err == nil {
			_, err = out.Write(b)
			pos += len(b)
		}
	}
	uv := func(v uint64) { put(binary.AppendUvarint(scratch[:0], v)) }

	// A posting list that a loaded snapshot gave and that turns out bad
	// is written as the empty list it reads as (see lazyCheck).
	list := func(t *termTable, id uint32) *postingList {
		if p := t.list(id); p != nil {
			return p
		}
		return &postingList{}
	}
	total := 0
	for sh := range ix.terms.shards {
		t := &ix.terms.shards[sh]
		for id := range t.n {
			total += len(list(t, id).data)
		}
	}
	put([]byte(snapshotMagic))
	uv(snapshotVersion)
	uv(uint64(len(ix.ids)))
	uv(uint64(ix.live))
	uv(uint64(ix.dead))
	uv(uint64(total))
	row := make([]byte, 0, 9)
	for s, id := range ix.ids {
		row = binary.LittleEndian.AppendUint32(row[:0], uint32(id))
		alive := byte(0)
		if ix.alive[s] {
			alive = 1
		}
		row = append(row, alive)
		for f := range ix.lens {
			row = append(row, ix.lens[f][s])
		}
		put(row)
	}
	put(binary.LittleEndian.AppendUint64(scratch[:0], ix.terms.key[0]))
	put(binary.LittleEndian.AppendUint64(scratch[:0], ix.terms.key[1]))
	for sh := range ix.terms.shards {
		t := &ix.terms.shards[sh]
		arena := t.arena[:t.offs[t.n]]
		data := 0
		for id := range t.n {
			data += len(list(t, id).data)
		}
		uv(uint64(t.n))
		uv(uint64(len(t.slots)))
		uv(uint64(len(arena)))
		uv(uint64(data))
		// The slots and offsets start at a multiple of 8 bytes from the
		// snapshot's start, so that a reader whose copy is aligned the
		// same (a mapped cache places the snapshot so) uses them in place.
		put(make([]byte, (8-pos%8)%8))
		chunk := make([]byte, 0, 16<<10)
		for k := range t.slots {
			sl := &t.slots[k]
			chunk = binary.LittleEndian.AppendUint64(chunk, sl.head)
			chunk = binary.LittleEndian.AppendUint32(chunk, sl.hash)
			chunk = binary.LittleEndian.AppendUint32(chunk, sl.id)
			if len(chunk) == cap(chunk) {
				put(chunk)
				chunk = chunk[:0]
			}
		}
		for _, o := range t.offs[:t.n+1] {
			chunk = binary.LittleEndian.AppendUint32(chunk, o)
			if len(chunk) == cap(chunk) {
				put(chunk)
				chunk = chunk[:0]
			}
		}
		put(chunk)
		put(arena)
		// The lists' headers apart from their bytes: a load reads the
		// headers and need not touch the bytes until a list is used.
		put(make([]byte, (4-pos%4)%4))
		chunk = chunk[:0]
		for id := range t.n {
			p := list(t, id)
			if uint64(len(p.data)) > math.MaxUint32 {
				return cw.n, fmt.Errorf("write index snapshot: a posting list of %d bytes", len(p.data))
			}
			chunk = binary.LittleEndian.AppendUint32(chunk, p.df)
			chunk = binary.LittleEndian.AppendUint32(chunk, p.last)
			chunk = binary.LittleEndian.AppendUint32(chunk, uint32(len(p.data)))
			if len(chunk) >= cap(chunk)-12 {
				put(chunk)
				chunk = chunk[:0]
			}
		}
		put(chunk)
		for id := range t.n {
			put(list(t, id).data)
		}
	}
	uv(uint64(len(ix.short.text)))
	put(ix.short.text)
	for s := range ix.ids {
		end := uint32(0)
		if s+1 < len(ix.short.offs) {
			end = ix.short.offs[s+1]
		} else if len(ix.short.offs) > 0 {
			end = ix.short.offs[len(ix.short.offs)-1]
		}
		uv(uint64(end))
	}
	if err == nil {
		_, err = bw.Write(binary.LittleEndian.AppendUint32(scratch[:0], crc.Sum32()))
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return cw.n, fmt.Errorf("write index snapshot: %w", err)
	}
	return cw.n, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// snapReader parses a snapshot held in memory.
type snapReader struct {
	b   []byte
	i   int
	err error
}

func (s *snapReader) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// next returns the next n bytes, aliasing the buffer.
func (s *snapReader) next(n int) []byte {
	if s.err != nil {
		return nil
	}
	if n < 0 || n > len(s.b)-s.i {
		s.fail(io.ErrUnexpectedEOF)
		return nil
	}
	s.i += n
	return s.b[s.i-n : s.i : s.i]
}

func (s *snapReader) uv(max uint64) uint64 {
	if s.err != nil {
		return 0
	}
	v, n := binary.Uvarint(s.b[s.i:])
	if n <= 0 {
		s.fail(io.ErrUnexpectedEOF)
		return 0
	}
	s.i += n
	if v > max {
		s.fail(fmt.Errorf("%w: value %d exceeds %d", ErrSnapshot, v, max))
		return 0
	}
	return v
}

// ReadFrom loads a snapshot written by WriteTo into ix, which must be
// empty. It reads r to the end. Everything is validated before use, so a
// damaged or hostile snapshot yields an error wrapping ErrSnapshot, never a
// corrupt index; on error ix is left empty. The posting lists share the
// memory read, so loading copies little.
//
// Posting lists are validated when first used rather than all at load
// (a fifth of loading a 100k snapshot, for lists a recall mostly never
// reads): one that a damaged snapshot holds, which its checksum did not
// catch, reads as empty (see lazyCheck).
func (ix *Index) ReadFrom(r io.Reader) (int64, error) {
	if len(ix.ids) != 0 {
		return 0, ErrNotEmpty
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return int64(len(data)), fmt.Errorf("read index snapshot: %w", err)
	}
	return int64(len(data)), ix.loadWith(data, ix.readSnapshot)
}

// LoadSnapshot is ReadFrom from a snapshot already in memory: the posting
// lists alias data, which must not change afterwards.
func (ix *Index) LoadSnapshot(data []byte) error {
	return ix.loadWith(data, ix.readSnapshot)
}

// LoadCheckedSnapshot is LoadSnapshot for data the caller has checked
// already against a checksum that covers it (the index cache's, over its
// whole file): it skips the snapshot's own, the one pass over every
// posting list's bytes that a load would otherwise make. Everything else
// is checked as LoadSnapshot checks it.
func (ix *Index) LoadCheckedSnapshot(data []byte) error {
	return ix.loadWith(data, ix.readCheckedSnapshot)
}

// loadWith loads data into the empty ix with read, leaving ix empty and
// the error marked ErrSnapshot when read fails.
func (ix *Index) loadWith(data []byte, read func([]byte) error) error {
	if len(ix.ids) != 0 {
		return ErrNotEmpty
	}
	if err := read(data); err != nil {
		ix.clear()
		if !errors.Is(err, ErrSnapshot) {
			err = fmt.Errorf("%w: %w", ErrSnapshot, err)
		}
		return fmt.Errorf("read index snapshot: %w", err)
	}
	return nil
}

func (ix *Index) readSnapshot(data []byte) error {
	if len(data) >= len(snapshotMagic)+4 &&
		binary.LittleEndian.Uint32(data[len(data)-4:]) != crc32.ChecksumIEEE(data[:len(data)-4]) {
		return fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
	return ix.readCheckedSnapshot(data)
}

func (ix *Index) readCheckedSnapshot(data []byte) error {
	if len(data) < len(snapshotMagic)+4 || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return fmt.Errorf("%w: not an index snapshot", ErrSnapshot)
	}
	body := data[:len(data)-4]
	sr := &snapReader{b: body, i: len(snapshotMagic)}
	if v := sr.uv(1 << 20); sr.err == nil && v != snapshotVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrSnapshot, v, snapshotVersion)
	}
	nSlots := int(sr.uv(maxSnapshotDocs))
	live := int(sr.uv(maxSnapshotDocs))
	dead := int(sr.uv(maxSnapshotDocs))
	sr.uv(1 << 40) // total posting bytes, kept for readers that copy
	if sr.err != nil {
		return sr.err
	}
	if live+dead != nSlots {
		return fmt.Errorf("%w: %d live + %d dead != %d slots", ErrSnapshot, live, dead, nSlots)
	}
	const rowLen = 4 + 1 + numFields
	rows := sr.next(nSlots * rowLen)
	if sr.err != nil {
		return sr.err
	}
	ix.ids = make([]DocID, nSlots)
	ix.alive = make([]bool, nSlots)
	for f := range ix.lens {
		ix.lens[f] = make([]uint8, nSlots)
	}
	nLive := 0
	byID := true // every slot s live and holding document s
	for s := range nSlots {
		row := rows[s*rowLen : (s+1)*rowLen]
		id := DocID(binary.LittleEndian.Uint32(row))
		if row[4] > 1 {
			return fmt.Errorf("%w: slot %d has live flag %d", ErrSnapshot, s, row[4])
		}
		ix.ids[s] = id
		ix.alive[s] = row[4] == 1
		for f := range ix.lens {
			ix.lens[f][s] = row[5+f]
		}
		if ix.alive[s] {
			nLive++
		}
		byID = byID && ix.alive[s] && id == DocID(s)
	}
	if byID {
		ix.slotsByID = true
	} else {
		for s, id := range ix.ids {
			if !ix.alive[s] {
				continue
			}
			if _, dup := ix.slotOf[id]; dup {
				return fmt.Errorf("%w: document %d is live twice", ErrSnapshot, id)
			}
			ix.slotOf[id] = uint32(s)
		}
	}
	if nLive != live {
		return fmt.Errorf("%w: %d live slots, header says %d", ErrSnapshot, nLive, live)
	}
	ix.live, ix.dead = live, dead
	recomputeSums(ix)
	key := sr.next(16)
	if sr.err != nil {
		return sr.err
	}
	ix.terms.key = sipKey{binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[8:])}

	// Per shard its hash table, term texts and posting lists, each
	// checked against the slots.
	for sh := range ix.terms.shards {
		if err := readTermTable(sr, &ix.terms.shards[sh], nSlots); err != nil {
			return err
		}
	}
	short := sr.next(int(sr.uv(uint64(len(body)))))
	offs := make([]uint32, 1, nSlots+1)
	for range nSlots {
		offs = append(offs, uint32(sr.uv(uint64(len(short)))))
	}
	if sr.err == nil && sr.i != len(body) {
		sr.fail(fmt.Errorf("%w: %d trailing bytes", ErrSnapshot, len(body)-sr.i))
	}
	if sr.err != nil {
		return sr.err
	}
	if err := validShort(short, offs); err != nil {
		return fmt.Errorf("%w: short terms: %w", ErrSnapshot, err)
	}
	ix.short = shortTerms{text: short, offs: offs}
	return nil
}

// readTermTable reads one shard's term table into t, an empty one. The
// slots and offsets are used in place when the snapshot's bytes are
// aligned for them (and the machine is little endian), else copied.
//
// The checks make every later use safe: every occupied slot names a
// distinct term, so a table with free slots (the load factor is checked)
// ends every probe; the offsets cut the arena into terms of valid
// lengths; posting lists are checked when first used (see lazyCheck). That a slot's hash and
// head are its term's is not checked (it would mean hashing every term,
// which is what storing the table saves): the snapshot's checksum
// covers them, and a wrong one could only hide its term from look-ups.
func readTermTable(sr *snapReader, t *termTable, nSlots int) error {
	n := int(sr.uv(maxTerms))
	size := int(sr.uv(maxTerms))
	arenaLen := int(sr.uv(uint64(len(sr.b))))
	dataLen := int(sr.uv(uint64(len(sr.b))))
	sr.next((8 - sr.i%8) % 8)
	slotBytes := sr.next(size * 16)
	offBytes := sr.next((n + 1) * 4)
	arena := sr.next(arenaLen)
	sr.next((4 - sr.i%4) % 4)
	heads := sr.next(n * 12)
	data := sr.next(dataLen)
	if sr.err != nil {
		return sr.err
	}
	if size < 1 || size&(size-1) != 0 || n*5 > size*4 {
		return fmt.Errorf("%w: %d terms in %d slots", ErrSnapshot, n, size)
	}
	slots, shared := slotsOf(slotBytes)
	offs := uint32sOf(offBytes)
	seen := make([]uint64, (n+63)/64)
	used := 0
	for k := range slots {
		id := slots[k].id
		if id == 0 {
			continue
		}
		if int(id) > n || seen[(id-1)/64]&(1<<((id-1)%64)) != 0 {
			return fmt.Errorf("%w: slot %d holds term %d of %d", ErrSnapshot, k, id, n)
		}
		seen[(id-1)/64] |= 1 << ((id - 1) % 64)
		used++
	}
	if used != n {
		return fmt.Errorf("%w: %d slots for %d terms", ErrSnapshot, used, n)
	}
	if offs[0] != 0 || offs[n] != uint32(arenaLen) || int(offs[n]) != arenaLen {
		return fmt.Errorf("%w: term offsets do not cover the texts", ErrSnapshot)
	}
	for id := range n {
		if l := offs[id+1] - offs[id]; offs[id+1] < offs[id] || l == 0 || l > maxCompoundBytes {
			return fmt.Errorf("%w: term %d has a bad length", ErrSnapshot, id)
		}
	}
	t.slots, t.shared, t.offs, t.arena, t.n = slots, shared, offs, arena, uint32(n)
	t.pages = t.pages[:0]
	for id := range uint32(n) {
		if id>>pageBits >= uint32(len(t.pages)) {
			page := make([]postingList, 1<<pageBits)
			// Numbers first: a fresh page whose first touch is the
			// write barrier's read of a pointer gets the zero page,
			// and the write after it copies it and flushes every
			// core's mapping of it.
			for k := range page {
				page[k].df = 0
			}
			t.pages = append(t.pages, page)
		}
		h := heads[id*12 : id*12+12]
		df, last, l := binary.LittleEndian.Uint32(h), binary.LittleEndian.Uint32(h[4:]), binary.LittleEndian.Uint32(h[8:])
		if uint64(l) > uint64(len(data)) {
			return fmt.Errorf("%w: term %d's postings overrun the shard's", ErrSnapshot, id)
		}
		*t.post(id) = postingList{df: df, last: last, data: data[:l:l]}
		data = data[l:]
	}
	if len(data) != 0 {
		return fmt.Errorf("%w: %d posting bytes past the last term's", ErrSnapshot, len(data))
	}
	t.lazy = newLazyCheck(n, nSlots)
	return nil
}

// A slot in a snapshot is its head, hash and id, 16 bytes little endian:
// termSlot's layout, which slotsOf relies on.
var _ = [1]struct{}{}[unsafe.Sizeof(termSlot{})-16+unsafe.Offsetof(termSlot{}.id)-12]

// maxTerms bounds a shard's term and slot counts in a snapshot.
const maxTerms = 1 << 31

// littleEndian reports whether the machine stores integers as the
// snapshot does, so that its tables can be used in place.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// slotsOf returns the term slots b holds, little endian, and true when
// they are b itself (read-only then), false when copied.
func slotsOf(b []byte) ([]termSlot, bool) {
	n := len(b) / 16
	if littleEndian && n > 0 && uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(termSlot{}) == 0 {
		return unsafe.Slice((*termSlot)(unsafe.Pointer(&b[0])), n), true
	}
	slots := make([]termSlot, n)
	for k := range slots {
		r := b[k*16:]
		slots[k] = termSlot{head: binary.LittleEndian.Uint64(r), hash: binary.LittleEndian.Uint32(r[8:]), id: binary.LittleEndian.Uint32(r[12:])}
	}
	return slots, false
}

// uint32sOf returns the little-endian uint32s b holds, as b itself when
// it can; either way without spare capacity, so appending copies.
func uint32sOf(b []byte) []uint32 {
	n := len(b) / 4
	if littleEndian && n > 0 && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for k := range out {
		out[k] = binary.LittleEndian.Uint32(b[k*4:])
	}
	return out
}

// validShort checks that the short-term lists end where offs says, each
// a run of entries whose length bytes stay within it, so that
// shortTerms.each can trust them.
func validShort(text []byte, offs []uint32) error {
	if offs[len(offs)-1] != uint32(len(text)) {
		return errors.New("lists do not cover the text")
	}
	for s := 1; s < len(offs); s++ {
		from, to := offs[s-1], offs[s]
		if to < from {
			return errors.New("offsets decrease")
		}
		for i := from; i < to; {
			i += 1 + uint32(text[i]&0x7f)
			if i > to {
				return fmt.Errorf("slot %d: entry overruns its list", s-1)
			}
		}
	}
	return nil
}

// validate checks that the list decodes into df postings with increasing
// slots below nSlots, ending at last, so that Search can trust it.
func (p *postingList) validate(nSlots int) error {
	b := p.data
	slot, count := uint64(0), uint32(0)
	for i := 0; i < len(b); {
		// Most uvarints here are one byte: read those inline.
		v := uint64(b[i])
		if v < 0x80 {
			i++
		} else {
			x, n := binary.Uvarint(b[i:])
			if n <= 0 {
				return errors.New("bad posting")
			}
			v = x
			i += n
		}
		if count > 0 && v>>1 == 0 {
			return errors.New("slots not increasing")
		}
		slot += v >> 1
		if slot >= uint64(nSlots) {
			return errors.New("slot out of range")
		}
		if v&1 != 0 {
			i += 3
		}
		if i >= len(b) {
			return errors.New("truncated posting")
		}
		if b[i] < 0x80 {
			i++
		} else {
			tf, n := binary.Uvarint(b[i:])
			if n <= 0 || tf > maxTF {
				return errors.New("bad term frequency")
			}
			i += n
		}
		count++
	}
	if count != p.df {
		return fmt.Errorf("%d postings, df %d", count, p.df)
	}
	// Put appends after last, so it must be the true last slot (0 for an
	// empty list).
	if uint32(slot) != p.last {
		return fmt.Errorf("last slot %d, header says %d", slot, p.last)
	}
	return nil
}

// clear empties the index, keeping its dictionary and parameters.
func (ix *Index) clear() {
	ix.terms = newVocabulary()
	ix.ids, ix.alive, ix.lens = nil, nil, [numFields][]uint8{}
	ix.slotOf, ix.slotsByID = map[DocID]uint32{}, false
	ix.live, ix.dead, ix.lenSum = 0, 0, [numFields]float64{}
	ix.short = shortTerms{}
	ix.gen++
}
