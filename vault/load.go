package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/secret"
	"github.com/memvault/memvault/vault/store"
)

// Diagnostic is a problem found in a vault file, with its place.
type Diagnostic = parser.Error

// loaded is the outcome of reading one file.
type loaded struct {
	rel   string
	mem   *Memory // nil when the file could not be used at all
	diags []*Diagnostic
	prep  *index.Prepared // mem analysed for the index being built, or nil

	// What the index cache records, set only for a vault that keeps one
	// (see cache.go): the file's stat data taken before the read, the
	// SHA-256 and modification time of the bytes read, and the SHA-256
	// of HEAD's version when that is what mem is (conflict markers).
	st    store.StatKey
	stOK  bool
	sum   [sha256.Size]byte
	mod   int64
	head  *[sha256.Size]byte
	fresh bool // read now, not taken from the cache
	// mapped says mem came from the index cache: its strings point into
	// the cache's data, not into copies of their own.
	mapped bool
	// key is the SHA-256 of memoryKey (see buildDigest), when keyed.
	key   [sha256.Size]byte
	keyed bool
}

// readAll reads and converts files on all cores. Order of the result
// follows rels.
func (v *Vault) readAll(ctx context.Context, rels []string) ([]loaded, error) {
	out := make([]loaded, 0, len(rels))
	err := v.readEach(ctx, rels, nil, func(r loaded) { out = append(out, r) })
	return out, err
}

// readEach reads and converts files on all cores and hands each result to
// fn on the calling goroutine, in the order of rels, while later files are
// still being read: a bulk load overlaps parsing with indexing. With ix
// set, the readers also analyse each memory for ix (loaded.prep), so fn
// only has to insert it; fn must not keep the Prepared, which is reused.
//
// Readers claim readChunkFiles consecutive files at a time and hand each
// chunk over whole. Handing over every file through channels, between
// four goroutines on two cores, left a core idle part of a large load,
// waiting for goroutines to be woken (docs/performance.md, "Load and
// recall (2026-11-30, ba83217)").
func (v *Vault) readEach(ctx context.Context, rels []string, ix *index.Index, fn func(loaded)) error {
	if len(rels) == 0 {
		return ctx.Err()
	}
	chunks := (len(rels) + readChunkFiles - 1) / readChunkFiles
	workers := min(runtime.GOMAXPROCS(0), chunks)
	// window bounds the chunks read but not yet consumed, and so the
	// memory they hold: a reader takes a token before claiming a chunk,
	// and the consumer returns it after consuming one. Chunk c travels
	// in ring[c%window]: with at most window chunks outstanding, chunk
	// c+window is claimed only after chunk c was consumed, so no two
	// share a slot and no reader ever blocks on one.
	window := min(chunks, 4*workers)
	ring := make([]chan *readChunk, window)
	for i := range ring {
		ring[i] = make(chan *readChunk, 1)
	}
	tokens := make(chan struct{}, window)
	free := make(chan *readChunk, window)
	var claimed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var rs readerState
			defer rs.files.Close()
			var pr *index.Preparer
			if ix != nil {
				pr = ix.NewPreparer()
			}
			for {
				select {
				case tokens <- struct{}{}:
				case <-ctx.Done():
					return
				}
				c := int(claimed.Add(1) - 1)
				if c >= chunks {
					<-tokens // give back the token: nothing was claimed
					return
				}
				var ch *readChunk
				select {
				case ch = <-free:
				default:
					ch = new(readChunk)
				}
				for i := c * readChunkFiles; i < min(len(rels), (c+1)*readChunkFiles) && ctx.Err() == nil; i++ {
					r := v.readFile(ctx, rels[i], &rs)
					if pr != nil && r.mem != nil {
						r.prep = ch.prepared(len(ch.res))
						pr.Prepare(indexDoc(r.mem), r.prep)
					}
					ch.res = append(ch.res, r)
				}
				ring[c%window] <- ch
			}
		})
	}
	var err error
	for c := range chunks {
		var ch *readChunk
		select {
		case ch = <-ring[c%window]:
		case <-ctx.Done():
		}
		if err = ctx.Err(); err != nil {
			break
		}
		for _, r := range ch.res {
			fn(r)
		}
		clear(ch.res) // drop the memories: the chunk is reused
		ch.res = ch.res[:0]
		select {
		case free <- ch:
		default:
		}
		<-tokens
	}
	wg.Wait()
	return err
}

