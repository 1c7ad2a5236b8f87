package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// rebuildShort rebuilds every slot's short-field terms from the postings,
// for an index read from a snapshot: the same lists Put would have made,
// since their choice does not depend on the order of terms.
func (ix *Index) rebuildShort() {
	per := make([][]docEnt, len(ix.ids))
	var buf []byte
	for sh := range ix.terms.shards {
		t := &ix.terms.shards[sh]
		for id := range t.n {
			text := t.arena[t.offs[id]:t.offs[id+1]]
			var start, end uint32
			t.post(id).each(func(slot uint32, tf [numFields]uint8) {
				if !isShort(tf) {
					return
				}
				if end == 0 {
					start = uint32(len(buf))
					buf = append(buf, text...)
					end = uint32(len(buf))
				}
				per[slot] = append(per[slot], docEnt{start: start, end: end, tf: tf})
			})
		}
	}
	ix.short = shortTerms{}
	for _, ents := range per {
		ix.short.add(ents, buf)
	}
}

// snapshotCorpus is an index with replacements and deletions, so that the
// snapshot carries retired slots too.
func snapshotCorpus(t testing.TB) (*Index, []string) {
	t.Helper()
	entries, queries := synthCorpus(1500)
	ix := New()
	ix.PutBatch(entries)
	for i := DocID(0); i < 200; i += 3 {
		ix.Put(i, Doc{Title: "replaced 替换", Body: "kiwi 猕猴桃 OrderCreated"})
		ix.Delete(i + 1)
	}
	return ix, append(queries, "kiwi", "猕猴桃", "OrderCreated", "替换")
}

func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	ix, queries := snapshotCorpus(t)
	var buf bytes.Buffer
	n, err := ix.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) {
		t.Errorf("WriteTo returned %d, wrote %d bytes", n, buf.Len())
	}
	loaded := New()
	m, err := loaded.ReadFrom(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if m != n {
		t.Errorf("ReadFrom read %d bytes, want %d", m, n)
	}
	if loaded.Len() != ix.Len() {
		t.Fatalf("Len = %d, want %d", loaded.Len(), ix.Len())
	}
	// The short-field terms the snapshot carries are the ones the
	// postings give (what version 1 rebuilt them from).
	rebuilt := &Index{ids: loaded.ids, terms: loaded.terms}
	rebuilt.rebuildShort()
	if diff := cmp.Diff(rebuilt.short, loaded.short, cmp.AllowUnexported(shortTerms{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("short terms (-from postings +from snapshot):\n%s", diff)
	}
	for _, q := range queries {
		want, got := ix.Search(Query{Text: q, Limit: 10}), loaded.Search(Query{Text: q, Limit: 10})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Search(%q) after reload (-built +loaded):\n%s", q, diff)
		}
	}
	// The loaded index keeps working: updates, compaction, search.
	loaded.Put(5000, Doc{Title: "after reload", Body: "pomegranate"})
	loaded.Put(0, Doc{Title: "replaced again", Body: "pomegranate"})
	if got := ids(loaded.Search(Query{Text: "pomegranate"})); !cmp.Equal(got, []DocID{0, 5000}) {
		t.Errorf("after updates: got %v, want [0 5000]", got)
	}
	loaded.compact()
	if got := ids(loaded.Search(Query{Text: "kiwi", Limit: 100})); len(got) != 66 {
		t.Errorf("kiwi after compaction: %d hits, want 66", len(got))
	}
}

// TestSnapshotTablesInPlace loads a snapshot whose bytes are aligned, so
// that its term tables are used in place, and one whose bytes are not, so
// that they are copied: both must answer as the index written, and
// neither the searches nor the updates after the load may write to the
// snapshot's bytes (a mapped cache is read-only memory).
func TestSnapshotTablesInPlace(t *testing.T) {
	t.Parallel()
	ix, queries := snapshotCorpus(t)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	for _, offset := range []int{0, 1} {
		// A fresh allocation is 8-byte aligned: offset 1 is not.
		data := make([]byte, offset+buf.Len())[offset:]
		copy(data, buf.Bytes())
		loaded := New()
		if err := loaded.LoadSnapshot(data); err != nil {
			t.Fatal(err)
		}
		if wantShared := offset == 0 && littleEndian; loaded.terms.shards[0].shared != wantShared {
			t.Errorf("offset %d: slots used in place = %v, want %v", offset, !wantShared, wantShared)
		}
		if loaded.terms.key != ix.terms.key {
			t.Errorf("offset %d: hash key not restored", offset)
		}
		for _, q := range queries {
			want, got := ix.Search(Query{Text: q, Limit: 10}), loaded.Search(Query{Text: q, Limit: 10})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("offset %d: Search(%q) (-built +loaded):\n%s", offset, q, diff)
			}
		}
		// New terms in every shard, and new postings of old ones.
		for i := range 200 {
			loaded.Put(DocID(10000+i), Doc{Title: fmt.Sprintf("zqnew%d 新词%d", i, i), Body: "kiwi 猕猴桃"})
		}
		if !bytes.Equal(data, buf.Bytes()) {
			t.Fatalf("offset %d: the index wrote into the snapshot's bytes", offset)
		}
		for i := range 200 {
			q := fmt.Sprintf("zqnew%d", i)
			if got := ids(loaded.Search(Query{Text: q})); !cmp.Equal(got, []DocID{DocID(10000 + i)}) {
				t.Fatalf("offset %d: %s finds %v", offset, q, got)
			}
		}
		for sh := range loaded.terms.shards {
			if loaded.terms.shards[sh].shared {
				t.Errorf("offset %d: shard %d still shares its slots after adding terms", offset, sh)
			}
		}
	}
}

