package vault

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/memvault/memvault/vault/diskwrite"
)

// FuzzValidateID checks that an id ValidateID accepts is safe wherever ids
// go: as a file name stem it stays inside the vault, and it never holds
// spaces or control characters that would break a commit trailer.
func FuzzValidateID(f *testing.F) {
	if err := hostileSeeds(f); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if ValidateID(id) != nil {
			return
		}
		if len(id) > MaxIDLen {
			t.Fatalf("accepted %d-byte id", len(id))
		}
		if err := diskwrite.ValidateRel(id + ".md"); err != nil {
			t.Fatalf("accepted id %q, but %q.md is not a safe path: %v", id, id, err)
		}
		base := filepath.FromSlash("/vault/root")
		r, err := filepath.Rel(base, filepath.Join(base, filepath.FromSlash(id)+".md"))
		if err != nil || !filepath.IsLocal(r) {
			t.Fatalf("accepted id %q, which escapes the vault as a file name", id)
		}
		if strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			t.Fatalf("accepted id %q with space or control characters", id)
		}
	})
}

// TestShortID: an id is echoed whole up to MaxEchoedID bytes, else cut at
// a character boundary with its length (issue 13, finding 15).
func TestShortID(t *testing.T) {
	t.Parallel()
	tests := []struct{ id, want string }{
		{"01JD0Q7M4X8V2T5R9K3N6B1C0A", "01JD0Q7M4X8V2T5R9K3N6B1C0A"},
		{strings.Repeat("a", 80), strings.Repeat("a", 80)},
		{strings.Repeat("a", 81), strings.Repeat("a", 80) + "… (81 bytes)"},
		// 26 three-byte characters are 78 bytes; the 27th would end at 81.
		{strings.Repeat("记", 30), strings.Repeat("记", 26) + "… (90 bytes)"},
		{strings.Repeat("x", 1<<20), strings.Repeat("x", 80) + "… (1048576 bytes)"},
	}
	for _, tt := range tests {
		if got := ShortID(tt.id); got != tt.want {
			t.Errorf("ShortID(%d bytes) = %q, want %q", len(tt.id), got, tt.want)
		}
	}
	v, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Get(strings.Repeat("x", 1<<20))
	if !errors.Is(err, ErrNotFound) || len(err.Error()) > 200 {
		t.Errorf("Get of a 1 MB id: %d-byte error %.120q, want ErrNotFound in under 200 bytes", len(err.Error()), err)
	}
}
