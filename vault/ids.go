package vault

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/index"
)

// crockford is the ULID alphabet (Crockford's base32).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewULID returns a ULID for t: 48 bits of milliseconds then 80 random bits,
// 26 characters of Crockford base32, so ids sort by creation time. It is
// written here rather than imported to keep vault free of dependencies
// beyond parser; the test checks it against github.com/oklog/ulid.
func NewULID(t time.Time, entropy io.Reader) (string, error) {
	var b [16]byte
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	if entropy == nil {
		entropy = rand.Reader
	}
	if _, err := io.ReadFull(entropy, b[6:]); err != nil {
		return "", fmt.Errorf("ulid entropy: %w", err)
	}
	// 128 bits as 26 base32 digits: the first digit carries 3 bits.
	var out [26]byte
	hi := binary.BigEndian.Uint64(b[0:8])
	lo := binary.BigEndian.Uint64(b[8:16])
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:]), nil
}

// MaxIDLen bounds ids so they stay usable in paths, trailers and URIs.
const MaxIDLen = 128

// ValidateID checks an id from a file or a caller: non-empty, at most
// MaxIDLen bytes, printable, no spaces, no path tricks.
func ValidateID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty id", ErrInvalid)
	case len(id) > MaxIDLen:
		return fmt.Errorf("%w: id longer than %d bytes", ErrInvalid, MaxIDLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: id is not valid UTF-8", ErrInvalid)
	case strings.HasPrefix(id, "/") || strings.Contains(id, "\\"):
		return fmt.Errorf("%w: id %q looks like an absolute path", ErrInvalid, id)
	}
	for _, part := range strings.Split(id, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%w: id %q has an empty, . or .. segment", ErrInvalid, id)
		}
	}
	for _, r := range id {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("%w: id %q contains space or control characters", ErrInvalid, id)
		}
	}
	return nil
}

// MaxEchoedID is how many bytes of an id an error message repeats: an
// unknown id can be as long as a request allows (a megabyte), and an
// error that echoes it whole floods a log or a model's context.
const MaxEchoedID = 80

// ShortID returns id for an error message: whole up to MaxEchoedID bytes,
// else cut there (at a character boundary) with its full length noted.
func ShortID(id string) string {
	if len(id) <= MaxEchoedID {
		return id
	}
	cut := MaxEchoedID
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", id[:cut], len(id))
}

// maxSlugRunes keeps file names well under common file-system limits even
// for three-byte Han characters.
const maxSlugRunes = 60

// Slug turns a title into a file name stem: lower-case ASCII letters and
// digits, Han and other letters kept as they are, everything else folded
// into single dashes. An empty result becomes "memory".
func Slug(title string) string {
	var b strings.Builder
	dash := false
	n := 0
	for _, r := range strings.ToLower(title) {
		if n >= maxSlugRunes {
			break
		}
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)):
		default:
			if b.Len() > 0 {
				dash = true
			}
			continue
		}
		if dash {
			b.WriteByte('-')
			n++
			dash = false
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return "memory"
	}
	return b.String()
}

// Tracker tells which vault files version control records. When two files
// carry one id, the tracked one is the memory: an untracked file (dropped
// in by a tool, unpacked from an archive) cannot take over a committed
// memory's id by sorting first. cmd/memvault implements it with the
// repository's index.
type Tracker interface {
	// Tracked reports which of the vault-relative slash paths are tracked.
	Tracked(ctx context.Context, rels []string) (map[string]bool, error)
}

// dupIDError is the problem of a file skipped because another file
// carries its id.
type dupIDError struct {
	id, other    string
	otherTracked bool // other won because it is tracked and this file is not
}

func (e *dupIDError) Error() string {
	if e.otherTracked {
		return fmt.Sprintf("%v %q: already used by %s, which git tracks; this untracked file is skipped", ErrDuplicateID, e.id, e.other)
	}
	return fmt.Sprintf("%v %q: already used by %s; this file is skipped", ErrDuplicateID, e.id, e.other)
}

