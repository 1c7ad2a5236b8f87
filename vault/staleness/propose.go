package staleness

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Files is what Propose reads of the repository at HEAD.
type Files interface {
	// Exists reports which of paths (files or folders) exist at rev.
	Exists(ctx context.Context, rev string, paths []string) (map[string]bool, error)
	// ReadFile returns a file's content at rev.
	ReadFile(ctx context.Context, rev, path string) ([]byte, error)
}

// maxProposals bounds the refs proposed for one text.
const maxProposals = 20

// The patterns are compiled on first use, not in init: every memvault
// process links this package, few of them propose refs.
var (
	backticked = lazyRegexp("`([^`\n]{1,200})`")
	// pathLike is a plain word that looks like a repository path: it has
	// a slash, or ends in a file extension.
	pathLike  = lazyRegexp(`(?:^|[\s(\[,;:"'])((?:\.?[A-Za-z0-9_\-]+/)*[A-Za-z0-9_\-][A-Za-z0-9_.\-]*(?:/|\.[A-Za-z][A-Za-z0-9]{0,7}))(?:$|[\s)\],;:"'.!?])`)
	identLike = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?(?:\(\))?$`)
)

// lazyRegexp returns expr compiled once, at the first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Mentions returns what text mentions that could be code: candidate
// paths (backticked spans, and plain words with a slash or a file
// extension) and identifiers (backticked names such as `Get`,
// `Cache.Get` or `Get()`), each once, in order.
func Mentions(text string) (paths, idents []string) {
	add := func(list []string, s string) []string {
		if s == "" || slices.Contains(list, s) {
			return list
		}
		return append(list, s)
	}
	for _, m := range backticked().FindAllStringSubmatch(text, -1) {
		s := strings.TrimSpace(m[1])
		switch {
		case identLike().MatchString(s) && !strings.Contains(s, "/") && !hasExt(s):
			idents = add(idents, strings.TrimSuffix(s, "()"))
		case !strings.ContainsAny(s, " \t"):
			paths = add(paths, cleanMention(s))
		}
	}
	for _, m := range pathLike().FindAllStringSubmatch(text, -1) {
		paths = add(paths, cleanMention(m[1]))
	}
	return paths, idents
}

// hasExt reports whether s ends in what looks like a file extension
// (".go", ".ts"), not a method (".Get").
func hasExt(s string) bool {
	e := path.Ext(s)
	return len(e) > 1 && e[1] >= 'a' && e[1] <= 'z' && len(e) <= 6
}

func cleanMention(s string) string {
	s = strings.TrimPrefix(strings.TrimRight(s, ".,;:"), "./")
	if _, err := ParseRef(s); err != nil || strings.ContainsAny(s, "#*?[") {
		return ""
	}
	return s
}

// Propose returns the refs a memory's text suggests: every mentioned path
// that exists at HEAD (a folder as "dir/"), and "path#Name" for each
// backticked identifier that a mentioned file defines (then instead of
// the bare file). Refs already in have are left out. A person or an
// assistant accepts them; nothing is added silently.
func Propose(ctx context.Context, files Files, text string, have []string) ([]string, error) {
	paths, idents := Mentions(text)
	if len(paths) == 0 {
		return nil, nil
	}
	for i, p := range paths {
		paths[i] = strings.TrimSuffix(p, "/")
	}
	exists, err := files.Exists(ctx, "", paths)
	if err != nil {
		return nil, err
	}
	var out []string
	add := func(r string) {
		if !slices.Contains(have, r) && !slices.Contains(have, strings.TrimSuffix(r, "/")) && !slices.Contains(out, r) && len(out) < maxProposals {
			out = append(out, r)
		}
	}
	for _, p := range paths {
		if !exists[p] {
			continue
		}
		src, err := files.ReadFile(ctx, "", p)
		if err != nil { // a folder
			add(p + "/")
			continue
		}
		defined := false
		for _, id := range idents {
			if _, ok := block(p, src, id); ok {
				add(p + "#" + id)
				defined = true
			}
		}
		if !defined {
			add(p)
		}
	}
	return out, nil
}
