package vault

import (
	"context"
	"errors"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/load"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/store"
)

// Loading is vault/load's: the files listed, taken from the caches or
// read, in one load whatever the mode. This file is the vault's side of
// it: the rules a file's bytes become a memory by (memRules, over
// memory.Parse) and the builder of the vault's new state (loadSink); the
// caches' codecs of a Memory are vault/memory's.

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
	m, diags = memory.ParseScratch(rel, data, modTime, ps)
	if m == nil && r.v.ports.committed != nil && len(diags) == 1 && errors.Is(diags[0].Err, ErrConflictMarkers) {
		if head, err := r.v.ports.committed.ReadCommitted(ctx, rel); err == nil {
			m, served = memory.ServedForMarkers(rel, head, data, modTime), head
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
	h := m.Header()
	return h, newTitleSig(h.Title)
}

func (memRules) IndexCodec() store.Codec[Memory]                    { return &memory.IndexCodec{} }
func (memRules) HeaderCodec() store.HeaderCodec[memory.HeaderEntry] { return &memory.HeaderCodec{} }

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
		m.DropText() // indexed: PlainText derives it again when needed
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

// titledSig is a title's signature with the memory it was computed for.
type titledSig struct {
	mem *Memory
	sig titleSig
}
