package vault

import (
	"context"
	"encoding/hex"
	"errors"
	"time"
	"unsafe"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/load"
	"github.com/memvault/memvault/vault/store"
	"github.com/memvault/memvault/vault/title"
)

// Loading is vault/load's: the files listed, taken from the caches or
// read, in one load whatever the mode. This file is the vault's side of
// it: the rules a file's bytes become a memory by (memRules), the builder
// of the vault's new state (loadSink) and the caches' codecs of a Memory.

// loaded is one file as the builder takes it: read now, taken from the
// index cache, or from a snapshot's files.
type loaded struct {
	rel   string
	mem   *Memory // nil when the file could not be used at all
	diags []*Diagnostic
	prep  *index.Prepared // mem analysed for the index being built, or nil
	// mapped says mem came from the index cache: its strings point into
	// the cache's data, not into copies of their own.
	mapped bool
}

// loadFile is a load's file as the builder takes it.
func loadFile(f *load.File[Memory, titleSig]) loaded {
	return loaded{rel: f.Rel, mem: f.Mem, diags: f.Diags, prep: f.Prep, mapped: f.Mapped}
}

// loadConfig is load.Config for the vault's memories.
type loadConfig = load.Config[Memory, titleSig]

// loadConfig is how v loads: Open's settings, or, for a vault Open did
// not make (a snapshot), its folder read without caches.
func (v *Vault) loadConfig() loadConfig {
	if v.load.cfg.Rules != nil {
		return v.load.cfg
	}
	return loadConfig{Dir: v.dir, MaxFileSize: v.maxFileSize, Rules: memRules{v}, Linked: errLinked}
}

// memRules are the vault's rules as the loader asks them (see
// load.Rules).
type memRules struct{ v *Vault }

// Parse makes the memory of a file's bytes. A file holding conflict
// markers is served as last committed (labelled conflicted), a damaged
// one as its last committed version that parses (labelled damaged);
// served is then those bytes.
func (r memRules) Parse(ctx context.Context, rel string, data []byte, modTime time.Time, ps *parser.Scratch) (m *Memory, diags []*Diagnostic, served []byte) {
	m, diags = toMemoryScratch(rel, data, modTime, ps)
	if m == nil && r.v.ports.committed != nil && len(diags) == 1 && errors.Is(diags[0].Err, ErrConflictMarkers) {
		if head, err := r.v.ports.committed.ReadCommitted(ctx, rel); err == nil {
			m, served = servedForMarkers(rel, head, data, modTime), head
		}
	}
	if d := damage(diags); d != nil {
		m, served = r.v.servedForDamage(ctx, rel, d, data, modTime)
	}
	return m, diags, served
}

func (memRules) Doc(m *Memory) index.Doc   { return indexDoc(m) }
func (memRules) Path(m *Memory) string     { return m.Path }
func (memRules) Stale(m *Memory) bool      { return m.Stale }
func (memRules) Conflicted(m *Memory) bool { return len(m.Conflicted) > 0 }

func (memRules) Header(m *Memory) (*Memory, titleSig) {
	h := m.header()
	return h, newTitleSig(h.Title)
}

func (memRules) IndexCodec() store.Codec[Memory]             { return &memCodec{} }
func (memRules) HeaderCodec() store.HeaderCodec[headerEntry] { return &headerCodec{} }

// loadSink builds the vault's new state from a load (see load.Sink).
type loadSink struct {
	v    *Vault
	b    *builder
	sigs []titledSig // a headers-only load's, by DocID
}

func (s *loadSink) Begin(n int, ix *index.Index) {
	s.b = s.v.newBuilder(n, ix)
	if s.v.headersOnly {
		s.sigs = make([]titledSig, 0, n)
	}
}

func (s *loadSink) Add(f *load.File[Memory, titleSig]) {
	n := len(s.b.entries)
	s.b.add(loadFile(f))
	if s.v.headersOnly && len(s.b.entries) > n { // entry n is f's memory
		var sig titleSig
		if f.Sig != nil {
			sig = *f.Sig
		}
		s.sigs = append(s.sigs, titledSig{s.b.entries[n], sig})
	}
}

func (s *loadSink) Built() []*Memory { return s.b.entries }

func (s *loadSink) Install(ctx context.Context) []index.DocID {
	s.v.installBuilt(s.b)
	swaps := s.v.preferTracked(ctx, s.b.skipped)
	if s.v.headersOnly {
		s.v.mu.Lock()
		s.v.load.titleSigs = s.sigs
		s.v.mu.Unlock()
	}
	return swaps
}

func (s *loadSink) Entry(d index.DocID) *Memory {
	s.v.mu.RLock()
	defer s.v.mu.RUnlock()
	return s.v.entries[d]
}

func (s *loadSink) UseIndex(ix *index.Index, built []*Memory) {
	for _, m := range built {
		m.text = "" // indexed: PlainText derives it again when needed
	}
	s.v.mu.Lock()
	s.v.ix = ix
	s.v.mu.Unlock()
}

func (s *loadSink) WithIndex(fn func(ix *index.Index)) {
	s.v.mu.RLock()
	defer s.v.mu.RUnlock()
	fn(s.v.ix)
}

// loadAll loads the whole vault with c, records what the load did and
// tells the subscribers.
func (v *Vault) loadAll(ctx context.Context, c *loadConfig) error {
	st, err := load.Load(ctx, c, &loadSink{v: v})
	if err != nil {
		return err
	}
	if c.Mode == load.Headers {
		v.load.noTempFiles.Store(!st.TempFiles)
	}
	if c.Mode == load.Headers || c.IndexCache != "" {
		v.mu.Lock()
		v.load.stats = st
		v.mu.Unlock()
	}
	v.publish(Change{Full: true})
	return nil
}

// memCodec is the index cache's codec of a Memory: the fields its file
// gave. It allocates the decoded memories' short hashes together.
type memCodec struct {
	hashes []byte
}

func (c *memCodec) Prepare(mems []Memory) {
	c.hashes = make([]byte, len(mems)*hashLen)
	for i := range mems { // numbers first: see load.readCachedFiles
		mems[i].Version = 0
	}
}

func (*memCodec) Body(m *Memory) *string { return &m.Body }

func (*memCodec) Encode(w *store.Writer, m *Memory, off int) {
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

func (c *memCodec) Decode(r *store.Reader, i int, rec *store.Record[Memory], m *Memory) (off, n uint64) {
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
func (m *Memory) header() *Memory {
	return &Memory{ID: m.ID, Title: m.Title, Layer: m.Layer, Importance: m.Importance,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, EffectiveAt: m.EffectiveAt, ExpiresAt: m.ExpiresAt,
		Status: m.Status, Supersedes: m.Supersedes, Version: m.Version, Path: m.Path, idLine: m.idLine,
		Damaged: m.Damaged, Redacted: m.Redacted}
}

// titledSig is a title's signature with the memory it was computed for.
type titledSig struct {
	mem *Memory
	sig titleSig
}

// headerEntry is one file of the header cache.
type headerEntry = load.Header[Memory, titleSig]

// headerCodec is the header cache's codec of an entry: its stat key, its
// memory's header fields and its title's signature. It allocates the
// decoded memories together.
type headerCodec struct {
	mems []Memory
}

func (c *headerCodec) Prepare(n int) { c.mems = make([]Memory, n) }

func (*headerCodec) Encode(w *store.Writer, e *headerEntry) {
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
	w.Byte(byte(boolInt(neg)))
	w.Strs(toks)
}

func (c *headerCodec) Decode(r *store.Reader, i int, e *headerEntry) {
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
