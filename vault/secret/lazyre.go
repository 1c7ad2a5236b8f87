package secret

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use. Compiling
// the package's expressions in init cost every memvault process a part of
// its start-up (docs/performance.md, "Figures behind the code's
// comments"), most of it for nothing: a scan runs a
// rule's expression only when one of its keywords occurs, and a process
// that writes one memory seldom meets any.
type lazyRegexp struct {
	expr string
	re   func() *regexp.Regexp
}

// lazyRE returns expr to be compiled on first use; an invalid expr panics
// then, as regexp.MustCompile would at start-up (rules_test.go compiles
// every rule's).
func lazyRE(expr string) *lazyRegexp {
	return &lazyRegexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// String returns the source text, without compiling it.
func (l *lazyRegexp) String() string { return l.expr }

// The methods below are those of [regexp.Regexp] that the rules use.

func (l *lazyRegexp) NumSubexp() int                   { return l.re().NumSubexp() }
func (l *lazyRegexp) Match(b []byte) bool              { return l.re().Match(b) }
func (l *lazyRegexp) FindIndex(b []byte) []int         { return l.re().FindIndex(b) }
func (l *lazyRegexp) FindSubmatch(b []byte) [][]byte   { return l.re().FindSubmatch(b) }
func (l *lazyRegexp) FindSubmatchIndex(b []byte) []int { return l.re().FindSubmatchIndex(b) }
func (l *lazyRegexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return l.re().FindAllSubmatchIndex(b, n)
}
