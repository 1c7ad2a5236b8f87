package mcpserver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/staleness"
)

// resultsBudgetBytes bounds the readable text of one recall or list
// answer: about 2,000 tokens, whatever the size of the memories (snippets
// are already short; the budget caps how many of them come back).
const resultsBudgetBytes = 8000

// renderResults renders results as numbered entries for the model. The
// first always goes in; later ones stop at the budget so that an answer
// never floods the model's context, and a last line says how many were
// left out and what to do (hint). It returns the text and the results
// shown, which are the structured answer.
func renderResults(rs []view.RecallResult, empty, hint string) (string, []view.RecallResult) {
	if len(rs) == 0 {
		return empty, rs
	}
	var b strings.Builder
	for i, r := range rs {
		where := r.Layer
		if r.Vault != vault.ProjectVault {
			where += ", " + r.Vault + " vault"
		}
		entry := matchHeading(rs, i) + fmt.Sprintf("%d. %s [%s, %s, v%d] id=%s\n   %s\n", i+1, r.Title, where, r.Status, r.Version, r.ID, oneLine(r.Snippet))
		if r.Match == vault.MatchWeak && r.MatchReason != "" {
			entry += "   weaker: " + r.MatchReason + "\n"
		}
		if r.Explain != nil {
			entry += explainLines(r.Explain)
		}
		if i > 0 && b.Len()+len(entry) > resultsBudgetBytes {
			fmt.Fprintf(&b, "(%d more results left out to stay within the size budget; %s)\n", len(rs)-i, hint)
			rs = rs[:i]
			break
		}
		b.WriteString(entry)
		if len(r.Supersedes) > 0 {
			fmt.Fprintf(&b, "   supersedes: %s\n", namedRefs(r.Supersedes))
		}
		if len(r.SupersededBy) > 0 {
			fmt.Fprintf(&b, "   superseded by: %s\n", namedRefs(r.SupersededBy))
		}
		if len(r.PossibleConflict) > 0 {
			fmt.Fprintf(&b, "   possible conflict with: %s\n", strings.Join(r.PossibleConflict, ", "))
		}
		if len(r.Conflicted) > 0 {
			fmt.Fprintf(&b, "   %s\n", conflictedText(r.Conflicted))
		}
		for _, l := range vault.Labels(r.Damaged, r.Redacted) {
			fmt.Fprintf(&b, "   %s\n", l)
		}
		// The model reads the text: a memory whose code moved on says so
		// where it is read, with the reason (a fresh one says nothing).
		if st := r.Staleness; st != nil && st.State != string(staleness.Fresh) {
			fmt.Fprintf(&b, "   %s: %s\n", strings.ReplaceAll(st.State, "_", " "), st.Reason)
		}
	}
	return strings.TrimRight(b.String(), "\n"), rs
}

// matchHeading opens the groups of a recall's results: the strong
// matches, which come first, then the weaker ones; when none is strong,
// it says so plainly. Results without a match label (a list) have none.
func matchHeading(rs []view.RecallResult, i int) string {
	switch r := rs[i]; {
	case r.Match == vault.MatchStrong && i == 0:
		return "Strong matches:\n"
	case r.Match == vault.MatchWeak && i == 0:
		return "No memory answers this strongly; closest:\n"
	case r.Match == vault.MatchWeak && rs[i-1].Match == vault.MatchStrong:
		return "Weaker matches:\n"
	}
	return ""
}

