package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
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
	snapshotVersion = 1
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
// and posting bytes; finally the CRC-32 (IEEE) of everything before it.
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

// snapReader reads a snapshot, hashing what it reads for the final check.
type snapReader struct {
	r   *bufio.Reader
	crc hash.Hash32
	n   int64
	err error
	one [1]byte
}

func (s *snapReader) ReadByte() (byte, error) {
	if s.err != nil {
		return 0, s.err
	}
	b, err := s.r.ReadByte()
	if err != nil {
		s.err = err
		return 0, err
	}
	s.n++
	s.one[0] = b
	s.crc.Write(s.one[:])
	return b, nil
}

func (s *snapReader) full(b []byte) {
	if s.err != nil {
		return
	}
	n, err := io.ReadFull(s.r, b)
	s.n += int64(n)
	s.crc.Write(b[:n])
	s.err = err
}

func (s *snapReader) uv(max uint64) uint64 {
	if s.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(s)
	if err != nil {
		s.err = err
		return 0
	}
	if v > max {
		s.err = fmt.Errorf("%w: value %d exceeds %d", ErrSnapshot, v, max)
		return 0
	}
	return v
}

// ReadFrom loads a snapshot written by WriteTo into ix, which must be
// empty. Everything is validated before use, so a damaged or hostile
// snapshot yields an error wrapping ErrSnapshot, never a corrupt index;
// on error ix is left empty.
func (ix *Index) ReadFrom(r io.Reader) (int64, error) {
	if len(ix.ids) != 0 {
		return 0, ErrNotEmpty
	}
	sr := &snapReader{r: bufio.NewReaderSize(r, 1<<16), crc: crc32.NewIEEE()}
	n, err := ix.readSnapshot(sr)
	if err != nil {
		ix.clear()
		if !errors.Is(err, ErrSnapshot) {
			err = fmt.Errorf("%w: %w", ErrSnapshot, err)
		}
		return n, fmt.Errorf("read index snapshot: %w", err)
	}
	return n, nil
}

func (ix *Index) readSnapshot(sr *snapReader) (int64, error) {
	var magic [len(snapshotMagic)]byte
	sr.full(magic[:])
	if sr.err == nil && string(magic[:]) != snapshotMagic {
		return sr.n, fmt.Errorf("%w: not an index snapshot", ErrSnapshot)
	}
	if v := sr.uv(1 << 20); sr.err == nil && v != snapshotVersion {
		return sr.n, fmt.Errorf("%w: version %d, want %d", ErrSnapshot, v, snapshotVersion)
	}
	nSlots := int(sr.uv(maxSnapshotDocs))
	live := int(sr.uv(maxSnapshotDocs))
	dead := int(sr.uv(maxSnapshotDocs))
	total := int(sr.uv(1 << 40))
	if sr.err != nil {
		return sr.n, sr.err
	}
	if live+dead != nSlots {
		return sr.n, fmt.Errorf("%w: %d live + %d dead != %d slots", ErrSnapshot, live, dead, nSlots)
	}

	// Slots. Allocate as data arrives, so a lying header cannot make us
	// reserve gigabytes up front.
	row := make([]byte, 4+1+numFields)
	nLive := 0
	for s := 0; s < nSlots; s++ {
		sr.full(row)
		if sr.err != nil {
			return sr.n, sr.err
		}
		id := DocID(binary.LittleEndian.Uint32(row))
		alive := row[4] == 1
		if row[4] > 1 {
			return sr.n, fmt.Errorf("%w: slot %d has live flag %d", ErrSnapshot, s, row[4])
		}
		ix.ids = append(ix.ids, id)
		ix.alive = append(ix.alive, alive)
		for f := range ix.lens {
			ix.lens[f] = append(ix.lens[f], row[5+f])
		}
		if alive {
			if _, dup := ix.slotOf[id]; dup {
				return sr.n, fmt.Errorf("%w: document %d is live twice", ErrSnapshot, id)
			}
			ix.slotOf[id] = uint32(s)
			nLive++
		}
	}
	if nLive != live {
		return sr.n, fmt.Errorf("%w: %d live slots, header says %d", ErrSnapshot, nLive, live)
	}
	ix.live, ix.dead = live, dead
	recomputeSums(ix)

	// Terms and their postings, each validated against the slots.
	nTerms := int(sr.uv(1 << 40))
	// A posting takes at most 10 bytes, so no list can be longer than
	// maxList; the slots were all read, so this bounds every allocation
	// by data actually present.
	maxList := 10*nSlots + 16
	var slab []byte
	var text []byte
	for k := 0; k < nTerms && sr.err == nil; k++ {
		tl := int(sr.uv(maxCompoundBytes))
		if sr.err == nil && tl == 0 {
			return sr.n, fmt.Errorf("%w: empty term", ErrSnapshot)
		}
		if cap(text) < tl {
			text = make([]byte, tl)
		}
		text = text[:tl]
		sr.full(text)
		df := uint32(sr.uv(uint64(nSlots)))
		last := uint32(sr.uv(uint64(nSlots)))
		dl := int(sr.uv(uint64(min(total, maxList))))
		if sr.err != nil {
			break
		}
		if len(slab)+dl > cap(slab) {
			slab = make([]byte, 0, max(dl, min(total, 1<<20)))
		}
		start := len(slab)
		slab = slab[:start+dl]
		data := slab[start : start+dl : start+dl]
		sr.full(data)
		if sr.err != nil {
			break
		}
		p := postingList{data: data, df: df, last: last}
		if err := p.validate(nSlots); err != nil {
			return sr.n, fmt.Errorf("%w: term %q: %w", ErrSnapshot, text, err)
		}
		h := ix.terms.hash(text)
		t := &ix.terms.shards[shardOf(h)]
		before := t.n
		id := t.intern(h, text)
		if t.n == before {
			return sr.n, fmt.Errorf("%w: term %q twice", ErrSnapshot, text)
		}
		*t.post(id) = p
	}
	if sr.err != nil {
		return sr.n, sr.err
	}
	want := sr.crc.Sum32()
	var sum [4]byte
	if _, err := io.ReadFull(sr.r, sum[:]); err != nil {
		return sr.n, err
	}
	sr.n += 4
	if binary.LittleEndian.Uint32(sum[:]) != want {
		return sr.n, fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
	return sr.n, nil
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
}
