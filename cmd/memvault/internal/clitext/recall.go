package clitext

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/staleness"
)

// Results writes recall results as readable blocks; a result from
// the user vault says so after its path.
func Results(w io.Writer, rs []vault.SetResult, now time.Time) {
	if len(rs) == 0 {
		fmt.Fprintln(w, "no memories found")
		return
	}
	titles := map[string]string{}
	for _, r := range rs {
		titles[r.Memory.ID] = r.Memory.Title
	}
	for i, r := range rs {
		mem := r.Memory
		// Strong results come first (vault.Set.Recall orders them so):
		// a heading opens each group.
		switch {
		case r.Match == vault.MatchStrong && i == 0:
			fmt.Fprintln(w, "strong matches:")
		case r.Match == vault.MatchWeak && i == 0:
			fmt.Fprintln(w, "no memory answers this strongly; closest:")
		case r.Match == vault.MatchWeak && rs[i-1].Match == vault.MatchStrong:
			fmt.Fprintln(w, "weaker matches:")
		}
		fmt.Fprintf(w, "【记忆 #%d】 %s\n", i+1, mem.Title)
		if r.Match == vault.MatchWeak && r.MatchReason != "" {
			fmt.Fprintf(w, "  weaker: %s\n", r.MatchReason)
		}
		meta := []string{fmt.Sprintf("L%d %s", int(mem.Layer), mem.Layer)}
		if len(mem.Tags) > 0 {
			meta = append(meta, "tags: "+strings.Join(mem.Tags, ", "))
		}
		meta = append(meta, "updated "+Ago(now, mem.UpdatedAt), fmt.Sprintf("importance %d", mem.Importance), fmt.Sprintf("score %.3f", r.Score))
		if r.State != string(vault.StatusActive) {
			meta = append(meta, "status: "+r.State)
		}
		if mem.Stale && mem.Damaged == "" {
			meta = append(meta, "STALE: the file no longer parses; showing its last good version")
		}
		if c := Conflicted(mem.Conflicted); c != "" {
			meta = append(meta, c)
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(meta, " · "))
		for _, l := range mem.Labels() {
			fmt.Fprintf(w, "  %s\n", l)
		}
		for _, a := range r.Adjustments {
			if a.Rule == staleness.AdjustStaleness {
				fmt.Fprintf(w, "  %s\n", strings.Replace(a.Note, "possibly_stale", "possibly stale", 1))
			}
		}
		if !mem.EffectiveAt.IsZero() {
			fmt.Fprintf(w, "  effective from %s\n", mem.EffectiveAt.Format(time.RFC3339))
		}
		for _, s := range r.Supersedes {
			fmt.Fprintf(w, "  supersedes: %s (%s)\n", s.Title, s.ID)
		}
		for _, s := range r.SupersededBy {
			fmt.Fprintf(w, "  superseded by: %s (%s)\n", s.Title, s.ID)
		}
		for _, c := range r.PossibleConflict {
			fmt.Fprintf(w, "  ⚠ possible conflict with: %s (%s) — ask which rule holds\n", titles[c], c)
		}
		for _, line := range strings.Split(strings.TrimSpace(r.Snippet), "\n") {
			fmt.Fprintf(w, "  │ %s\n", line)
		}
		fmt.Fprintf(w, "  id %s · %s\n", mem.ID, InVault(mem.Path, r.Vault))
		if e := view.ExplainOf(r.Explain, r.Adjustments); e != nil {
			Explain(w, e)
		}
		fmt.Fprintln(w)
	}
}

