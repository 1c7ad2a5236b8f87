// Package digesttext renders the session-start digest (vault/digest)
// as Markdown lines, for the doors that show it: the MCP server's
// memory://context and the assistant hooks' session start. The digest's
// policy (which memories, in which order, within which budget) is
// vault/digest's; this package only words it and measures the words.
package digesttext

import (
	"fmt"
	"strings"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/digest"
	"github.com/memvault/memvault/vault/staleness"
)

// Lines renders the digest's parts and measures them for its budget (it
// is a digest.Sizer). Clean, when set, is applied to the text taken
// from memories (titles, snippets), for doors whose output must carry no
// control characters.
type Lines struct {
	Clean func(string) string
}

func (l Lines) clean(s string) string {
	if l.Clean != nil {
		return l.Clean(s)
	}
	return s
}

// Heading is a section's heading line.
func (Lines) HeadingLine(title string) string { return "\n## " + title + "\n" }

// MemoryLine is one memory's line: title, id, snippet and the ids of the
// rules it replaces.
func (l Lines) MemoryLine(r vault.SetResult) string {
	line := fmt.Sprintf("- %s (%s): %s", l.clean(r.Memory.Title), r.Memory.ID, OneLine(l.clean(r.Snippet)))
	if len(r.Supersedes) > 0 {
		// Ids only: the digest leaves the old rules' wording out.
		ids := make([]string, 0, len(r.Supersedes))
		for _, ref := range r.Supersedes {
			ids = append(ids, ref.ID)
		}
		line += " (replaces " + strings.Join(ids, ", ") + ")"
	}
	for _, lb := range r.Memory.Labels() {
		line += " [" + l.clean(lb) + "]"
	}
	return line + "\n"
}

// ConflictLine names a pair of rival rules.
func (Lines) ConflictLine(p [2]string) string {
	return fmt.Sprintf("- %s may conflict with %s\n", p[0], p[1])
}

func (l Lines) Heading(title string) int     { return len(l.HeadingLine(title)) }
func (l Lines) Memory(r vault.SetResult) int { return len(l.MemoryLine(r)) }
func (l Lines) Conflict(p [2]string) int     { return len(l.ConflictLine(p)) }

// Write renders the digest's sections, each memory's line with its
// staleness note (states, by id).
func (l Lines) Write(b *strings.Builder, d digest.Digest, states map[string]staleness.Staleness) {
	for _, sec := range d.Sections {
		b.WriteString(l.HeadingLine(sec.Title))
		for _, r := range sec.Memories {
			b.WriteString(WithStaleness(l.MemoryLine(r), states[r.Memory.ID]))
		}
		for _, p := range sec.Conflicts {
			b.WriteString(l.ConflictLine(p))
		}
	}
}

// Shown lists the memories the digest shows.
func Shown(d digest.Digest) []vault.SetResult {
	var shown []vault.SetResult
	for _, sec := range d.Sections {
		shown = append(shown, sec.Memories...)
	}
	return shown
}

// WithStaleness adds to a digest line a short note when the code the
// memory refers to changed since it was last written or confirmed, so an
// assistant checks the code before relying on it.
func WithStaleness(line string, st staleness.Staleness) string {
	if st.State == "" || st.State == staleness.Fresh {
		return line
	}
	reason := []rune(st.Reason)
	if len(reason) > 120 {
		reason = append(reason[:119], '…')
	}
	return strings.TrimSuffix(line, "\n") + fmt.Sprintf(" [%s: %s]\n", strings.ReplaceAll(string(st.State), "_", " "), string(reason))
}

// LeftOutReserve is the part of the budget kept for the line that says
// what the digest left out (LeftOutLine), so the whole fits.
const LeftOutReserve = 160

// LeftOutLine says what the digest left out, by layer, and how to see
// it: "(12 more memories not shown: 5 L2, 7 L3; use the recall tool to
// see them)".
func LeftOutLine(d digest.Digest) string {
	var parts, what []string
	n := 0
	for _, l := range vault.AllLayers() {
		if c := d.Omitted[l]; c > 0 {
			n += c
			parts = append(parts, fmt.Sprintf("%d L%d", c, int(l)))
		}
	}
	if n > 0 {
		what = append(what, Plural(n, "more memory", "more memories"))
	}
	if d.OmittedConflicts > 0 {
		what = append(what, Plural(d.OmittedConflicts, "open conflict", "open conflicts"))
	}
	line := "\n(" + strings.Join(what, " and ") + " not shown"
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	return line + "; use the recall tool to see them)\n"
}

// Plural is "1 one" or "n many".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// OneLine folds s's white space into single spaces.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
