package teamsync

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
)

// Where a broken memory file's version came from.
const (
	// OriginHandEdit: the file differs from HEAD; sync does not commit it.
	OriginHandEdit = "not committed"
	// OriginUpstream: HEAD's version is the remote's; it is merged, not
	// made here, and the fix comes from the remote too.
	OriginUpstream = "from the remote"
	// OriginLocal: committed in this clone only; sync does not push it.
	OriginLocal = "committed here"
)

// Broken is a memory file with an error (it does not parse, or holds
// conflict markers or a secret): sync reports it and leaves it out of
// what it commits, and it never stops the fetch, the merge of the other
// files or the push.
type Broken struct {
	// Path is vault-relative; Line the file line of its first error.
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Problem string `json:"problem"`
	// Fix says how to fix it ("quote the title: ...").
	Fix string `json:"fix"`
	// Commit and Author name the commit that last changed the file,
	// which made the version that breaks ("" when it is not committed).
	Commit string `json:"commit,omitempty"`
	Author string `json:"author,omitempty"`
	// Origin is OriginHandEdit, OriginUpstream or OriginLocal.
	Origin string `json:"origin,omitempty"`
}

// String is one line for people and logs: where, what, who, and the fix.
func (b Broken) String() string {
	var s strings.Builder
	s.WriteString(b.Path)
	if b.Line > 0 {
		fmt.Fprintf(&s, ":%d", b.Line)
	}
	s.WriteString(": " + b.Problem)
	switch {
	case b.Commit != "":
		fmt.Fprintf(&s, " (%s in %s by %s)", b.Origin, b.Commit, b.Author)
	case b.Origin != "":
		fmt.Fprintf(&s, " (%s)", b.Origin)
	}
	return s.String() + "; fix: " + b.Fix
}

// brokenOf lists the vault's files with errors, one entry a file (its
// first error), with the fix for each; line reads a vault-relative file's
// line n ("" when it cannot).
func brokenOf(diags []*vault.Diagnostic, line func(rel string, n int) string) []Broken {
	var out []Broken
	seen := map[string]bool{}
	for _, d := range diags {
		if d.Severity != parser.SeverityError || seen[d.Path] {
			continue
		}
		seen[d.Path] = true
		problem := d.Err.Error()
		if d.Field != "" {
			problem = d.Field + ": " + problem
		}
		out = append(out, Broken{Path: d.Path, Line: d.Line, Problem: problem, Fix: fixFor(d, line(d.Path, d.Line))})
	}
	return out
}

// fixFor says how to fix the error d at a file line whose text is text.
func fixFor(d *vault.Diagnostic, text string) string {
	msg := d.Err.Error()
	switch {
	case errors.Is(d.Err, vault.ErrSecret):
		return "remove the secret from the file and commit (and rotate it: it stays in git history)"
	case errors.Is(d.Err, vault.ErrConflictMarkers):
		return "keep the right lines, delete the <<<<<<< ======= >>>>>>> lines, and commit"
	case strings.Contains(msg, "mapping values are not allowed"), strings.Contains(msg, "did not find expected key"):
		// The usual hand edit: a colon (or '#', '[', ...) in an unquoted
		// value.
		if q, ok := vault.QuotedLine(text); ok {
			key, _, _ := strings.Cut(q, ":")
			return fmt.Sprintf("quote the %s: %s, then commit", key, q)
		}
		return "quote the value on that line (\"...\"), then commit"
	}
	return "correct the front matter at that line (memvault lint explains), then commit"
}

// classify says where each broken file's version came from: a hand edit
// (the work tree differs from HEAD), the remote (HEAD's version is
// upstream's), or a commit made here; and names the commit and author of
// the committed ones.
func (s *Syncer) classify(ctx context.Context, upstream string, bs []Broken) []Broken {
	for i := range bs {
		b := &bs[i]
		p := path.Join(s.VaultPrefix, b.Path)
		head := s.object(ctx, "HEAD:"+p)
		wt, err := s.git(ctx, nil, "hash-object", "--", p)
		if head == "" || err != nil || strings.TrimSpace(wt) != head {
			b.Origin = OriginHandEdit
			continue
		}
		b.Origin = OriginLocal
		if upstream != "" && s.object(ctx, upstream+":"+p) == head {
			b.Origin = OriginUpstream
		}
		out, err := s.git(ctx, nil, "log", "-1", "--format=%h%x00%an <%ae>", "HEAD", "--", p)
		if err == nil {
			b.Commit, b.Author, _ = strings.Cut(strings.TrimSpace(out), "\x00")
		}
	}
	return bs
}

// object is the object name rev names, "" when there is none.
func (s *Syncer) object(ctx context.Context, rev string) string {
	out, err := s.git(ctx, nil, "rev-parse", "-q", "--verify", rev)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// localBreaks lists the broken files committed here and not on the
// remote, which the push would spread.
func localBreaks(bs []Broken) []string {
	var out []string
	for _, b := range bs {
		if b.Origin == OriginLocal {
			out = append(out, b.String())
		}
	}
	return out
}