func TestSnapshotRejectsDamage(t *testing.T) {
	t.Parallel()
	ix, _ := snapshotCorpus(t)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"wrong magic", append([]byte("XXXX"), good[4:]...)},
		{"truncated", good[:len(good)/2]},
		{"missing checksum", good[:len(good)-4]},
		{"flipped byte", func() []byte {
			b := bytes.Clone(good)
			b[len(b)/3] ^= 0x40
			return b
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loaded := New()
			_, err := loaded.ReadFrom(bytes.NewReader(tt.data))
			if !errors.Is(err, ErrSnapshot) {
				t.Fatalf("ReadFrom error = %v, want ErrSnapshot", err)
			}
			if loaded.Len() != 0 || len(loaded.ids) != 0 {
				t.Errorf("failed ReadFrom left %d docs behind", loaded.Len())
			}
			if got := loaded.Search(Query{Text: "kiwi"}); got != nil {
				t.Errorf("failed ReadFrom left searchable docs: %v", ids(got))
			}
		})
	}
	t.Run("not empty", func(t *testing.T) {
		if _, err := ix.ReadFrom(bytes.NewReader(good)); !errors.Is(err, ErrNotEmpty) {
			t.Errorf("ReadFrom into a full index: %v, want ErrNotEmpty", err)
		}
	})
}

func FuzzReadFrom(f *testing.F) {
	ix := New()
	for i, s := range fuzzSeeds(f) {
		ix.Put(DocID(i), Doc{Title: s, Body: s})
	}
	ix.Delete(1)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(snapshotMagic))
	d, err := parseDictionary(defaultTerms)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A snapshot's checksum would stop almost every mutation: set
		// it, so that the checks behind it are what is fuzzed.
		if len(data) >= len(snapshotMagic)+4 {
			body := data[:len(data)-4]
			binary.LittleEndian.PutUint32(data[len(body):], crc32.ChecksumIEEE(body))
		}
		loaded := newIndex(defaultParams(), d)
		if _, err := loaded.ReadFrom(bytes.NewReader(data)); err != nil {
			if !errors.Is(err, ErrSnapshot) {
				t.Fatalf("ReadFrom error %v does not wrap ErrSnapshot", err)
			}
			return
		}
		// Whatever loaded must be safe to search and update.
		for _, q := range []string{"订单", "deploy", "OrderCreated", "3.8"} {
			loaded.Search(Query{Text: q})
		}
		loaded.Put(1<<20, Doc{Title: "订单 deploy", Body: "OrderCreated 3.8"})
		loaded.Search(Query{Text: "订单 deploy"})
	})
}

