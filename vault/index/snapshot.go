package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// ErrSnapshot reports a snapshot that is not one WriteTo wrote: wrong
// magic or version, truncated, corrupted or inconsistent.
var ErrSnapshot = errors.New("index: bad snapshot")

// ErrNotEmpty reports a ReadFrom into an index that already has documents.
var ErrNotEmpty = errors.New("index: ReadFrom needs an empty index")

const (
	snapshotMagic   = "MVIX"
	snapshotVersion = 2
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
// and four length codes; term count, then per term its text, df, last slot
// and posting bytes; since version 2 the short-field terms of every slot
// (the text's length and bytes, then one uvarint end offset per slot),
// which version 1 rebuilt by decoding every posting list (half the time of
// loading a 100k snapshot); finally the CRC-32 (IEEE) of everything
// before it.
func (ix *Index) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<16)
	crc := crc32.NewIEEE()
	out := io.MultiWriter(bw, crc)
	var scratch [binary.MaxVarintLen64]byte
	var err error
	put := func(b []byte) {
		if err == nil {
			_, err = out.Write(b)
		}
	}
	uv := func(v uint64) { put(binary.AppendUvarint(scratch[:0], v)) }

	total := 0
	nTerms := 0
	ix.terms.each(func(p *postingList) {
		total += len(p.data)
		nTerms++
	})
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
	uv(uint64(nTerms))
	for sh := range ix.terms.shards {
		t := &ix.terms.shards[sh]
		for id := range t.n {
			text := t.arena[t.offs[id]:t.offs[id+1]]
			p := t.post(id)
			uv(uint64(len(text)))
			put(text)
			uv(uint64(p.df))
			uv(uint64(p.last))
			uv(uint64(len(p.data)))
			put(p.data)
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
func (ix *Index) ReadFrom(r io.Reader) (int64, error) {
	if len(ix.ids) != 0 {
		return 0, ErrNotEmpty
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return int64(len(data)), fmt.Errorf("read index snapshot: %w", err)
	}
	if err := ix.readSnapshot(data); err != nil {
		ix.clear()
		if !errors.Is(err, ErrSnapshot) {
			err = fmt.Errorf("%w: %w", ErrSnapshot, err)
		}
		return int64(len(data)), fmt.Errorf("read index snapshot: %w", err)
	}
	return int64(len(data)), nil
}

// LoadSnapshot is ReadFrom from a snapshot already in memory: the posting
// lists alias data, which must not change afterwards.
func (ix *Index) LoadSnapshot(data []byte) error {
	if len(ix.ids) != 0 {
		return ErrNotEmpty
	}
	if err := ix.readSnapshot(data); err != nil {
		ix.clear()
		if !errors.Is(err, ErrSnapshot) {
			err = fmt.Errorf("%w: %w", ErrSnapshot, err)
		}
		return fmt.Errorf("read index snapshot: %w", err)
	}
	return nil
}

func (ix *Index) readSnapshot(data []byte) error {
	if len(data) < len(snapshotMagic)+4 || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return fmt.Errorf("%w: not an index snapshot", ErrSnapshot)
	}
	body := data[:len(data)-4]
	if binary.LittleEndian.Uint32(data[len(data)-4:]) != crc32.ChecksumIEEE(body) {
		return fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
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
			if _, dup := ix.slotOf[id]; dup {
				return fmt.Errorf("%w: document %d is live twice", ErrSnapshot, id)
			}
			ix.slotOf[id] = uint32(s)
			nLive++
		}
	}
	if nLive != live {
		return fmt.Errorf("%w: %d live slots, header says %d", ErrSnapshot, nLive, live)
	}
	ix.live, ix.dead = live, dead
	recomputeSums(ix)

	// Terms and their postings, each validated against the slots.
	nTerms := int(sr.uv(uint64(len(body))))
	// Hashes spread terms evenly over the shards: reserve each its share
	// and a little more (texts average well under 16 bytes).
	for i := range ix.terms.shards {
		share := nTerms/numShards + nTerms/(8*numShards) + 16
		ix.terms.shards[i].reserve(share, 16*share)
	}
	for k := 0; k < nTerms && sr.err == nil; k++ {
		tl := int(sr.uv(maxCompoundBytes))
		text := sr.next(tl)
		df := uint32(sr.uv(uint64(nSlots)))
		last := uint32(sr.uv(uint64(nSlots)))
		p := postingList{df: df, last: last}
		p.data = sr.next(int(sr.uv(uint64(len(body)))))
		if sr.err != nil {
			break
		}
		if tl == 0 {
			return fmt.Errorf("%w: empty term", ErrSnapshot)
		}
		if err := p.validate(nSlots); err != nil {
			return fmt.Errorf("%w: term %q: %w", ErrSnapshot, text, err)
		}
		h := ix.terms.hash(text)
		t := &ix.terms.shards[shardOf(h)]
		before := t.n
		id := t.intern(h, text)
		if t.n == before {
			return fmt.Errorf("%w: term %q twice", ErrSnapshot, text)
		}
		*t.post(id) = p
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
		v, n := binary.Uvarint(b[i:])
		if n <= 0 {
			return errors.New("bad posting")
		}
		i += n
		if count > 0 && v>>1 == 0 {
			return errors.New("slots not increasing")
		}
		slot += v >> 1
		if slot >= uint64(nSlots) {
			return errors.New("slot out of range")
		}
		if v&1 != 0 {
			if i+3 > len(b) {
				return errors.New("truncated posting")
			}
			i += 3
		}
		tf, n := binary.Uvarint(b[i:])
		if n <= 0 || tf > maxTF {
			return errors.New("bad term frequency")
		}
		i += n
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
	ix.slotOf = map[DocID]uint32{}
	ix.live, ix.dead, ix.lenSum = 0, 0, [numFields]float64{}
	ix.short = shortTerms{}
	ix.gen++
}
