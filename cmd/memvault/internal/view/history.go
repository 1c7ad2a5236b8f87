package view

import (
	"fmt"
	"strings"

	"github.com/memvault/memvault/vault/history"
)

// FieldChange is one front-matter field that differs between two
// versions of a memory.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Revision is one commit in a memory's history.
type Revision struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Author  string `json:"author"`
	Email   string `json:"email"`
	Client  string `json:"client"`
	Subject string `json:"subject"`
	// Reason is the commit message body: why the change was made. For a
	// merge, the reasons of the commits it brought together, joined.
	Reason string `json:"reason"`
	// Path is the memory's vault-relative path at this commit; OldPath
	// its path in the parent when the commit moved it.
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"`
	// Kind is added, changed, moved, deleted, confirmed, mentioned, merged or damaged.
	Kind    string        `json:"kind"`
	Version int           `json:"version"`
	Changes []FieldChange `json:"changes"`
	// BodyDiff holds "+ line" / "- line" entries, capped; BodyDiffMore
	// counts the ones left out.
	BodyDiff     []string `json:"body_diff"`
	BodyDiffMore int      `json:"body_diff_more"`
	// Summary says in one line what the commit changed.
	Summary string `json:"summary"`
	// Merged, for a merge, holds on each side (the branch merged into
	// first) the last commit that changed the memory since the merge
	// base.
	Merged []MergedSide `json:"merged,omitempty"`
	// Damaged, for a revision of kind damaged (after which the file no
	// longer parses), is the problem as "path:line: what".
	Damaged string `json:"damaged,omitempty"`
}

// MergedSide is the last commit on one side of a merge that changed the
// memory.
type MergedSide struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Author  string `json:"author"`
	Client  string `json:"client"`
	Subject string `json:"subject"`
	Reason  string `json:"reason"`
}

// History is how a memory came to be: `memvault history --json` and the
// MCP memory_history tool.
type History struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Path  string `json:"path"`
	// Revisions are newest first.
	Revisions []Revision `json:"revisions"`
	// Supersedes lists the memories this one replaced; SupersededBy the
	// ones, in any served vault, that replace it.
	Supersedes   []string `json:"supersedes"`
	SupersededBy []string `json:"superseded_by"`
	Vault        string   `json:"vault"`
}

// HistoryOf builds the view of a memory's story, told by the vault named
// vaultName; supersededBy comes from the set of vaults.
func HistoryOf(s *history.Story, vaultName string, supersededBy []string) History {
	out := History{ID: s.ID, Title: s.Title, Path: s.Path, Revisions: make([]Revision, 0, len(s.Revisions)),
		Supersedes: []string{}, SupersededBy: orEmpty(supersededBy), Vault: vaultName}
	if s.Current != nil {
		out.Supersedes = orEmpty(s.Current.Supersedes)
	}
	for _, r := range s.Revisions {
		out.Revisions = append(out.Revisions, RevisionOf(r))
	}
	return out
}

// RevisionOf builds the view of one revision.
func RevisionOf(r history.Revision) Revision {
	changes := make([]FieldChange, 0, len(r.Changes))
	for _, c := range r.Changes {
		changes = append(changes, FieldChange(c))
	}
	var merged []MergedSide
	for _, n := range r.Merged {
		merged = append(merged, MergedSide{Commit: n.Commit, Date: Instant(n.Date), Author: n.Author, Client: n.Client, Subject: n.Subject, Reason: n.Reason})
	}
	return Revision{Commit: r.Commit, Date: Instant(r.Date), Author: r.Author, Email: r.Email, Client: r.Client,
		Subject: r.Subject, Reason: r.Why(), Merged: merged, Path: r.Path, OldPath: r.OldPath, Kind: r.Kind, Version: r.Version,
		Changes: changes, BodyDiff: orEmpty(r.BodyDiff), BodyDiffMore: r.BodyDiffMore, Summary: Summary(r),
		Damaged: r.Damaged}
}

// Summary is a one-line account of a revision's changes: its kind, then
// the fields it changed (old → new for the ones people scan for).
func Summary(r history.Revision) string {
	var parts []string
	for _, c := range r.Changes {
		switch c.Field {
		case "version":
		case "status", "importance", "layer":
			parts = append(parts, fmt.Sprintf("%s %s → %s", c.Field, orNone(c.Old), orNone(c.New)))
		default:
			parts = append(parts, c.Field)
		}
	}
	if len(r.BodyDiff) > 0 {
		parts = append(parts, "body")
	}
	if r.OldPath != "" {
		parts = append(parts, "moved from "+r.OldPath)
	}
	if r.Damaged != "" {
		parts = append(parts, r.Damaged)
	}
	if len(parts) == 0 {
		return r.Kind
	}
	return r.Kind + " (" + strings.Join(parts, ", ") + ")"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
