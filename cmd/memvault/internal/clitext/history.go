package clitext

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
)

// listDelta renders the change of a list field ("[a, b]" → "[b, c]") as
// "+c −a", which reads better than two long lists of ids.
func listDelta(old, new string) string {
	parse := func(s string) []string {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if s == "" {
			return nil
		}
		return strings.Split(s, ", ")
	}
	a, b := parse(old), parse(new)
	var parts []string
	for _, x := range b {
		if !slices.Contains(a, x) {
			parts = append(parts, "+"+x)
		}
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			parts = append(parts, "−"+x)
		}
	}
	if len(parts) == 0 {
		return "reordered"
	}
	return strings.Join(parts, " ")
}

// isListField reports whether a field change holds lists.
func isListField(field string) bool {
	switch field {
	case "tags", "supersedes", "links":
		return true
	}
	return false
}

// fmtChange renders one field change for people.
func fmtChange(c history.FieldChange) string {
	if isListField(c.Field) {
		return c.Field + " " + listDelta(c.Old, c.New)
	}
	return fmt.Sprintf("%s %s → %s", c.Field, orNone(c.Old), orNone(c.New))
}

// History writes a story as readable blocks; one told by the user
// vault says so.
func History(w io.Writer, story *history.Story, vaultName string) {
	revs := story.Revisions
	where := ""
	if vaultName != vault.ProjectVault {
		where = ", in the " + vaultName + " vault"
	}
	fmt.Fprintf(w, "%s (%s)%s\n", story.Title, story.ID, where)
	if len(revs) == 0 {
		fmt.Fprintln(w, "no commits yet: the memory is not committed (L1 transient, or a hand edit; see memvault doctor)")
		return
	}
	fmt.Fprintf(w, "%s, newest first\n", Plural(len(revs), "revision"))
	for _, r := range revs {
		fmt.Fprintln(w)
		who := r.Author
		if r.Client != "" {
			who += " via " + r.Client
		}
		head := fmt.Sprintf("%s  %s  %s  %s", r.Date.Format("2006-01-02 15:04 MST"), history.ShortHash(r.Commit), who, r.Kind)
		if r.Version > 0 {
			head += fmt.Sprintf(" (version %d)", r.Version)
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "  %s\n", r.Subject)
		if r.Reason != "" {
			fmt.Fprintf(w, "  why: %s\n", IndentRest(r.Reason, "       "))
		}
		for _, n := range r.Merged {
			fmt.Fprintf(w, "  from %s  %s%s: %s\n", history.ShortHash(n.Commit), n.Author, prefixed(" via ", n.Client), n.Subject)
			if n.Reason != "" {
				fmt.Fprintf(w, "    why: %s\n", IndentRest(n.Reason, "         "))
			}
		}
		if r.Damaged != "" {
			fmt.Fprintf(w, "  damaged: %s (the memory stays its last version that parsed)\n", r.Damaged)
		}
		if r.OldPath != "" {
			fmt.Fprintf(w, "  moved: %s → %s\n", r.OldPath, r.Path)
		}
		for _, c := range r.Changes {
			fmt.Fprintf(w, "  %s\n", fmtChange(c))
		}
		if len(r.BodyDiff) > 0 {
			fmt.Fprintln(w, "  body:")
			for _, l := range r.BodyDiff {
				fmt.Fprintf(w, "    %s\n", l)
			}
			if r.BodyDiffMore > 0 {
				fmt.Fprintf(w, "    … %d more changed lines (git show %s)\n", r.BodyDiffMore, history.ShortHash(r.Commit))
			}
		}
	}
}

// IndentRest indents every line after the first.
func IndentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// whyHistoryLines caps the condensed history in why's report.
const whyHistoryLines = 8

