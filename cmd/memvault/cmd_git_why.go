package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// whyRivalLimit is how many results the rival search looks at.
const whyRivalLimit = 10

// whyHistoryLines caps the condensed history in why's report.
const whyHistoryLines = 8

// replacement is one memory in a supersession chain: what it was, and when
// and why it was replaced.
type replacement struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	Path    string `json:"path,omitempty"`
	Status  string `json:"status,omitempty"`
	Missing bool   `json:"missing,omitempty"` // no longer in the vault
	// Replaced is the commit that made its successor list it in
	// supersedes; Marked is the commit that set its status to superseded
	// (often the same commit).
	Replaced *commitNote `json:"replaced,omitempty"`
	Marked   *commitNote `json:"marked,omitempty"`
	// Supersedes continues the chain: what this one had replaced.
	Supersedes []replacement `json:"supersedes,omitempty"`
}

// commitNote is the when, who and why of one commit.
type commitNote struct {
	Commit string    `json:"commit"`
	Date   time.Time `json:"date"`
	Client string    `json:"client,omitempty"`
	Author string    `json:"author,omitempty"`
	Reason string    `json:"reason,omitempty"`
}

func noteOf(r revision) *commitNote {
	return &commitNote{Commit: r.Commit, Date: r.Date, Client: r.Client, Author: r.Author, Reason: r.Reason}
}

// whyReport is the story of one memory.
type whyReport struct {
	Query    string         `json:"query"`
	Memory   map[string]any `json:"memory"`
	State    string         `json:"state"`
	Replaced []replacement  `json:"supersedes"`
	// History is nil outside git.
	History []revision  `json:"history"`
	Rivals  []vault.Ref `json:"possible_conflicts"`
	InGit   bool        `json:"in_git"`

	mem *vault.Memory
}

// storyTeller builds why reports; it caches each memory's history.
type storyTeller struct {
	v     *vault.Vault
	g     *gitView // nil outside git
	hists map[string][]revision
}

