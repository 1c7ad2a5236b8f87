package staleness

import (
	"fmt"
	"path"
	"strings"

	"github.com/memvault/memvault/vault/fault"
)

// ErrBadRef is wrapped by ParseRef's errors.
var ErrBadRef = fault.New(fault.Invalid, "invalid ref")

// Kind is what a ref names.
type Kind int

// The kinds of ref.
const (
	File   Kind = iota + 1 // one file: "internal/cache.go"
	Folder                 // everything under a folder: "internal/cache/"
	Glob                   // files matching a pattern: "cmd/**/*.go"
)

// Ref is one parsed entry of a memory's refs.
type Ref struct {
	// Raw is the ref as written.
	Raw string
	// Path is the repository-relative path: the file, the folder (without
	// its trailing slash) or the pattern.
	Path string
	Kind Kind
	// Symbol is the name after '#' ("Backoff", "Cache.Get"); "" for none.
	Symbol string
}

// ParseRef reads one ref: a repository-relative path with forward slashes,
// "dir/" for a folder, a pattern with '*', '?' or '[' (where "**" matches
// any number of folders), or "path#Symbol".
func ParseRef(s string) (Ref, error) {
	r := Ref{Raw: s}
	p := strings.TrimSpace(s)
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p, r.Symbol = p[:i], strings.TrimSpace(p[i+1:])
		if r.Symbol == "" {
			return Ref{}, fmt.Errorf("%w %q: empty symbol after '#'", ErrBadRef, s)
		}
	}
	p = strings.TrimPrefix(p, "./")
	switch {
	case p == "" || p == "/":
		return Ref{}, fmt.Errorf("%w %q: empty path", ErrBadRef, s)
	case strings.HasPrefix(p, "/") || strings.Contains(p, "\\"):
		return Ref{}, fmt.Errorf("%w %q: want a repository-relative path with forward slashes", ErrBadRef, s)
	}
	for seg := range strings.SplitSeq(strings.TrimSuffix(p, "/"), "/") {
		if seg == ".." || seg == "." || seg == "" {
			return Ref{}, fmt.Errorf("%w %q: want a clean repository-relative path", ErrBadRef, s)
		}
	}
	switch {
	case strings.ContainsAny(p, "*?["):
		r.Kind, r.Path = Glob, strings.TrimSuffix(p, "/")
		if _, err := path.Match(strings.ReplaceAll(r.Path, "**", "*"), ""); err != nil {
			return Ref{}, fmt.Errorf("%w %q: %w", ErrBadRef, s, err)
		}
	case strings.HasSuffix(p, "/"):
		r.Kind, r.Path = Folder, strings.TrimSuffix(p, "/")
	default:
		r.Kind, r.Path = File, p
	}
	if r.Symbol != "" && r.Kind != File {
		return Ref{}, fmt.Errorf("%w %q: a symbol needs a file", ErrBadRef, s)
	}
	return r, nil
}

// Prefix is the path a history walk watches for this ref: the file, the
// folder, or a glob's fixed leading folders ("" for the whole tree).
func (r Ref) Prefix() string {
	if r.Kind != Glob {
		return r.Path
	}
	i := strings.IndexAny(r.Path, "*?[")
	return strings.TrimSuffix(r.Path[:strings.LastIndexByte(r.Path[:i], '/')+1], "/")
}

// Matches reports whether the ref covers the repository-relative file p.
func (r Ref) Matches(p string) bool {
	switch r.Kind {
	case File:
		return p == r.Path
	case Folder:
		return strings.HasPrefix(p, r.Path+"/")
	case Glob:
		return globMatch(strings.Split(r.Path, "/"), strings.Split(p, "/"), segmentMatch)
	}
	return false
}

// globMatch matches path segments against pattern segments, "**" standing
// for any number of segments. It reads the pattern once, keeping the set
// of path positions the pattern read so far can end at (an NFA over
// segments), so it calls match at most len(pat) × len(segs) times
// whatever the pattern: a backtracking matcher tried every split of the
// path for each "**", exponential in their number. match is
// segmentMatch; tests count its calls.
func globMatch(pat, segs []string, match func(pat, seg string) bool) bool {
	// at[j]: the pattern read so far matches segs[:j]. Two rows suffice.
	at := make([]bool, 2*(len(segs)+1))
	cur, next := at[:len(segs)+1], at[len(segs)+1:]
	cur[0] = true
	for _, p := range pat {
		clear(next)
		live := false
		if p == "**" {
			// Any number of segments: every position from the first one
			// reached on.
			for j, ok := range cur {
				live = live || ok
				next[j] = live
			}
		} else {
			for j, ok := range cur[:len(segs)] {
				if ok {
					m := match(p, segs[j])
					next[j+1] = m
					live = live || m
				}
			}
		}
		if !live {
			return false
		}
		cur, next = next, cur
	}
	return cur[len(segs)]
}

// segmentMatch matches one path segment against one pattern segment.
// path.Match is linear in both (it does not backtrack over its stars),
// and ParseRef checked the pattern.
func segmentMatch(pat, seg string) bool {
	ok, _ := path.Match(pat, seg)
	return ok
}