// readChunkFiles is how many consecutive files a reader claims at a time.
const readChunkFiles = 32

// readChunk carries the results of one claim of files from a reader to
// the consumer, then goes back to the readers for reuse.
type readChunk struct {
	res   []loaded
	preps []*index.Prepared // res[i].prep is preps[i] or nil
}

// prepared returns the chunk's i'th Prepared, allocating it on first use.
func (ch *readChunk) prepared(i int) *index.Prepared {
	for len(ch.preps) <= i {
		ch.preps = append(ch.preps, new(index.Prepared))
	}
	return ch.preps[i]
}

// readerState is what one reader goroutine reuses from file to file.
type readerState struct {
	files   store.FileReader
	parse   parser.Scratch
	lastRel string // folder part of the last file read, relative
	lastDir string // and joined to the vault folder
}

// dir returns the folder of the vault-relative file rel under root and
// its name, keeping the last folder's path.
func (rs *readerState) dir(root, rel string) (string, string) {
	dir, name := path.Split(rel)
	if dir != rs.lastRel || rs.lastDir == "" {
		rs.lastRel, rs.lastDir = dir, filepath.Join(root, filepath.FromSlash(dir))
	}
	return rs.lastDir, name
}

// readFile reads one memory file and turns it into a Memory plus the
// problems found. It never changes the file. rs is the calling reader's
// state, reused from file to file: the Memory copies what it keeps.
func (v *Vault) readFile(ctx context.Context, rel string, rs *readerState) loaded {
	_, name := rs.dir(v.dir, rel)
	res := loaded{rel: rel, fresh: true}
	fail := func(err error) loaded {
		res.diags = append(res.diags, &Diagnostic{Path: rel, Err: err, Severity: parser.SeverityError})
		return res
	}
	if v.load.cacheKey != "" {
		// Before the read: a change made after it changes the key the
		// next process sees.
		res.st, res.stOK = rs.files.StatKey(rs.lastDir, name)
	}
	rs.files.Linked = errLinked
	data, modTime, err := rs.files.Read(rs.lastDir, name, v.maxFileSize)
	if err != nil {
		return fail(err)
	}
	if v.load.cacheKey != "" {
		res.sum, res.mod = sha256.Sum256(data), modTime.UnixNano()
	}
	res.mem, res.diags = toMemoryScratch(rel, data, modTime, &rs.parse)
	if res.mem == nil && v.ports.committed != nil && len(res.diags) == 1 && errors.Is(res.diags[0].Err, ErrConflictMarkers) {
		if head, err := v.ports.committed.ReadCommitted(ctx, rel); err == nil {
			res.mem = servedForMarkers(rel, head, data, modTime)
			if v.load.cacheKey != "" {
				sum := sha256.Sum256(head)
				res.head = &sum
			}
		}
	}
	if d := damage(res.diags); d != nil {
		v.servedForDamage(ctx, &res, d, data, modTime)
	}
	if v.load.cacheKey != "" && res.mem != nil {
		res.setKey()
	}
	return res
}

// markersDiagnostic reports git conflict markers at path:line.
func markersDiagnostic(rel string, line int) *Diagnostic {
	return &Diagnostic{Path: rel, Line: line, Severity: parser.SeverityError,
		Err: fmt.Errorf("%w: a merge was left unresolved; the file is not loaded as a memory (memvault stats says what to run)", ErrConflictMarkers)}
}

// servedForMarkers is what the vault serves for a file holding conflict
// markers, disk: the version of it last committed, data, labelled
// conflicted (readFile serves nothing when HEAD has no such file, as for
// a file new in the merge). Its Hash is that of the file on disk, so that
// the file's resolution, even back to the committed bytes, is a change
// the vault takes in.
func servedForMarkers(rel string, data, disk []byte, modTime time.Time) *Memory {
	m, _ := toMemory(rel, data, modTime)
	if m == nil {
		return nil
	}
	m.Conflicted = []string{ConflictedMarkers}
	m.Hash = contentHash(disk)
	return m
}

// toMemory converts parsed bytes into a Memory, filling what a hand-written
// file leaves out: id from the path, title from the first heading or the
// file name, layer from the folder, dates from the modification time.
func toMemory(rel string, data []byte, modTime time.Time) (*Memory, []*Diagnostic) {
	return toMemoryScratch(rel, data, modTime, nil)
}