// Explain writes why a result ranks where it does, indented under it:
// the relevance and coverage, each query concept and how the memory
// covers it, each matched term with where it came from, and the
// structure rules that moved the result.
func Explain(w io.Writer, e *view.Explain) {
	fmt.Fprintf(w, "  why: relevance %.3f, covers %.0f%% of the query\n", e.Relevance, 100*e.Coverage)
	fmt.Fprintln(w, "    concepts:")
	for _, c := range e.Concepts {
		fmt.Fprintf(w, "      %-22s %-16s weight %.2f\n", strconv.Quote(c.Label), c.How, c.Weight)
	}
	fmt.Fprintln(w, "    matched terms:")
	for _, t := range e.Terms {
		fmt.Fprintf(w, "      %-22s %+.3f  weight %.2f  %-36s %s\n", strconv.Quote(t.Term), t.Score, t.Weight, termOrigin(t), fieldCounts(t.Fields))
	}
	if len(e.Terms) == 0 {
		fmt.Fprintln(w, "      none (joined through a link)")
	}
	if len(e.Adjustments) > 0 {
		fmt.Fprintln(w, "    structure:")
		for _, a := range e.Adjustments {
			fmt.Fprintf(w, "      %s: %s\n", a.Rule, a.Note)
		}
	}
}

// termOrigin says where a matched term came from, for people.
func termOrigin(t view.ExplainTerm) string {
	switch t.Origin {
	case view.OriginQuery:
		return "from the query"
	case view.OriginPart:
		return "part of " + strconv.Quote(t.Concept)
	}
	s := "expansion: " + t.Source
	if t.From != "" {
		s += " of " + strconv.Quote(t.From)
	}
	return s
}

// fieldCounts lists where a term occurs, in a fixed order.
func fieldCounts(fields map[string]int) string {
	var parts []string
	for _, f := range []string{"title", "aliases", "tags", "body"} {
		if n := fields[f]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s×%d", f, n))
		}
	}
	return strings.Join(parts, " ")
}

// InVault is a memory's path for people, naming its vault when it is not
// the project's.
func InVault(path, vaultName string) string {
	if vaultName != "" && vaultName != vault.ProjectVault {
		return path + " (" + vaultName + " vault)"
	}
	return path
}

