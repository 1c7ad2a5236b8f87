package histindex

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// The index is saved in the git folder (memvault/history-*.idx, see
// gitrepo) so that only the first process in a clone walks the whole
// history; later ones read the file and the commits since its tip.
//
// The file is: the magic line, then in uvarints and length-prefixed
// strings the prefix, the trailer key, the tip, the paths, the commits
// (id as 20 bytes, commit time, parents, per parent the changed paths'
// numbers as deltas, trailer values), and a SHA-256 of all that. A file
// that does not decode is ignored: the index is built again.
const magic = "memvault history index 1\n"

// errDamaged reports an index file that does not decode; it reaches no
// door (a damaged file is built again), so it has no fault kind.
var errDamaged = errors.New("history index file damaged")

// Encode serialises the snapshot.
func (s *Snapshot) Encode() []byte {
	var b []byte
	b = append(b, magic...)
	str := func(v string) {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	str(s.prefix)
	str(s.key)
	str(s.tip)
	b = binary.AppendUvarint(b, uint64(len(s.paths)))
	for _, p := range s.paths {
		str(p)
	}
	b = binary.AppendUvarint(b, uint64(len(s.commits)))
	for _, c := range s.commits {
		id, _ := hex.DecodeString(c.hash)
		b = append(b, id...)
		b = binary.AppendVarint(b, c.when)
		b = binary.AppendUvarint(b, uint64(len(c.parents)))
		for _, p := range c.parents {
			b = binary.AppendUvarint(b, uint64(p))
		}
		b = binary.AppendUvarint(b, uint64(len(c.changed)))
		for _, l := range c.changed {
			b = binary.AppendUvarint(b, uint64(len(l)))
			prev := int32(0)
			for _, pn := range l {
				b = binary.AppendUvarint(b, uint64(pn-prev))
				prev = pn
			}
		}
		b = binary.AppendUvarint(b, uint64(len(c.trailers)))
		for _, t := range c.trailers {
			str(t)
		}
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// decoder reads Encode's format, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errDamaged, what)
	}
}

func (d *decoder) uint(max uint64, what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > max {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail(what)
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) str(what string) string {
	n := d.uint(uint64(len(d.b)), what)
	return string(d.bytes(int(n), what))
}

// Decode reads a snapshot Encode wrote; the error says what is wrong when
// data is not one.
func Decode(data []byte) (*Snapshot, error) {
	if len(data) < len(magic)+sha256.Size || !bytes.HasPrefix(data, []byte(magic)) {
		return nil, fmt.Errorf("%w: not an index file", errDamaged)
	}
	body := data[:len(data)-sha256.Size]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], data[len(body):]) {
		return nil, fmt.Errorf("%w: checksum", errDamaged)
	}
	d := &decoder{b: body[len(magic):]}
	s := &Snapshot{prefix: d.str("prefix"), key: d.str("key"), tip: d.str("tip")}
	// Every count is bounded by the bytes left: each item takes one.
	np := d.uint(uint64(len(d.b)), "path count")
	s.paths, s.pathNum = make([]string, 0, np), make(map[string]int32, np)
	for range np {
		p := d.str("path")
		if _, dup := s.pathNum[p]; dup || d.err != nil {
			d.fail("path")
			break
		}
		s.pathNum[p] = int32(len(s.paths))
		s.paths = append(s.paths, p)
	}
	nc := d.uint(uint64(len(d.b))/20, "commit count")
	s.commits, s.nums = make([]commit, 0, nc), make(map[string]int, nc)
	for range nc {
		var c commit
		c.hash = hex.EncodeToString(d.bytes(20, "commit id"))
		if d.err == nil {
			v, n := binary.Varint(d.b)
			if n <= 0 {
				d.fail("commit time")
			} else {
				c.when, d.b = v, d.b[n:]
			}
		}
		c.parents = make([]int, d.uint(uint64(len(d.b)), "parent count"))
		for i := range c.parents {
			c.parents[i] = int(d.uint(nc-1, "parent"))
		}
		c.changed = make([][]int32, d.uint(uint64(len(d.b)), "list count"))
		if len(c.changed) != max(len(c.parents), 1) {
			d.fail("list count")
		}
		for i := range c.changed {
			l := make([]int32, d.uint(uint64(len(d.b)), "path list"))
			prev := uint64(0)
			for j := range l {
				prev += d.uint(math.MaxInt32, "path number")
				if prev >= np || (j > 0 && prev == uint64(l[j-1])) {
					d.fail("path number")
					break
				}
				l[j] = int32(prev)
			}
			c.changed[i] = l
		}
		c.trailers = make([]string, d.uint(uint64(len(d.b)), "trailer count"))
		for i := range c.trailers {
			c.trailers[i] = d.str("trailer")
		}
		if d.err != nil {
			break
		}
		if _, dup := s.nums[c.hash]; dup {
			d.fail("commit id repeated")
			break
		}
		s.nums[c.hash] = len(s.commits)
		s.commits = append(s.commits, c)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if _, ok := s.nums[s.tip]; d.err == nil && s.tip != "" && !ok {
		d.fail("tip not held")
	}
	if d.err != nil {
		return nil, d.err
	}
	return s, nil
}

// Load replaces the index with the snapshot saved at path, if there is
// one for the same prefix and key; a missing or damaged file leaves the
// index as it is (it is only a cache).
func (x *Index) Load(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s, err := Decode(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if s.prefix != x.prefix || s.key != x.key {
		return fmt.Errorf("%s: %w: made for %q, %q", path, errDamaged, s.prefix, s.key)
	}
	x.update.Lock()
	defer x.update.Unlock()
	x.cur.Store(s)
	return nil
}

// Save writes the snapshot to path atomically (temporary file, rename).
func (s *Snapshot) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".history-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(s.Encode())
	cerr := f.Close()
	if werr == nil && cerr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("save history index %s: %w", path, errors.Join(werr, cerr))
	}
	return nil
}