// toMemoryScratch is toMemory with parser memory reused from an earlier
// call (ps may be nil): nothing the Memory keeps points into ps or data.
func toMemoryScratch(rel string, data []byte, modTime time.Time, ps *parser.Scratch) (*Memory, []*Diagnostic) {
	if line := merge.MarkerLine(data); line > 0 {
		// Loading it would serve half of a merge as a memory (or invent one
		// named after "<<<<<<< HEAD"): see readFile for what is served.
		return nil, []*Diagnostic{markersDiagnostic(rel, line)}
	}
	doc, diags := parser.Options{Scratch: ps}.Parse(rel, data)
	found := secret.Scan(data)
	diags = append(diags, secretDiagnosticsOf(rel, found)...)
	if doc == nil {
		return nil, diags
	}
	for _, d := range diags {
		if errors.Is(d.Err, parser.ErrNoFrontMatter) {
			// Hand-written notes without front matter are first-class.
			d.Severity = parser.SeverityWarning
		}
	}
	sum := contentHash(data)
	meta := doc.Meta
	warn := func(field string, format string, args ...any) {
		diags = append(diags, &Diagnostic{Path: rel, Line: doc.FieldLine(field), Field: field, Err: fmt.Errorf(format, args...), Severity: parser.SeverityWarning})
	}
	// Front-matter strings can be pieces of one string holding the whole
	// front matter; copy the ones kept so that it can be freed.
	m := &Memory{
		ID:         strings.Clone(strings.TrimSpace(meta.ID)),
		Title:      strings.Clone(strings.TrimSpace(meta.Title)),
		Tags:       mergeTags(meta.Tags, doc.Body.Tags),
		Aliases:    cloneStrings(meta.Aliases),
		Supersedes: cloneStrings(meta.Supersedes),
		Links:      cloneStrings(meta.Links),
		Refs:       cloneStrings(meta.Refs),
		Source:     Source{Client: strings.Clone(meta.Source.Client), Kind: strings.Clone(meta.Source.Kind)},
		Body:       string(doc.BodyBytes()),
		Path:       rel,
		WikiLinks:  doc.Body.WikiLinks,
		Hash:       sum,
		idLine:     doc.FieldLine("id"),
	}
	if len(m.Supersedes) > 0 {
		m.supersedesLine = doc.FieldLine("supersedes")
	}
	if len(m.Links) > 0 {
		m.linksLine = doc.FieldLine("links")
	}
	if meta.Status != "" {
		m.statusLine = doc.FieldLine("status")
	}
	if kept, problems := capRefs(m.Refs); problems != nil {
		m.Refs = kept
		for _, p := range problems {
			warn("refs", "%s", p)
		}
	}
	m.Conflicted, m.ConflictTheirs = merge.Record(doc)
	if len(m.Conflicted) > 0 {
		// Served (labelled conflicted) but not settled: lint names it.
		warn(merge.ConflictKey, "unresolved merge conflict: both sides changed %s; keep the values that hold (theirs are in this entry), delete the entry, then commit the file (git add it first while a merge is under way)",
			strings.Join(m.Conflicted, ", "))
	}
	if m.ID == "" {
		m.ID = DerivedID(rel)
	} else if err := ValidateID(m.ID); err != nil {
		warn("id", "%v; using %q", err, DerivedID(rel))
		m.ID = DerivedID(rel)
	}
	if m.Title == "" {
		m.Title = strings.TrimSpace(doc.Body.Heading)
	}
	if m.Title == "" {
		m.Title = strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
	}
	m.text = plainText(doc.Body, m.Title)
	folderLayer, inFolder := layerFromDir(rel)
	switch {
	case meta.Layer != "":
		l, err := ParseLayer(meta.Layer)
		if err != nil {
			m.Layer = Project
			if inFolder {
				m.Layer = folderLayer
			}
			warn("layer", "%v; using %s", err, m.Layer)
		} else {
			m.Layer = l
		}
	case inFolder:
		m.Layer = folderLayer
	default:
		m.Layer = Project
	}
	m.Importance = 5
	if meta.Importance != nil {
		m.Importance = *meta.Importance
		if m.Importance < 1 || m.Importance > 10 {
			m.Importance = min(10, max(1, m.Importance))
			warn("importance", "%d is outside 1..10; using %d", *meta.Importance, m.Importance)
		}
	}
	st, err := ParseStatus(meta.Status)
	if err != nil {
		warn("status", "%v; using active", err)
		st = StatusActive
	}
	m.Status = st
	m.Version = 1
	if meta.Version != nil && *meta.Version > 0 {
		m.Version = *meta.Version
	}
	if meta.VerifiedAt != nil {
		m.VerifiedAt = meta.VerifiedAt.UTC()
	}
	mod := modTime.UTC().Truncate(time.Second)
	m.CreatedAt, m.UpdatedAt = mod, mod
	if meta.CreatedAt != nil {
		m.CreatedAt = meta.CreatedAt.UTC()
	}
	if meta.UpdatedAt != nil {
		m.UpdatedAt = meta.UpdatedAt.UTC()
	} else if meta.CreatedAt != nil {
		m.UpdatedAt = m.CreatedAt
	}
	if m.UpdatedAt.Before(m.CreatedAt) {
		warn("updated_at", "is before created_at")
	}
	if meta.EffectiveAt != nil {
		m.EffectiveAt = meta.EffectiveAt.UTC()
	}
	if meta.ExpiresAt != nil {
		m.ExpiresAt = meta.ExpiresAt.UTC()
	} else if ttl := m.Layer.TTL(); ttl > 0 {
		m.ExpiresAt = m.UpdatedAt.Add(ttl)
	}
	for i, id := range m.Supersedes {
		switch {
		case id == m.ID:
			warn("supersedes", "%v", ErrSupersedesSelf)
		case slices.Contains(m.Supersedes[:i], id):
			warn("supersedes", "%q is listed more than once", id)
		}
	}
	if len(found) > 0 {
		// Never served as it is, by any door (issue 27, finding 4).
		redactMemory(m, rel, data, found)
	}
	return m, diags
}

