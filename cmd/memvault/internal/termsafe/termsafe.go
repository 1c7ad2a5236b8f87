// Package termsafe keeps what memvault prints for people from driving
// their terminal. Memory files, commit messages, author names and MCP
// clients' text are outside input: a title holding ESC [2J would clear
// the screen, an OSC sequence retitle the window or plant a hyperlink, a
// carriage return overwrite the line before it. Writer removes, as the
// bytes go out, escape sequences, C0 control characters but newline and
// tab, DEL and C1 control characters; everything else, UTF-8 included,
// passes unchanged. JSON output does not go through it: it escapes
// control characters itself and must stay exact.
package termsafe

import (
	"io"
	"strings"
)

// state is where the filter is inside an escape sequence.
type state int

const (
	text   state = iota
	esc          // after ESC
	csi          // inside ESC [ ... up to a final byte 0x40–0x7e
	str          // inside ESC ] (OSC), P (DCS), _ (APC), ^ (PM), X (SOS): up to BEL or ESC \
	strEsc       // ESC inside a string: ends it when a \ follows
)

// Writer filters what it writes to W. It keeps its place in an escape
// sequence or a UTF-8 sequence across calls, so a sequence split between
// two writes is removed whole.
type Writer struct {
	W     io.Writer
	state state
	// lead is a UTF-8 lead byte 0xC2 held until the next byte says
	// whether the pair is a C1 control (U+0080–U+009F).
	lead bool
}

// New returns a Writer filtering what goes to w.
func New(w io.Writer) *Writer { return &Writer{W: w} }

// Write filters p and writes what is left. It reports len(p) when the
// filtered bytes were all written, as io.Writer requires of a writer
// that consumed them.
func (f *Writer) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p)+1)
	for _, c := range p {
		out = f.step(out, c)
	}
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := f.W.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// step filters one byte, appending what is kept to out.
func (f *Writer) step(out []byte, c byte) []byte {
	switch f.state {
	case esc:
		if c >= 0x80 {
			// Not a sequence: drop the ESC alone and keep the
			// character it stood before, whole.
			f.state = text
			return f.step(out, c)
		}
		switch c {
		case '[':
			f.state = csi
		case ']', 'P', '_', '^', 'X':
			f.state = str
		default:
			f.state = text // a two-byte sequence (ESC 7, ESC c, ...)
		}
		return out
	case csi:
		if c >= 0x80 || c < 0x20 {
			// A CSI holds printable ASCII only: anything else ends
			// it and is read as text.
			f.state = text
			return f.step(out, c)
		}
		if c >= 0x40 && c <= 0x7e {
			f.state = text
		}
		return out
	case str:
		switch c {
		case 0x07:
			f.state = text
		case 0x1b:
			f.state = strEsc
		}
		return out
	case strEsc:
		f.state = str
		if c == '\\' {
			f.state = text
		}
		return out
	}
	if f.lead {
		f.lead = false
		switch {
		case c >= 0x80 && c <= 0x9f:
			return out // U+0080–U+009F: a C1 control
		case c >= 0xa0 && c <= 0xbf:
			out = append(out, 0xc2)
		}
		// Else the lead byte stood alone (invalid UTF-8): dropped, so
		// that it cannot pair with a later byte into a C1 control.
	}
	switch {
	case c == 0x1b:
		f.state = esc
	case c == '\n' || c == '\t':
		out = append(out, c)
	case c < 0x20 || c == 0x7f:
	case c == 0xc2:
		f.lead = true
	default:
		out = append(out, c)
	}
	return out
}

// String is s as Writer lets it through.
func String(s string) string {
	var b strings.Builder
	f := New(&b)
	f.Write([]byte(s))
	if f.lead {
		b.WriteByte(0xc2)
	}
	return b.String()
}
