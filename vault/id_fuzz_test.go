package vault

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode"
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
		if err := ValidateRel(id + ".md"); err != nil {
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