// contentHash is Memory.Hash: the first 8 bytes of the SHA-256 of the
// file's bytes, in hex. It tells applyLocked that a file it reads back is
// the one it wrote, or was touched without change, and it is the same in
// every process, so a memory restored from the index cache (which records
// each file's SHA-256) carries the hash a fresh read would give. Two
// different contents of one file collide with probability about 2^-64.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hashOfSum(&sum)
}

// hashOfSum is contentHash of the bytes whose SHA-256 is sum.
func hashOfSum(sum *[sha256.Size]byte) string {
	return hex.EncodeToString(sum[:hashLen/2])
}

// hashLen is the length of a Memory.Hash: 8 bytes of SHA-256 in hex.
const hashLen = 16

// mergeTags joins front-matter tags and inline #tags, dropping duplicates
// (case-insensitively) and keeping first spellings.
func mergeTags(lists ...[]string) []string {
	var out, keys []string
	var seen map[string]bool // only once there are many: most files have a few tags
	for _, l := range lists {
		for _, t := range l {
			t = strings.TrimSpace(strings.TrimPrefix(t, "#"))
			if t == "" {
				continue
			}
			k := strings.ToLower(t)
			switch {
			case seen != nil:
				if seen[k] {
					continue
				}
				seen[k] = true
			case slices.Contains(keys, k):
				continue
			default:
				keys = append(keys, k)
				if len(keys) > 16 {
					seen = make(map[string]bool, 2*len(keys))
					for _, x := range keys {
						seen[x] = true
					}
				}
			}
			out = append(out, strings.Clone(t))
		}
	}
	return out
}

// cloneStrings copies the strings of l into fresh memory, in place; see
// toMemory.
func cloneStrings(l []string) []string {
	for i, s := range l {
		l[i] = strings.Clone(s)
	}
	return l
}

// DerivedID is the id of a hand-written file that has none: its
// vault-relative path without the .md extension. It is stable as long as
// the file is not moved.
func DerivedID(rel string) string {
	return strings.TrimSuffix(rel, filepath.Ext(rel))
}

// scan lists the memory files of the vault at dir (see store.Scan).
func scan(ctx context.Context, dir string) ([]string, error) {
	return store.Scan(ctx, dir, nil)
}

// IsMemoryPath reports whether a vault-relative slash path names a memory
// file: a .md file, no dot-file or dot-folder on the way, not the root
// README.md. The watcher uses it to ignore everything else.
func IsMemoryPath(rel string) bool { return store.IsMemoryPath(rel) }