// TestPostingValidate checks the posting list check a snapshot load
// relies on: lists that add writes pass, with every kind of posting (one-
// and two-byte tfs, field tfs, long slot gaps), and every cut short or
// reaching past the slots fails.
func TestPostingValidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var p postingList
		slot := uint32(0)
		for k := range 1 + rng.IntN(40) {
			if k > 0 || rng.IntN(2) == 0 {
				slot += 1 + uint32(rng.IntN(1<<uint(1+rng.IntN(20))))
			}
			var tf [numFields]uint8
			tf[fieldBody] = uint8(rng.IntN(256))
			if rng.IntN(3) == 0 {
				tf[fieldTitle], tf[fieldTags] = 1+uint8(rng.IntN(255)), uint8(rng.IntN(256))
			}
			p.add(slot, tf)
		}
		nSlots := int(slot) + 1
		if err := p.validate(nSlots); err != nil {
			t.Fatalf("round %d: a list add wrote fails: %v", round, err)
		}
		if err := p.validate(nSlots - 1); err == nil {
			t.Fatalf("round %d: a slot past the end passes", round)
		}
		for cut := range len(p.data) {
			q := postingList{data: p.data[:cut], df: p.df, last: p.last}
			if err := q.validate(nSlots); err == nil {
				t.Fatalf("round %d: the list cut to %d of %d bytes passes", round, cut, len(p.data))
			}
		}
	}
}

// TestSnapshotBadList loads a snapshot one of whose posting lists is
// damaged behind a valid checksum: the load succeeds (lists are checked
// when first used), the damaged term finds nothing while the others
// answer as before, and a change or a new snapshot treats the list as
// empty.
func TestSnapshotBadList(t *testing.T) {
	t.Parallel()
	ix, queries := snapshotCorpus(t)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	probe := New()
	if err := probe.LoadSnapshot(data); err != nil {
		t.Fatal(err)
	}
	pl := probe.terms.get("kiwi")
	if pl == nil || len(pl.data) < 2 {
		t.Fatal("no posting list for kiwi")
	}
	off := int(uintptr(unsafe.Pointer(&pl.data[0])) - uintptr(unsafe.Pointer(&data[0])))
	bad := bytes.Clone(data)
	bad[off+len(pl.data)-1] = 0x80 // the last body tf now runs past the list
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], crc32.ChecksumIEEE(bad[:len(bad)-4]))

	for _, change := range []string{"search", "put", "write"} {
		loaded := New()
		if err := loaded.LoadSnapshot(bad); err != nil {
			t.Fatalf("%s: load: %v", change, err)
		}
		switch change {
		case "put":
			loaded.Put(9999, Doc{Title: "kiwi again"})
		case "write":
			var again bytes.Buffer
			if _, err := loaded.WriteTo(&again); err != nil {
				t.Fatal(err)
			}
			loaded = New()
			if err := loaded.LoadSnapshot(again.Bytes()); err != nil {
				t.Fatalf("reload of a snapshot written after a bad list: %v", err)
			}
			loaded.terms.checkAll(loaded.noteRead)
			if p := loaded.terms.get("kiwi"); p == nil || p.df != 0 {
				t.Fatalf("the bad list was written as %+v, want empty", p)
			}
		}
		got := ids(loaded.Search(Query{Text: "kiwi", Limit: 100}))
		want := []DocID(nil)
		if change == "put" {
			want = []DocID{9999}
		}
		if !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
			t.Errorf("%s: kiwi finds %v, want %v", change, got, want)
		}
		if change == "put" {
			continue // the new document changes the statistics
		}
		for _, q := range queries {
			if strings.Contains(q, "kiwi") {
				continue
			}
			w, g := ix.Search(Query{Text: q, Limit: 10}), loaded.Search(Query{Text: q, Limit: 10})
			if diff := cmp.Diff(w, g); diff != "" {
				t.Fatalf("%s: Search(%q) (-built +loaded):\n%s", change, q, diff)
			}
		}
	}
}

