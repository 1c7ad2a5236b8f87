// Package load is the vault's one loader. It lists a vault folder's
// memory files, takes each file's memory from a cache while the file is
// unchanged or reads it and has the domain parse it, hands the results to
// the domain in path order, and keeps the caches up to date. A full load
// builds the full-text index, taking it from the index cache (see
// indexcache.go) when the domain's decisions are the ones it was built
// from; a headers-only load (Headers) is the same load with the header
// cache (see headercache.go) and no bodies and no index.
//
// It knows files and caches, not memories: T is the domain's memory type,
// which Rules parse, index and encode, and every decision that depends
// on more than one file (duplicate ids, which file git tracks,
// supersession) is the Sink's, made again on every load.
package load

import (
	"context"
	"crypto/sha256"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/store"
)

// Mode is what a load keeps of each memory.
type Mode int

const (
	// Full keeps every memory whole and builds the full-text index.
	Full Mode = iota
	// Headers keeps each memory's header only (Rules.Header) and builds
	// no index: what a process that only adds a memory needs.
	Headers
)

// Rules are what the loader asks the domain about its memories, of type
// T, and S, the signature a headers-only load keeps with each header.
type Rules[T, S any] interface {
	// Parse makes the memory of the bytes of the file rel, with the
	// problems found (nil when the file cannot be a memory). served is
	// the bytes the memory was made from when they are not data (a
	// committed version served in place of the file), else nil. ps is
	// parser memory reused from file to file.
	Parse(ctx context.Context, rel string, data []byte, modTime time.Time, ps *parser.Scratch) (m *T, diags []*parser.Error, served []byte)
	// Doc is what the index holds of m.
	Doc(m *T) index.Doc
	// Path is m's vault-relative path.
	Path(m *T) string
	// Stale reports whether m is a file's last good version, kept when
	// the file no longer gives one; Conflicted whether m is labelled
	// conflicted. Neither is cached.
	Stale(m *T) bool
	Conflicted(m *T) bool
	// Header is m reduced to what a headers-only load keeps, with its
	// signature.
	Header(m *T) (*T, S)
	// IndexCodec and HeaderCodec are the caches' codecs of T.
	IndexCodec() store.Codec[T]
	HeaderCodec() store.HeaderCodec[Header[T, S]]
}

// Sink is the domain's side of a load: it builds the vault's new state
// from the files, in path order, and installs it.
type Sink[T, S any] interface {
	// Begin starts a new state for about n files, indexed in ix (nil: no
	// index, a headers-only load or one whose index comes later).
	Begin(n int, ix *index.Index)
	// Add takes one file. Neither f nor f.Prep is kept: f.Prep, when
	// set, is inserted into the index at once.
	Add(f *File[T, S])
	// Built is the memories the new state holds, by DocID.
	Built() []*T
	// Install makes the new state the vault's and settles the ids
	// several files carry; it returns the DocIDs that settling gave to
	// other files, in order.
	Install(ctx context.Context) (swaps []index.DocID)
	// Entry is the memory the vault holds at d.
	Entry(d index.DocID) *T
	// UseIndex installs ix, made apart from the state, as the index of
	// built.
	UseIndex(ix *index.Index, built []*T)
	// WithIndex calls fn with the vault's index (nil when none), which
	// no write changes until fn returns.
	WithIndex(fn func(ix *index.Index))
}

// Config is how a vault loads.
type Config[T, S any] struct {
	Dir         string
	MaxFileSize int64
	Mode        Mode
	Rules       Rules[T, S]
	// Linked is the error a read of a memory file that is a symbolic
	// link reports (the reader does not follow it).
	Linked error
	// IndexCache names the program for the index cache (see
	// store.ExecutableStamp); "" uses none. Full loads only.
	IndexCache string
	// CopyCache maps a private copy of the index cache (see
	// store.MapCacheFile).
	CopyCache bool
	// HeaderCache is the header cache file of a Headers load; "" keeps
	// none.
	HeaderCache string
	// FSNow is the file system's clock, as far as the caches' racy
	// windows go; nil is time.Now.
	FSNow func() time.Time
	// OnSlow is called once, before a load with the index cache does what
	// a load without one does (read every file, build or patch the
	// index); then it is cleared.
	OnSlow func()
}