func (e *dupIDError) Unwrap() error { return ErrDuplicateID }

func duplicateDiag(m *Memory, other string) *Diagnostic {
	return &Diagnostic{Path: m.Path, Line: m.idLine, Field: "id", Severity: parser.SeverityError,
		Err: &dupIDError{id: m.ID, other: other}}
}

// preferTracked gives each id carried by several files to a tracked one
// when the file that won it by path order is not tracked. skipped are the
// memories builder.add left out as duplicates. Without a tracker, or when
// it fails, path order stands: writes to those ids are refused anyway
// (checkUnambiguous). It returns the DocIDs given to another file, in the
// order they were (the index cache replays them).
func (v *Vault) preferTracked(ctx context.Context, skipped []*Memory) (swaps []index.DocID) {
	if v.ports.tracker == nil || len(skipped) == 0 {
		return nil
	}
	v.mu.RLock()
	var rels []string
	for _, m := range skipped {
		if d, ok := v.byID[m.ID]; ok {
			rels = append(rels, m.Path, v.entries[d].Path)
		}
	}
	v.mu.RUnlock()
	tracked, err := v.ports.tracker.Tracked(ctx, dedupeIDs(rels))
	if err != nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	swapped := false
	for _, m := range skipped {
		d, ok := v.byID[m.ID]
		if !ok {
			continue
		}
		w := v.entries[d]
		if tracked[w.Path] || !tracked[m.Path] {
			continue
		}
		// m, tracked, takes the id from w, untracked.
		v.dropNamesLocked(w, d)
		delete(v.byPath, w.Path)
		v.entries[d] = m
		v.byPath[m.Path] = d
		v.addNamesLocked(m, d)
		if v.ix != nil { // a headers-only vault has no index
			v.ix.Put(d, indexDoc(m))
		}
		swapped = true
		swaps = append(swaps, d)
		// Every other carrier of the id now names m; w says why it lost.
		for rel, ds := range v.diags {
			for i, x := range ds {
				var e *dupIDError
				if errors.As(x.Err, &e) && e.id == m.ID {
					c := *x
					c.Err = &dupIDError{id: e.id, other: m.Path, otherTracked: !tracked[rel]}
					ds[i] = &c
				}
			}
			if rel == m.Path {
				ds = slices.DeleteFunc(ds, func(x *Diagnostic) bool {
					var e *dupIDError
					return errors.As(x.Err, &e) && e.id == m.ID
				})
				if len(ds) == 0 {
					delete(v.diags, rel)
				} else {
					v.diags[rel] = ds
				}
			}
		}
		lost := duplicateDiag(w, m.Path)
		lost.Err.(*dupIDError).otherTracked = true
		v.diags[w.Path] = append(v.diags[w.Path], lost)
	}
	if swapped {
		v.rebuildSuccLocked()
	}
	return swaps
}

// checkUnambiguous refuses a write to the memory id, read from rel, when
// another file of the vault carries the same id: which of the two a write
// would change, and a commit record, is then a guess. The other files are
// read again, so one renamed or removed since the load does not count.
func (v *Vault) checkUnambiguous(id, rel string) error {
	v.mu.RLock()
	var others []string
	for path, ds := range v.diags {
		for _, d := range ds {
			var e *dupIDError
			if path != rel && errors.As(d.Err, &e) && e.id == id {
				others = append(others, path)
			}
		}
	}
	v.mu.RUnlock()
	var still []string
	for _, o := range dedupeIDs(others) {
		data, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(o)))
		if err != nil {
			continue
		}
		if m, _ := toMemory(o, data, v.now()); m != nil && m.ID == id {
			still = append(still, o)
		}
	}
	if len(still) == 0 {
		return nil
	}
	slices.Sort(still)
	return fmt.Errorf("%w: %s is carried by %s (the memory memvault shows) and by %s; "+
		"memvault does not write to an id two files share: give the other file a new id, or remove it, and try again",
		ErrAmbiguousID, id, rel, strings.Join(still, ", "))
}
