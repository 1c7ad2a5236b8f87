package vault

import (
	"fmt"
	"unicode/utf8"
)

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