// explainLines says in a few lines why a result ranks where it does:
// coverage, the concepts covered or missing, the matched terms by origin,
// and the structure rules that moved it. The structured content has
// every figure.
func explainLines(e *view.Explain) string {
	var b strings.Builder
	fmt.Fprintf(&b, "   why: relevance %.3f, covers %.0f%% of the query", e.Relevance, 100*e.Coverage)
	var missing []string
	for _, c := range e.Concepts {
		if c.How == "missing" {
			missing = append(missing, strconv.Quote(c.Label))
		}
	}
	if len(missing) > 0 {
		b.WriteString("; missing " + strings.Join(missing, ", "))
	}
	b.WriteString("\n")
	var typed, expanded []string
	for _, t := range e.Terms {
		switch t.Origin {
		case view.OriginQuery:
			typed = append(typed, strconv.Quote(t.Term))
		case view.OriginPart:
			typed = append(typed, fmt.Sprintf("%q (part of %q)", t.Term, t.Concept))
		default:
			s := fmt.Sprintf("%q (%s", t.Term, t.Source)
			if t.From != "" {
				s += fmt.Sprintf(" of %q", t.From)
			}
			expanded = append(expanded, s+")")
		}
	}
	if len(typed) > 0 {
		fmt.Fprintf(&b, "   matched from the query: %s\n", strings.Join(typed, ", "))
	}
	if len(expanded) > 0 {
		fmt.Fprintf(&b, "   matched through expansion: %s\n", strings.Join(expanded, ", "))
	}
	for _, a := range e.Adjustments {
		fmt.Fprintf(&b, "   %s: %s\n", a.Rule, a.Note)
	}
	return b.String()
}

// conflictedText labels a memory a git merge left in conflict.
func conflictedText(what []string) string {
	if len(what) == 1 && what[0] == vault.ConflictedMarkers {
		return "conflicted: its file holds git conflict markers; this is its last committed version (see memory_stats)"
	}
	return "conflicted: a git merge left " + strings.Join(what, ", ") + " in disagreement; another version is in the file's conflict entry (see memory_stats)"
}

// writeTheirs shows the other side of a merge conflict after a memory, so
// that both versions are in front of the model.
func writeTheirs(b *strings.Builder, fields []string, theirs map[string]string) {
	if len(theirs) == 0 && (len(fields) == 0 || fields[0] == vault.ConflictedMarkers) {
		return
	}
	b.WriteString("\n\n--- the other side of the merge (conflict entry) ---\n")
	for _, f := range fields {
		v, ok := theirs[f]
		switch {
		case !ok:
			fmt.Fprintf(b, "%s: (deleted on their side)\n", f)
		case f == "body":
			fmt.Fprintf(b, "body:\n%s\n", strings.TrimRight(v, "\n"))
		default:
			fmt.Fprintf(b, "%s: %s\n", f, v)
		}
	}
}

// namedRefs names memories for people: "Title" (id), comma-separated.
func namedRefs(rs []view.Ref) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.Title == "" {
			parts = append(parts, r.ID)
			continue
		}
		parts = append(parts, fmt.Sprintf("%q (%s)", r.Title, r.ID))
	}
	return strings.Join(parts, ", ")
}

// oneLine folds whitespace, newlines included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// layerHelp explains the layers to the model; every tool that takes a
// layer repeats it so each description stands on its own.
const layerHelp = `Layers: transient (L1, scratch for this session, expires in 1h, never committed); ` +
	`short-term (L2, task state for days, expires in 7d); project (L3, default: decisions, conventions, ` +
	`architecture, commands that work); preference (L4, how the developer likes to work, follows them ` +
	`across sessions); meta (L5, notes about the memory itself).`

// writeText says what a write did.
func writeText(verb string, w view.Write) string {
	s := fmt.Sprintf("%s %s (version %d, etag %s) at %s", verb, w.ID, w.Version, w.ETag, w.Path)
	if w.Commit != "" {
		s += ", commit " + history.ShortHash(w.Commit)
	} else {
		s += ", not committed (transient layer)"
	}
	if len(w.Superseded) > 0 {
		s += "; superseded " + strings.Join(w.Superseded, ", ")
	}
	if w.Vault != "" && w.Vault != vault.ProjectVault {
		s += " (in the " + w.Vault + " vault)"
	}
	if len(w.ProposedRefs) > 0 {
		s += "; proposed refs (code it mentions; add them with update_memory accept_refs or refs): " + strings.Join(w.ProposedRefs, ", ")
	}
	return s
}
