package memory

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/vault/diskwrite"
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
		return fmt.Errorf("%w: empty id", diskwrite.ErrInvalid)
	case len(id) > MaxIDLen:
		return fmt.Errorf("%w: id longer than %d bytes", diskwrite.ErrInvalid, MaxIDLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: id is not valid UTF-8", diskwrite.ErrInvalid)
	case strings.HasPrefix(id, "/") || strings.Contains(id, "\\"):
		return fmt.Errorf("%w: id %q looks like an absolute path", diskwrite.ErrInvalid, id)
	}
	for _, part := range strings.Split(id, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%w: id %q has an empty, . or .. segment", diskwrite.ErrInvalid, id)
		}
	}
	for _, r := range id {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return fmt.Errorf("%w: id %q contains space or control characters", diskwrite.ErrInvalid, id)
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

// DerivedID is the id of a hand-written file that has none: its
// vault-relative path without the .md extension. It is stable as long as
// the file is not moved.
func DerivedID(rel string) string {
	return strings.TrimSuffix(rel, filepath.Ext(rel))
}