func (s *storyTeller) history(ctx context.Context, id string) ([]revision, error) {
	if s.g == nil {
		return nil, nil
	}
	if h, ok := s.hists[id]; ok {
		return h, nil
	}
	rel, err := locateMemory(ctx, s.g, id, func(id string) (string, error) {
		if mem, err := s.v.Get(id); err == nil {
			return mem.Path, nil
		}
		return "", nil
	})
	if errors.Is(err, vault.ErrNotFound) {
		s.hists[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h, err := memoryHistory(ctx, s.g, id, rel)
	if err != nil {
		return nil, err
	}
	s.hists[id] = h
	return h, nil
}

// chain follows what mem supersedes, recursively; seen stops cycles.
func (s *storyTeller) chain(ctx context.Context, mem *vault.Memory, seen map[string]bool) ([]replacement, error) {
	var out []replacement
	succHist, err := s.history(ctx, mem.ID)
	if err != nil {
		return nil, err
	}
	for _, oldID := range mem.Supersedes {
		if seen[oldID] {
			continue
		}
		seen[oldID] = true
		rep := replacement{ID: oldID}
		old, err := s.v.Get(oldID)
		if err != nil {
			rep.Missing = true
		} else {
			rep.Title, rep.Path, rep.Status = old.Title, old.Path, string(old.Status)
		}
		// Oldest first: the commit that first listed oldID.
		for i := len(succHist) - 1; i >= 0; i-- {
			r := succHist[i]
			if r.after != nil && containsID(r.after.Supersedes, oldID) && (r.before == nil || !containsID(r.before.Supersedes, oldID)) {
				rep.Replaced = noteOf(r)
				break
			}
		}
		oldHist, err := s.history(ctx, oldID)
		if err != nil {
			return nil, err
		}
		for i := len(oldHist) - 1; i >= 0; i-- {
			r := oldHist[i]
			if r.after != nil && r.after.Status == vault.StatusSuperseded && (r.before == nil || r.before.Status != vault.StatusSuperseded) {
				rep.Marked = noteOf(r)
				break
			}
		}
		if rep.Missing {
			// Its last recorded version still says what it replaced.
			for _, r := range oldHist {
				if m := firstMem(r.after, r.before); m != nil {
					old = m
					rep.Title = m.Title
					break
				}
			}
		}
		if old != nil {
			if rep.Supersedes, err = s.chain(ctx, old, seen); err != nil {
				return nil, err
			}
		}
		out = append(out, rep)
	}
	return out, nil
}

func firstMem(ms ...*vault.Memory) *vault.Memory {
	for _, m := range ms {
		if m != nil {
			return m
		}
	}
	return nil
}

func (m *Main) whyCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "why QUERY",
		Short: "Tell the story of the memory that best answers a question",
		Long: `why recalls the memory that best answers QUERY and tells its story: what it
replaced (the supersession chain, with when and why each rule was replaced,
from the commit messages), how it changed over time, and which other
memories look like rival rules on the same subject (possible conflicts to
settle with a person). Outside git the story has no dates or reasons.`,
		Example: `  memvault why "订单有哪些状态"
  memvault why "api error format" --json`,
		Args: exactArgs(1, "QUERY"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			v, err := m.openVault(ctx)
			if err != nil {
				return err
			}
			top := v.Recall(vault.Query{Text: args[0], Limit: 1})
			if len(top) == 0 {
				return usagef("why: no memory in force matches %q", args[0])
			}
			st := &storyTeller{v: v, hists: map[string][]revision{}}
			g, err := m.openGitView(ctx)
			switch {
			case err == nil:
				defer g.Close()
				st.g = g
			case !errors.Is(err, gitstore.ErrNotRepository):
				return fmt.Errorf("open git repository: %w", err)
			}
			mem := top[0].Memory
			rep := whyReport{Query: args[0], Memory: memoryJSON(mem), State: top[0].State, InGit: st.g != nil, mem: mem}
			if rep.Replaced, err = st.chain(ctx, mem, map[string]bool{mem.ID: true}); err != nil {
				return err
			}
			if rep.History, err = st.history(ctx, mem.ID); err != nil {
				return err
			}
			for _, r := range v.Recall(vault.Query{Text: args[0], Limit: whyRivalLimit}) {
				if r.Memory.ID != mem.ID {
					continue
				}
				for _, id := range r.PossibleConflict {
					ref := vault.Ref{ID: id}
					if other, err := v.Get(id); err == nil {
						ref.Title = other.Title
					}
					rep.Rivals = append(rep.Rivals, ref)
				}
			}
			if asJSON {
				if rep.Replaced == nil {
					rep.Replaced = []replacement{}
				}
				if rep.Rivals == nil {
					rep.Rivals = []vault.Ref{}
				}
				if rep.InGit && rep.History == nil {
					rep.History = []revision{}
				}
				return writeJSON(m.Stdout, rep)
			}
			printWhy(m.Stdout, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printWhy writes the report as a short readable story.
func printWhy(w io.Writer, rep whyReport) {
	mem := rep.mem
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

	fmt.Fprintln(w, "\nWhat it replaced")
	if len(rep.Replaced) == 0 {
		fmt.Fprintln(w, "  nothing: it supersedes no earlier memory")
	}
	printChain(w, rep.Replaced, "  ")

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
			fmt.Fprintf(w, "  %s  %-11s  %s%s\n", r.Date.Format("2006-01-02"), orDash(r.Client), changeSummary(r), reasonSuffix(r.Reason))
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

func printChain(w io.Writer, reps []replacement, indent string) {
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
		printChain(w, r.Supersedes, indent+"    ")
	}
}

func noteLine(n *commitNote) string {
	s := n.Date.Format("2006-01-02 15:04")
	if n.Client != "" {
		s += " by " + n.Client
	}
	return s + " in " + shortHash(n.Commit)
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