// Ago renders an instant relative to now for people.
func Ago(now, t time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		s = Plural(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		s = Plural(int(d/time.Hour), "hour")
	case d < 60*24*time.Hour:
		s = Plural(int(d/(24*time.Hour)), "day")
	case d < 365*24*time.Hour:
		s = Plural(int(d/(30*24*time.Hour)), "month")
	default:
		s = Plural(int(d/(365*24*time.Hour)), "year")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// Plural is "1 unit" or "n units".
func Plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Memory writes a memory for people; one of the user vault says so
// after its path.
func Memory(w io.Writer, mem *vault.Memory, related []vault.Ref, vaultName string, st *view.Staleness) {
	fmt.Fprintf(w, "%s\n", mem.Title)
	fmt.Fprintf(w, "  id:         %s\n  path:       %s\n  layer:      L%d %s\n  importance: %d\n  status:     %s\n  version:    %d\n",
		mem.ID, InVault(mem.Path, vaultName), int(mem.Layer), mem.Layer, mem.Importance, mem.Status, mem.Version)
	if len(mem.Tags) > 0 {
		fmt.Fprintf(w, "  tags:       %s\n", strings.Join(mem.Tags, ", "))
	}
	fmt.Fprintf(w, "  created:    %s\n  updated:    %s\n", mem.CreatedAt.Format(time.RFC3339), mem.UpdatedAt.Format(time.RFC3339))
	if !mem.EffectiveAt.IsZero() {
		fmt.Fprintf(w, "  effective:  %s\n", mem.EffectiveAt.Format(time.RFC3339))
	}
	if !mem.ExpiresAt.IsZero() {
		fmt.Fprintf(w, "  expires:    %s\n", mem.ExpiresAt.Format(time.RFC3339))
	}
	for _, l := range mem.Labels() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	if c := Conflicted(mem.Conflicted); c != "" {
		fmt.Fprintf(w, "  conflict:   %s\n", c)
		for _, f := range mem.Conflicted {
			if v, ok := mem.ConflictTheirs[f]; ok {
				fmt.Fprintf(w, "  theirs %s: %s\n", f, strings.ReplaceAll(strings.TrimRight(v, "\n"), "\n", "\n    "))
			}
		}
	}
	if len(mem.Supersedes) > 0 {
		fmt.Fprintf(w, "  supersedes: %s\n", strings.Join(mem.Supersedes, ", "))
	}
	for _, r := range related {
		fmt.Fprintf(w, "  related:    %s (%s)\n", r.Title, r.ID)
	}
	if mem.Source.Client != "" || mem.Source.Kind != "" {
		fmt.Fprintf(w, "  source:     %s (%s)\n", mem.Source.Client, mem.Source.Kind)
	}
	if len(mem.Refs) > 0 {
		fmt.Fprintf(w, "  refs:       %s\n", strings.Join(mem.Refs, ", "))
	}
	if !mem.VerifiedAt.IsZero() {
		fmt.Fprintf(w, "  verified:   %s\n", mem.VerifiedAt.Format(time.RFC3339))
	}
	fmt.Fprint(w, StalenessLine(st))
	fmt.Fprintf(w, "\n%s", mem.Body)
	if !strings.HasSuffix(mem.Body, "\n") {
		fmt.Fprintln(w)
	}
}

// Stats writes one vault's summary.
func Stats(w io.Writer, s view.VaultStats) {
	fmt.Fprintf(w, "vault     %s\nmemories  %d (in force %d, expired %d, future %d, stale %d)\n", s.Vault, s.Total, s.InForce, s.Expired, s.Future, s.Stale)
	for _, l := range vault.AllLayers() {
		fmt.Fprintf(w, "  L%d %-11s %d\n", int(l), l, s.ByLayer[l.String()])
	}
	for _, st := range []vault.Status{vault.StatusActive, vault.StatusSuperseded, vault.StatusArchived} {
		fmt.Fprintf(w, "  %-14s %d\n", st, s.ByStatus[string(st)])
	}
	fmt.Fprintf(w, "problems  %d errors, %d warnings (memvault lint)\n", s.Errors, s.Warnings)
	for _, c := range s.Conflicted {
		fmt.Fprintf(w, "conflict  %s (%s): %s\n", c.Path, strings.Join(c.What, ", "), c.Fix)
	}
}

// Conflicted labels a memory a git merge left in conflict, "" for one it
// did not.
func Conflicted(what []string) string {
	switch {
	case len(what) == 0:
		return ""
	case len(what) == 1 && what[0] == vault.ConflictedMarkers:
		return "CONFLICTED: the file holds git conflict markers; showing its last committed version"
	}
	return "CONFLICTED: a git merge left " + strings.Join(what, ", ") + " in disagreement (theirs is in the file's conflict entry)"
}

// List writes one line per memory.
func List(w io.Writer, rs []vault.SetResult) {
	if len(rs) == 0 {
		fmt.Fprintln(w, "no memories found")
		return
	}
	for _, r := range rs {
		mem := r.Memory
		fmt.Fprintf(w, "L%d %-10s  %-10s  v%-3d %s  %s  %s\n", int(mem.Layer), mem.Layer, r.State, mem.Version, mem.Title, mem.ID, InVault(mem.Path, r.Vault))
		for _, l := range mem.Labels() {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

// StalenessLine is the "staleness:" line of a memory with refs; "" for
// one without (st nil).
func StalenessLine(st *view.Staleness) string {
	if st == nil {
		return ""
	}
	return fmt.Sprintf("  staleness:  %s: %s\n", strings.ReplaceAll(st.State, "_", " "), st.Reason)
}

// Confirmed writes what `memvault confirm` prints.
func Confirmed(w io.Writer, m *vault.Memory, c view.Confirm) error {
	_, err := fmt.Fprintf(w, "confirmed %s (%s) at %s\n%s", c.ID, m.Title, c.VerifiedAt, StalenessLine(c.Staleness))
	return err
}
