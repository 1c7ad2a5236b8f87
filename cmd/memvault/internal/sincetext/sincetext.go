package sincetext

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/since"
)

// Options shape a rendering.
type Options struct {
	// Heading is the section's title, without the "## ".
	Heading string
	// Max caps the entries (changes, then memories gone stale); 0 means
	// no cap. The rest is counted in one last line that says how to see
	// them (More).
	Max int
	// More is the command that lists everything, for that last line.
	More string
	// Empty is the line printed when there is nothing to tell; "" prints
	// nothing at all then.
	Empty string
}

// maxReason caps a reason, in runes: a line per memory, the commit has
// the rest.
const maxReason = 160

// maxBy caps the commits named per memory.
const maxBy = 2

// Markdown renders rep as a Markdown section.
func Markdown(rep since.Report, o Options) string {
	if rep.Empty() {
		if o.Empty == "" {
			return ""
		}
		return "\n## " + o.Heading + "\n" + o.Empty + "\n"
	}
	var b strings.Builder
	b.WriteString("\n## " + o.Heading + "\n")
	shown, total := 0, len(rep.Changes)+len(rep.Stale)
	room := func() bool { return o.Max == 0 || shown < o.Max }
	for _, c := range rep.Changes {
		if !room() {
			break
		}
		b.WriteString(Change(c))
		shown++
	}
	for _, w := range rep.Stale {
		if !room() {
			break
		}
		fmt.Fprintf(&b, "- Went %s: %q (%s): %s\n", strings.ReplaceAll(string(w.State), "_", " "), w.Title, w.ID, cut(w.Reason))
		shown++
	}
	if shown < total || rep.More {
		line := fmt.Sprintf("- … %d more not shown", total-shown)
		if rep.More {
			line = fmt.Sprintf("- … more changes than the %d commits read", rep.Commits)
		}
		if o.More != "" {
			line += "; `" + o.More + "` lists them"
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Change renders one memory change as a list item: what, which memory,
// the other end of a supersession, then who and why.
func Change(c since.Change) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- %s %q (%s, %s)", verb(c.Kind), c.Title, c.ID, c.Layer)
	if len(c.SupersededBy) > 0 {
		b.WriteString(" by " + refs(c.SupersededBy))
	}
	if len(c.Supersedes) > 0 {
		b.WriteString(", replacing " + refs(c.Supersedes))
	}
	for i, a := range c.By {
		if i == maxBy {
			fmt.Fprintf(&b, " (+%d more commits)", len(c.By)-i)
			break
		}
		sep := " — "
		if i > 0 {
			sep = "; "
		}
		b.WriteString(sep + who(a) + ": " + why(a))
	}
	return b.String() + "\n"
}

func verb(kind string) string {
	if kind == "" {
		return kind
	}
	return strings.ToUpper(kind[:1]) + kind[1:]
}

func refs(rs []vault.Ref) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		if r.Title != "" {
			parts[i] = fmt.Sprintf("%q (%s)", r.Title, r.ID)
		} else {
			parts[i] = r.ID
		}
	}
	return strings.Join(parts, ", ")
}

// who names a commit's author, the client that wrote through memvault,
// the day and the commit.
func who(a since.Author) string {
	s := a.Name
	if a.Client != "" {
		s += " via " + a.Client
	}
	return s + fmt.Sprintf(", %s, %s", a.When.UTC().Format(time.DateOnly), short(a.Commit))
}

// why is a commit's reason, else its subject, on one line.
func why(a since.Author) string {
	if r := strings.TrimSpace(a.Reason); r != "" {
		return cut(r)
	}
	return cut(a.Subject)
}

func cut(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxReason {
		return s
	}
	r := []rune(s)
	return string(r[:maxReason-1]) + "…"
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}

// Heading is the section title for a report: since the last session
// (with its time), since a commit or a date as the caller named it.
func Heading(rep since.Report, named string) string {
	n := fmt.Sprintf("%d %s", rep.Commits, plural(rep.Commits, "commit", "commits"))
	if named != "" {
		return fmt.Sprintf("Memory changes since %s (%s)", named, n)
	}
	return fmt.Sprintf("New since your last session (%s UTC, %s)", rep.Since.UTC().Format("2006-01-02 15:04"), n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ForCLI is what `memvault digest` prints: named is the --since value
// ("" or LAST for the last session); markdown keeps the "## " heading
// (to paste into an issue or a pull request), the text form drops it.
func ForCLI(rep since.Report, named string, markdown bool) string {
	if strings.EqualFold(named, "LAST") {
		named = ""
	}
	var out string
	switch {
	case rep.First && named == "":
		out = "\n## No earlier session in this clone\nNothing to compare with yet: the next `memvault digest` lists what changed from here.\n"
	default:
		empty := "No memory changes since your last session."
		if named != "" {
			empty = "No memory changes since " + named + "."
		}
		more := "memvault diff " + short(rep.Base) + "..HEAD"
		if rep.Base == "" {
			more = "memvault list" // the range starts at the first commit
		}
		out = Markdown(rep, Options{Heading: Heading(rep, named), Empty: empty, More: more})
	}
	out = strings.TrimPrefix(out, "\n")
	if !markdown {
		out = strings.TrimPrefix(out, "## ")
	}
	return out
}
