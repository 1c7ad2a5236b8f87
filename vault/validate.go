package vault

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/memory"
)

// Limits on what a write may contain. Larger input is refused with a
// message that says which field and by how much.
const (
	MaxTitleRunes   = 200
	MaxContentBytes = 64 << 10
	MaxTags         = 32
	MaxTagRunes     = 64
	MaxReasonBytes  = 4 << 10
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

// validateNew checks and normalises a new memory.
func (v *Vault) validateNew(n *NewMemory, by Author) error {
	n.Title = strings.TrimSpace(n.Title)
	if n.Layer == 0 {
		n.Layer = Project
	}
	if n.Importance == 0 {
		n.Importance = 5
	}
	if err := validateFields(&n.Title, &n.Content, &n.Layer, &n.Tags, &n.Importance, by); err != nil {
		return err
	}
	if err := refuseSecretLists(namedList{"aliases", n.Aliases}, namedList{"supersedes", n.Supersedes}, namedList{"links", n.Links}, namedList{"refs", n.Refs}); err != nil {
		return err
	}
	if err := memory.CheckRefs(n.Refs); err != nil {
		return err
	}
	if n.ID != "" {
		if err := ValidateID(n.ID); err != nil {
			return fmt.Errorf("id: %w", err)
		}
	}
	if err := validateDates(n.EffectiveAt, n.ExpiresAt); err != nil {
		return err
	}
	n.Supersedes = dedupeIDs(n.Supersedes)
	for _, id := range append(slices.Clone(n.Supersedes), n.Links...) {
		if err := ValidateID(id); err != nil {
			return fmt.Errorf("supersedes/links: %w", err)
		}
		if id == n.ID && id != "" {
			return ErrSupersedesSelf
		}
	}
	return nil
}

func validatePatch(p Patch, by Author) error {
	var supersedes, links []string
	if p.Supersedes != nil {
		supersedes = *p.Supersedes
	}
	if p.Links != nil {
		links = *p.Links
	}
	// Before the id checks, whose messages quote the id.
	if err := refuseSecretLists(namedList{"supersedes", supersedes}, namedList{"links", links}); err != nil {
		return err
	}
	if err := validatePatchRefs(p); err != nil {
		return err
	}
	if p.Refs != nil {
		if err := memory.CheckRefs(*p.Refs); err != nil {
			return err
		}
	}
	return validateFields(p.Title, p.Content, p.Layer, p.Tags, p.Importance, by)
}

// checkText finds the first byte that keeps s from being text: a NUL
// (which is valid UTF-8, so it is named as itself) or invalid UTF-8, at a
// 1-based line and column (in characters).
func checkText(s string) error {
	line, col := 1, 1
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0:
			return fmt.Errorf("NUL byte at line %d, column %d: a memory is text; remove it", line, col)
		case r == utf8.RuneError && size == 1:
			return fmt.Errorf("invalid UTF-8 at line %d, column %d (byte 0x%02x)", line, col, s[i])
		case r == '\n':
			line, col = line+1, 1
		default:
			col++
		}
		i += size
	}
	return nil
}

// validateFields checks the fields a create or an update may set; nil
// pointers are skipped. Tags are normalised in place.
func validateFields(title, content *string, layer *Layer, tags *[]string, importance *int, by Author) error {
	if title != nil {
		*title = strings.TrimSpace(*title)
		switch {
		case *title == "":
			return fmt.Errorf("%w: title: must not be empty", ErrInvalid)
		case utf8.RuneCountInString(*title) > MaxTitleRunes:
			return fmt.Errorf("%w: title: %d characters, limit %d", ErrInvalid, utf8.RuneCountInString(*title), MaxTitleRunes)
		case strings.ContainsAny(*title, "\n\r"):
			return fmt.Errorf("%w: title: must be one line", ErrInvalid)
		case !utf8.ValidString(*title):
			return fmt.Errorf("%w: title: not valid UTF-8", ErrInvalid)
		}
		if err := validateTitleChars(*title); err != nil {
			return err
		}
	}
	if content != nil {
		if len(*content) > MaxContentBytes {
			return fmt.Errorf("%w: content: %d bytes, limit %d", ErrInvalid, len(*content), MaxContentBytes)
		}
		if err := checkText(*content); err != nil {
			return fmt.Errorf("%w: content: %w", ErrInvalid, err)
		}
		if err := refuseControls("content", *content); err != nil {
			return err
		}
		if strings.HasPrefix(strings.TrimLeft(*content, "\ufeff"), "---") {
			// A leading --- would be read back as front matter.
			return fmt.Errorf("%w: content: must not start with a --- line", ErrInvalid)
		}
	}
	if layer != nil && !layer.Valid() {
		return fmt.Errorf("%w: layer: %d", ErrInvalidLayer, int(*layer))
	}
	if importance != nil && (*importance < 1 || *importance > 10) {
		return fmt.Errorf("%w: importance: %d is outside 1..10", ErrInvalid, *importance)
	}
	if tags != nil {
		norm := memory.MergeTags(*tags)
		if len(norm) > MaxTags {
			return fmt.Errorf("%w: tags: %d tags, limit %d", ErrInvalid, len(norm), MaxTags)
		}
		for _, t := range norm {
			if err := validateTag(t); err != nil {
				return err
			}
		}
		*tags = norm
	}
	if len(by.Reason) > MaxReasonBytes {
		return fmt.Errorf("%w: reason: %d bytes, limit %d", ErrInvalid, len(by.Reason), MaxReasonBytes)
	}
	if err := refuseControls("reason", by.Reason); err != nil {
		return err
	}
	return refuseSecrets(title, content, tags, by.Reason) // secrets.go
}
