package history

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/vault"
)

// WhyRivalLimit is how many recall results Why looks at for rivals.
const WhyRivalLimit = 10

// Report is the story of the memory that best answers a question.
type Report struct {
	Query  string
	Memory *vault.Memory
	State  string // the recall state: in force, superseded, ...
	// Replaced is what the memory replaced, and recursively what those
	// had replaced.
	Replaced []Replacement
	// History is the memory's revisions, newest first; nil outside git.
	History []Revision
	// Rivals are memories recall marks as possible conflicts: neither
	// supersedes the other.
	Rivals []vault.Ref
	InGit  bool
}

// Replacement is one memory in a supersession chain: what it was, and
// when and why it was replaced.
type Replacement struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	Path    string `json:"path,omitempty"`
	Status  string `json:"status,omitempty"`
	Missing bool   `json:"missing,omitempty"` // no longer in the vault
	// Replaced is the commit that made its successor list it in
	// supersedes; Marked is the commit that set its status to superseded
	// (often the same commit).
	Replaced *Note `json:"replaced,omitempty"`
	Marked   *Note `json:"marked,omitempty"`
	// Supersedes continues the chain: what this one had replaced.
	Supersedes []Replacement `json:"supersedes,omitempty"`
}

// Note is the when, who and why of one commit.
type Note struct {
	Commit string    `json:"commit"`
	Date   time.Time `json:"date"`
	Client string    `json:"client,omitempty"`
	Author string    `json:"author,omitempty"`
	// Subject is the commit's first line; set for the sides of a merge.
	Subject string `json:"subject,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Why is the reason a revision records: its commit's, or for a merge,
// those of the commits it brought together, one per side.
func (r Revision) Why() string {
	if r.Kind != KindMerged {
		return r.Reason
	}
	var parts []string
	for _, n := range r.Merged {
		parts = append(parts, cmp.Or(n.Reason, n.Subject))
	}
	return strings.Join(parts, " + ")
}

func noteOf(r Revision) *Note {
	return &Note{Commit: r.Commit, Date: r.Date, Client: r.Client, Author: r.Author, Reason: r.Why()}
}

// Why recalls the memory of v that best answers query and tells its
// story: what it replaced (the supersession chain, with the commits that
// replaced and marked each), how it changed, and its rivals. past reads
// the vault's history; nil outside git, where the story has no dates or
// reasons. It returns ErrNoMatch when no memory in force matches.
func Why(ctx context.Context, v *vault.Vault, past *Reader, query string) (*Report, error) {
	top, err := v.RecallContext(ctx, vault.Query{Text: query, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(top) == 0 {
		return nil, ErrNoMatch
	}
	return whyOf(ctx, v, past, query, top[0].Memory, top[0].State)
}

// WhyMemory is Why for one memory named by id (the web view's memory
// page): its supersession chain, its history, and the rivals recall marks
// when asked for its title.
func WhyMemory(ctx context.Context, v *vault.Vault, past *Reader, mem *vault.Memory, state string) (*Report, error) {
	return whyOf(ctx, v, past, mem.Title, mem, state)
}

func whyOf(ctx context.Context, v *vault.Vault, past *Reader, query string, mem *vault.Memory, state string) (*Report, error) {
	var err error
	st := &storyTeller{v: v, past: past, hists: map[string][]Revision{}}
	rep := &Report{Query: query, Memory: mem, State: state, InGit: past != nil}
	if rep.Replaced, err = st.chain(ctx, mem, map[string]bool{mem.ID: true}); err != nil {
		return nil, err
	}
	if rep.History, err = st.history(ctx, mem.ID); err != nil {
		return nil, err
	}
	rivals, err := v.RecallContext(ctx, vault.Query{Text: query, Limit: WhyRivalLimit})
	if err != nil {
		return nil, err
	}
	for _, r := range rivals {
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
	return rep, nil
}

// storyTeller builds a why report; it caches each memory's history.
type storyTeller struct {
	v     *vault.Vault
	past  *Reader // nil outside git
	hists map[string][]Revision
}

func (s *storyTeller) history(ctx context.Context, id string) ([]Revision, error) {
	if s.past == nil {
		return nil, nil
	}
	if h, ok := s.hists[id]; ok {
		return h, nil
	}
	cur, _ := s.v.Get(id)
	story, err := s.past.History(ctx, id, cur)
	if errors.Is(err, vault.ErrNotFound) {
		s.hists[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.hists[id] = story.Revisions
	return story.Revisions, nil
}

// chain follows what mem supersedes, recursively; seen stops cycles.
func (s *storyTeller) chain(ctx context.Context, mem *vault.Memory, seen map[string]bool) ([]Replacement, error) {
	var out []Replacement
	succHist, err := s.history(ctx, mem.ID)
	if err != nil {
		return nil, err
	}
	for _, oldID := range mem.Supersedes {
		if seen[oldID] {
			continue
		}
		seen[oldID] = true
		rep := Replacement{ID: oldID}
		old, err := s.v.Get(oldID)
		if err != nil {
			rep.Missing = true
		} else {
			rep.Title, rep.Path, rep.Status = old.Title, old.Path, string(old.Status)
		}
		// Oldest first: the commit that first listed oldID.
		for i := len(succHist) - 1; i >= 0; i-- {
			r := succHist[i]
			if r.after != nil && slices.Contains(r.after.Supersedes, oldID) && (r.before == nil || !slices.Contains(r.before.Supersedes, oldID)) {
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
				if m := r.Memory(); m != nil {
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
