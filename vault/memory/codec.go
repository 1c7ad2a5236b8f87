package memory

import (
	"encoding/hex"
	"unsafe"

	"github.com/memvault/memvault/vault/load"
	"github.com/memvault/memvault/vault/store"
	"github.com/memvault/memvault/vault/title"
)

// IndexCodec is the index cache's codec of a Memory: the fields its file
// gave. It allocates the decoded memories' short hashes together.
type IndexCodec struct {
	hashes []byte
}

func (c *IndexCodec) Prepare(mems []Memory) {
	c.hashes = make([]byte, len(mems)*hashLen)
	for i := range mems { // numbers first: see load.readCachedFiles
		mems[i].Version = 0
	}
}

func (*IndexCodec) Body(m *Memory) *string { return &m.Body }

func (*IndexCodec) Encode(w *store.Writer, m *Memory, off int) {
	w.Str(m.ID)
	w.Str(m.Title)
	w.Uv(uint64(m.Layer))
	w.Sv(int64(m.Importance))
	w.Strs(m.Tags)
	w.Strs(m.Aliases)
	w.Tm(m.CreatedAt)
	w.Tm(m.UpdatedAt)
	w.Tm(m.EffectiveAt)
	w.Tm(m.ExpiresAt)
	w.Str(string(m.Status))
	w.Strs(m.Supersedes)
	w.Strs(m.Links)
	w.Strs(m.Refs)
	w.Tm(m.VerifiedAt)
	w.Str(m.Source.Client)
	w.Str(m.Source.Kind)
	w.Sv(int64(m.Version))
	w.Uv(uint64(off))
	w.Uv(uint64(len(m.Body)))
	w.Strs(m.WikiLinks)
	w.Sv(int64(m.idLine))
	w.Sv(int64(m.supersedesLine))
	w.Sv(int64(m.linksLine))
	w.Sv(int64(m.statusLine))
}

func (c *IndexCodec) Decode(r *store.Reader, i int, rec *store.Record[Memory], m *Memory) (off, n uint64) {
	*m = Memory{ID: r.Str(), Title: r.Str(), Layer: Layer(r.Uv()), Importance: int(r.Sv()),
		Tags: r.Strs(), Aliases: r.Strs(), CreatedAt: r.Tm(), UpdatedAt: r.Tm(), EffectiveAt: r.Tm(),
		ExpiresAt: r.Tm(), Status: Status(r.Str()), Supersedes: r.Strs(), Links: r.Strs(), Refs: r.Strs(),
		VerifiedAt: r.Tm(), Source: Source{Client: r.Str(), Kind: r.Str()}, Version: int(r.Sv())}
	off, n = r.Uv(), r.Uv()
	m.WikiLinks = r.Strs()
	m.idLine, m.supersedesLine, m.linksLine, m.statusLine = int(r.Sv()), int(r.Sv()), int(r.Sv()), int(r.Sv())
	if r.Err() != nil {
		return 0, 0
	}
	if _, err := ParseStatus(string(m.Status)); err != nil || m.Status == "" || !m.Layer.Valid() || m.ID == "" {
		r.Fail("record %q is not a memory the loader makes", rec.Rel)
		return 0, 0
	}
	h := c.hashes[i*hashLen : (i+1)*hashLen]
	hex.Encode(h, rec.Sum[:hashLen/2])
	m.Path, m.Hash = rec.Rel, unsafe.String(&h[0], hashLen) // h never changes
	return off, n
}

// header is a copy of m with what a headers-only vault keeps.
func (m *Memory) Header() *Memory {
	return &Memory{ID: m.ID, Title: m.Title, Layer: m.Layer, Importance: m.Importance,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, EffectiveAt: m.EffectiveAt, ExpiresAt: m.ExpiresAt,
		Status: m.Status, Supersedes: m.Supersedes, Version: m.Version, Path: m.Path, idLine: m.idLine,
		Damaged: m.Damaged, Redacted: m.Redacted}
}

// HeaderEntry is one file of the header cache.
type HeaderEntry = load.Header[Memory, title.Title]

// HeaderCodec is the header cache's codec of an entry: its stat key, its
// memory's header fields and its title's signature. It allocates the
// decoded memories together.
type HeaderCodec struct {
	mems []Memory
}

func (c *HeaderCodec) Prepare(n int) { c.mems = make([]Memory, n) }

func (*HeaderCodec) Encode(w *store.Writer, e *HeaderEntry) {
	m := e.Mem
	w.Stat(e.Key)
	w.Str(m.Path)
	w.Str(m.ID)
	w.Str(m.Title)
	w.Uv(uint64(m.Layer))
	w.Sv(int64(m.Importance))
	w.Tm(m.CreatedAt)
	w.Tm(m.UpdatedAt)
	w.Tm(m.EffectiveAt)
	w.Tm(m.ExpiresAt)
	w.Str(string(m.Status))
	w.Sv(int64(m.Version))
	w.Uv(uint64(m.idLine))
	w.Strs(m.Supersedes)
	key, neg, toks := e.Sig.Parts()
	w.Str(key)
	w.Byte(boolByte(neg))
	w.Strs(toks)
}

func (c *HeaderCodec) Decode(r *store.Reader, i int, e *HeaderEntry) {
	m := &c.mems[i]
	e.Key = r.Stat()
	m.Path, m.ID, m.Title = r.Str(), r.Str(), r.Str()
	m.Layer = Layer(r.Uv())
	m.Importance = int(r.Sv())
	m.CreatedAt, m.UpdatedAt, m.EffectiveAt, m.ExpiresAt = r.Tm(), r.Tm(), r.Tm(), r.Tm()
	m.Status = Status(r.Str())
	m.Version = int(r.Sv())
	m.idLine = int(r.Uv())
	m.Supersedes = r.Strs()
	key, neg := r.Str(), false
	if b := r.Bytes(1); b != nil {
		neg = b[0] == 1
	}
	e.Sig = title.FromParts(key, neg, r.Strs())
	e.Mem = m
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