// Why writes the report as a short readable story.
func Why(w io.Writer, rep *history.Report, st *view.Staleness) {
	mem := rep.Memory
	fmt.Fprintf(w, "%s\n", mem.Title)
	fmt.Fprintf(w, "  %s · %s · L%d %s · importance %d · version %d · %s\n",
		mem.ID, mem.Path, int(mem.Layer), mem.Layer, mem.Importance, mem.Version, rep.State)
	line := "  created " + mem.CreatedAt.UTC().Format("2006-01-02")
	if !mem.UpdatedAt.Equal(mem.CreatedAt) {
		line += ", last changed " + mem.UpdatedAt.UTC().Format("2006-01-02")
	}
	if !mem.EffectiveAt.IsZero() {
		line += ", in force from " + mem.EffectiveAt.UTC().Format("2006-01-02")
	}
	if !mem.ExpiresAt.IsZero() {
		line += ", expires " + mem.ExpiresAt.UTC().Format("2006-01-02")
	}
	fmt.Fprintln(w, line)
	fmt.Fprint(w, StalenessLine(st))

	fmt.Fprintln(w, "\nWhat it replaced")
	if len(rep.Replaced) == 0 {
		fmt.Fprintln(w, "  nothing: it supersedes no earlier memory")
	}
	chain(w, rep.Replaced, "  ")

	fmt.Fprintln(w, "\nHow it changed")
	switch {
	case !rep.InGit:
		fmt.Fprintln(w, "  unknown: the vault is not in a git repository")
	case len(rep.History) == 0:
		fmt.Fprintln(w, "  not committed yet")
	default:
		for i, r := range rep.History {
			if i == whyHistoryLines {
				fmt.Fprintf(w, "  … %d older (memvault history %s)\n", len(rep.History)-i, mem.ID)
				break
			}
			fmt.Fprintf(w, "  %s  %-11s  %s%s\n", r.Date.Format("2006-01-02"), orDash(r.Client), view.Summary(r), reasonSuffix(r.Why()))
		}
	}

	fmt.Fprintln(w, "\nPossible rivals")
	if len(rep.Rivals) == 0 {
		fmt.Fprintln(w, "  none among the top results")
	}
	for _, r := range rep.Rivals {
		fmt.Fprintf(w, "  ⚠ %s (%s): neither supersedes the other; ask which rule holds\n", orDash(r.Title), r.ID)
	}
}

func chain(w io.Writer, reps []history.Replacement, indent string) {
	for _, r := range reps {
		title := r.Title
		if title == "" {
			title = "(unknown title)"
		}
		state := r.Status
		if r.Missing {
			state = "no longer in the vault"
		}
		fmt.Fprintf(w, "%s↳ %s (%s)%s\n", indent, title, r.ID, prefixed(" — ", state))
		if r.Replaced != nil {
			fmt.Fprintf(w, "%s    replaced %s%s\n", indent, noteLine(r.Replaced), reasonSuffix(r.Replaced.Reason))
		}
		if r.Marked != nil && (r.Replaced == nil || r.Marked.Commit != r.Replaced.Commit) {
			fmt.Fprintf(w, "%s    marked superseded %s%s\n", indent, noteLine(r.Marked), reasonSuffix(r.Marked.Reason))
		}
		chain(w, r.Supersedes, indent+"    ")
	}
}

func noteLine(n *history.Note) string {
	s := n.Date.Format("2006-01-02 15:04")
	if n.Client != "" {
		s += " by " + n.Client
	}
	return s + " in " + history.ShortHash(n.Commit)
}

// reasonSuffix renders a commit reason on one line after a colon.
func reasonSuffix(reason string) string {
	reason = strings.Join(strings.Fields(reason), " ")
	if reason == "" {
		return ""
	}
	return ": " + truncate(reason, 160)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// SnapshotNotes says, for people, what a read of the past read.
func SnapshotNotes(s *history.Snapshot, dir string) []string {
	switch {
	case s.Unborn:
		// Nothing is recorded yet: valid time over the work tree is the
		// best answer there is.
		return []string{"no commits yet; --as-of applies to valid time only"}
	case s.Commit == "":
		return []string{fmt.Sprintf("nothing was recorded at or before %s", s.At.Format(time.RFC3339))}
	}
	notes := []string{fmt.Sprintf("reading the vault as recorded at %s (%s)", history.ShortHash(s.Commit), s.Time.UTC().Format(time.RFC3339))}
	if s.Vault.Len() == 0 {
		notes = append(notes, fmt.Sprintf("%s has no committed memories in %s", history.ShortHash(s.Commit), dir))
	}
	return notes
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
