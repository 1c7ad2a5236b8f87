package vault

import (
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/vault/diskwrite"
)

// The range of dates a memory may carry. Before 1970 is almost certainly
// a parse mistake (a zero Unix time, a two-digit year), and YAML time
// stamps stop at year 9999.
var (
	minDate = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDate = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// safePath turns a vault-relative path into an absolute one a write may
// touch: the vault's .gitignore or a memory file (IsMemoryPath), with no
// symbolic link on the way (diskwrite.ValidateRel and CheckPath).
func (v *Vault) safePath(rel string) (string, error) {
	if err := diskwrite.ValidateRel(rel); err != nil {
		return "", err
	}
	if rel != GitignoreName && rel != GitattributesName && !IsMemoryPath(rel) {
		// Not a .md file, or under a dot-folder such as .git: a journal or
		// an import naming it must not reach it.
		return "", fmt.Errorf("%w: %s is not a memory file", ErrInvalid, rel)
	}
	return diskwrite.CheckPath(v.dir, rel)
}

// validateTag checks one normalised tag: short, printable, one line, and
// without the characters that would make it ambiguous in front matter,
// inline #tags or filters.
func validateTag(t string) error {
	if n := utf8.RuneCountInString(t); n > MaxTagRunes {
		return fmt.Errorf("%w: tags: %q is %d characters, limit %d", ErrInvalid, truncateRunes(t, 20), n, MaxTagRunes)
	}
	for _, r := range t {
		switch {
		case r == ',' || r == '[' || r == ']' || r == '#':
			return fmt.Errorf("%w: tags: %q contains %q; tags may not contain , [ ] or #", ErrInvalid, t, r)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ':
			// Cf holds the invisible bidi overrides used to disguise text.
			return fmt.Errorf("%w: tags: %q contains the control or invisible character %U", ErrInvalid, t, r)
		}
	}
	return nil
}

// validateDate checks that a date a caller sets is within minDate..maxDate;
// the zero time means "not set" and passes.
func validateDate(field string, t time.Time) error {
	if t.IsZero() {
		return nil
	}
	if t.Before(minDate) || t.After(maxDate) {
		return fmt.Errorf("%w: %s: %s is outside %d..%d", ErrInvalid, field, t.UTC().Format(time.RFC3339), minDate.Year(), maxDate.Year())
	}
	return nil
}

// validateDates checks effective_at and expires_at of a new memory: each in
// range, and a memory cannot expire before (or when) it takes effect.
func validateDates(effective, expires time.Time) error {
	if err := errors.Join(validateDate("effective_at", effective), validateDate("expires_at", expires)); err != nil {
		return err
	}
	if !expires.IsZero() && !effective.IsZero() && !expires.After(effective) {
		return fmt.Errorf("%w: expires_at %s is not after effective_at %s", ErrInvalid, expires.UTC().Format(time.RFC3339), effective.UTC().Format(time.RFC3339))
	}
	return nil
}

// validatePatchRefs checks what a patch sets beyond validateFields: dates
// in range, and ids in supersedes and links.
func validatePatchRefs(p Patch) error {
	var errs []error
	if p.EffectiveAt != nil {
		errs = append(errs, validateDate("effective_at", *p.EffectiveAt))
	}
	if p.ExpiresAt != nil {
		errs = append(errs, validateDate("expires_at", *p.ExpiresAt))
	}
	if p.EffectiveAt != nil && p.ExpiresAt != nil && !p.ExpiresAt.IsZero() && !p.EffectiveAt.IsZero() && !p.ExpiresAt.After(*p.EffectiveAt) {
		errs = append(errs, fmt.Errorf("%w: expires_at %s is not after effective_at %s", ErrInvalid, p.ExpiresAt.UTC().Format(time.RFC3339), p.EffectiveAt.UTC().Format(time.RFC3339)))
	}
	for _, list := range []*[]string{p.Supersedes, p.Links} {
		if list == nil {
			continue
		}
		for _, id := range *list {
			if err := ValidateID(id); err != nil {
				errs = append(errs, fmt.Errorf("supersedes/links: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

// validateTitleChars refuses control characters and bidirectional
// overrides in a title: it becomes a commit subject and a file name, where
// an override can make it read differently from what it is ("Trojan
// Source"). Joiners and other invisible characters stay allowed, because
// emoji sequences need them.
func validateTitleChars(title string) error {
	for _, r := range title {
		if unicode.IsControl(r) || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' {
			return fmt.Errorf("%w: title: contains the control or bidi character %U", ErrInvalid, r)
		}
	}
	return nil
}

// controlAt returns the first control character of s that text for people
// must not carry, with its line and column, or ok false. Allowed are tab,
// line feed and a carriage return that ends a line (CRLF); refused are the
// other C0 controls (ESC starts the terminal's escape sequences, BEL ends
// its OSC ones), a lone carriage return (it overwrites the line shown),
// DEL and the C1 controls (U+0080-U+009F; U+009B is a one-character CSI).
// The terminal output of memvault strips them anyway (termsafe); refusing
// them at the write keeps them out of the repository, whose files other
// tools print.
func controlAt(s string) (r rune, line, col int, ok bool) {
	line, col = 1, 1
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == '\n':
			line, col = line+1, 1
			i += size
			continue
		case c == '\t', c == '\r' && i+1 < len(s) && s[i+1] == '\n':
		case c < 0x20, c == 0x7f, c >= 0x80 && c <= 0x9f:
			return c, line, col, true
		}
		col++
		i += size
	}
	return 0, 0, 0, false
}

// refuseControls refuses field's text s when it holds a control character
// (see controlAt), naming it and where.
func refuseControls(field, s string) error {
	r, line, col, found := controlAt(s)
	if !found {
		return nil
	}
	name := ""
	switch r {
	case 0x1b:
		name = " (ESC, which starts terminal escape sequences)"
	case 0x07:
		name = " (BEL)"
	case '\r':
		name = " (a carriage return not ending a line)"
	}
	return fmt.Errorf("%w: %s: the control character %U%s at line %d, column %d: memories are text; remove it", ErrInvalid, field, r, name, line, col)
}