// Stats says what a load took from its caches and what it had to do
// itself.
type Stats struct {
	// FromCache is set when the index came from the index cache.
	FromCache bool
	// Read is how many files the load read rather than took from a
	// cache.
	Read int
	// Patched is how many memories the cached index was patched for (0
	// when it was not patched; see patchSnapshot).
	Patched int
	// Listed is how many folders the load listed rather than took from
	// the index cache (see store.ScanFolders).
	Listed int
	// TempFiles is set when a headers-only load's scan passed a
	// temporary file.
	TempFiles bool
}

// File is the outcome of reading one file, or of taking it from a cache.
type File[T, S any] struct {
	Rel   string
	Mem   *T // nil when the file could not be used at all
	Diags []*parser.Error
	Prep  *index.Prepared // Mem analysed for the index being built, or nil
	// Mapped says Mem came from the index cache: its strings point into
	// the cache's data, not into copies of their own.
	Mapped bool
	// Sig is Mem's signature, in a headers-only load.
	Sig *S

	// What the index cache records, set only for a load that keeps one:
	// the file's stat data taken before the read, the SHA-256 and
	// modification time of the bytes read, and the SHA-256 of the bytes
	// Mem was made from when not those (Rules.Parse's served).
	st    store.StatKey
	stOK  bool
	sum   [sha256.Size]byte
	mod   int64
	head  *[sha256.Size]byte
	fresh bool // read now, not taken from the cache
	// key is the SHA-256 of memoryKey (see buildDigest), when keyed.
	key   [sha256.Size]byte
	keyed bool
}

// Load loads the vault c describes into sink: the one load, whatever the
// mode and the caches. c.OnSlow is cleared once called.
func Load[T, S any](ctx context.Context, c *Config[T, S], sink Sink[T, S]) (Stats, error) {
	l := &loader[T, S]{Config: c, sink: sink}
	switch {
	case c.Mode == Headers:
		return l.headers(ctx)
	case c.IndexCache != "":
		return l.cached(ctx)
	}
	rels, err := store.Scan(ctx, c.Dir, nil)
	if err != nil {
		return Stats{}, err
	}
	ix := index.New()
	sink.Begin(len(rels), ix)
	if err := l.readEach(ctx, rels, ix, func(f *File[T, S]) { sink.Add(f) }); err != nil {
		return Stats{}, err
	}
	sink.Install(ctx)
	return Stats{Read: len(rels)}, nil
}

// ReadAll reads and parses the files rels on all cores, in their order,
// with neither cache.
func ReadAll[T, S any](ctx context.Context, c *Config[T, S], rels []string) ([]File[T, S], error) {
	l := &loader[T, S]{Config: &Config[T, S]{Dir: c.Dir, MaxFileSize: c.MaxFileSize, Rules: c.Rules, Linked: c.Linked}}
	out := make([]File[T, S], 0, len(rels))
	err := l.readEach(ctx, rels, nil, func(f *File[T, S]) { out = append(out, *f) })
	return out, err
}

// loader is one load.
type loader[T, S any] struct {
	*Config[T, S]
	sink Sink[T, S]
}

// fsTime is the file system's clock (see Config.FSNow).
func (l *loader[T, S]) fsTime() time.Time {
	if l.FSNow != nil {
		return l.FSNow()
	}
	return time.Now()
}

// slow calls Config.OnSlow, once.
func (l *loader[T, S]) slow() {
	if f := l.OnSlow; f != nil {
		l.OnSlow = nil
		f()
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