// TestLoadCheckedSnapshot checks that LoadCheckedSnapshot skips only the
// snapshot's own checksum: a snapshot whose checksum is wrong loads and
// answers as written, a damaged structure is still refused.
func TestLoadCheckedSnapshot(t *testing.T) {
	t.Parallel()
	ix, queries := snapshotCorpus(t)
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes())
	binary.LittleEndian.PutUint32(data[len(data)-4:], 0xdeadbeef)
	if err := New().LoadSnapshot(data); !errors.Is(err, ErrSnapshot) {
		t.Fatalf("LoadSnapshot with a wrong checksum: %v, want ErrSnapshot", err)
	}
	loaded := New()
	if err := loaded.LoadCheckedSnapshot(data); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if diff := cmp.Diff(ix.Search(Query{Text: q, Limit: 10}), loaded.Search(Query{Text: q, Limit: 10})); diff != "" {
			t.Fatalf("Search(%q) (-built +loaded):\n%s", q, diff)
		}
	}
	for _, cut := range []int{len(data) / 3, len(data) / 2, len(data) - 5} {
		damaged := append(bytes.Clone(data[:cut]), 0, 0, 0, 0)
		l := New()
		if err := l.LoadCheckedSnapshot(damaged); !errors.Is(err, ErrSnapshot) || l.Len() != 0 {
			t.Errorf("cut at %d: %v, %d documents; want ErrSnapshot, none", cut, err, l.Len())
		}
	}
}

// TestSnapshotSlotsByID checks that a snapshot of a bulk build, whose
// slot s holds document s, loads without its slot map (slotsByID) and
// answers as the index written: explanations, which look documents up by
// id, including an id it does not hold; then a delete, a replacement and
// an addition, which build the map first. A snapshot with retired slots
// loads the map as before.
func TestSnapshotSlotsByID(t *testing.T) {
	t.Parallel()
	entries, queries := synthCorpus(600)
	ix := New()
	ix.PutBatch(entries)
	load := func(t *testing.T, ix *Index) *Index {
		t.Helper()
		var buf bytes.Buffer
		if _, err := ix.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		loaded := New()
		if err := loaded.LoadSnapshot(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		return loaded
	}
	loaded := load(t, ix)
	if !loaded.slotsByID || len(loaded.slotOf) != 0 {
		t.Fatalf("bulk build loaded with slotsByID %v and %d map entries; want true, 0", loaded.slotsByID, len(loaded.slotOf))
	}
	same := func(t *testing.T, when string) {
		t.Helper()
		for _, q := range queries[:8] {
			if diff := cmp.Diff(ix.Search(Query{Text: q, Limit: 10}), loaded.Search(Query{Text: q, Limit: 10})); diff != "" {
				t.Fatalf("%s: Search(%q) (-written +loaded):\n%s", when, q, diff)
			}
			for _, id := range []DocID{0, 3, 7, 97, 599, 600, 9999} {
				if diff := cmp.Diff(ix.Explain(q, id), loaded.Explain(q, id)); diff != "" {
					t.Fatalf("%s: Explain(%q, %d) (-written +loaded):\n%s", when, q, id, diff)
				}
			}
		}
	}
	same(t, "after the load")
	for _, x := range []*Index{ix, loaded} {
		x.Delete(7)
		x.Put(3, Doc{Title: "replaced 替换", Body: queries[0]})
		x.Put(9999, Doc{Title: "added", Body: queries[1]})
	}
	if loaded.slotsByID {
		t.Error("slotsByID still set after changes")
	}
	same(t, "after a delete, a replacement and an addition")
	retired, _ := snapshotCorpus(t)
	if l := load(t, retired); l.slotsByID || len(l.slotOf) != retired.Len() {
		t.Errorf("snapshot with retired slots: slotsByID %v, %d map entries; want false, %d", l.slotsByID, len(l.slotOf), retired.Len())
	}
}
