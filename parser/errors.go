package parser

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors wrapped by the diagnostics. Test with errors.Is.
var (
	// ErrTooLarge reports a file over the size limit; Parse returns no Document.
	ErrTooLarge = kindErr("invalid", "file too large")
	// ErrBinary reports a file with NUL bytes or invalid UTF-8; Parse returns no Document.
	ErrBinary = kindErr("invalid", "not a text file")
	// ErrNoFrontMatter reports a file that does not start with a "---" line.
	ErrNoFrontMatter = kindErr("invalid", "no front matter")
	// ErrUnclosed reports a front matter block without its closing "---" line.
	ErrUnclosed = kindErr("invalid", "front matter not closed")
	// ErrSyntax reports front matter that is not valid YAML or not a mapping.
	ErrSyntax = kindErr("invalid", "invalid front matter")
	// ErrType reports a front-matter field whose value has the wrong type.
	ErrType = kindErr("invalid", "wrong type")
	// ErrDuplicateKey reports a front-matter key written more than once.
	ErrDuplicateKey = kindErr("invalid", "duplicate key")
	// ErrValue reports a value that Document.Set cannot write.
	ErrValue = kindErr("invalid", "unsupported value")
)

// Severity tells how much of a document a diagnostic invalidates.
type Severity int

const (
	// SeverityError means the front matter as a whole could not be read (or,
	// when Parse returns no Document, the file as a whole): Meta is empty and
	// the file is not usable as a memory until fixed. The body is still parsed.
	SeverityError Severity = iota
	// SeverityWarning means one field was dropped (wrong type, duplicate key);
	// the rest of Meta is valid and the memory is usable.
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Error is a diagnostic tied to a place in a file.
type Error struct {
	Path     string   // file path as given to Parse
	Line     int      // 1-based file line, 0 when not tied to a line
	Field    string   // front-matter key, "" when not tied to a key
	Err      error    // the problem; wraps one of the package's sentinel errors
	Severity Severity // see Severity
}

// Error renders "path:line: field: problem", leaving out ":line" when Line is
// 0 and "field: " when Field is empty.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying problem.
func (e *Error) Unwrap() error { return e.Err }

// kindError is a sentinel error with a kind, named in the words of the
// domain's vault/fault (which fault.Of reads through ErrorKind): this
// package does not import the domain.
type kindError struct{ kind, msg string }

func kindErr(kind, msg string) *kindError { return &kindError{kind: kind, msg: msg} }

func (e *kindError) Error() string { return e.msg }

// ErrorKind returns the kind of failure, a vault/fault kind.
func (e *kindError) ErrorKind() string { return e.kind }

// HasError reports whether diags hold an error (warnings pass).
func HasError(diags []*Error) bool {
	for _, d := range diags {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Join joins diags into one error, as errors.Join does.
func Join(diags []*Error) error {
	errs := make([]error, len(diags))
	for i, d := range diags {
		errs[i] = d
	}
	return errors.Join(errs...)
}
