// Package memory is the memory model: what a memory is (Memory, its
// layers, statuses and source), what a memory file's bytes make (Parse:
// the defaults a hand-written file leaves out, its diagnostics, a secret
// served redacted), its identity (ULIDs, ids, slugs, etags), its weight at
// an instant, and how a Memory is written in the loader's caches. It knows
// one memory at a time; what a vault decides across memories (duplicate
// ids, supersession, recall) is vault's.
package memory

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/fault"
)

// Sentinel errors of a memory's own rules; vault names them too.
var (
	ErrInvalidLayer   = fault.New(fault.Invalid, "invalid layer")
	ErrSupersedesSelf = fault.New(fault.Invalid, "a memory cannot supersede itself")
	ErrSecret         = fault.New(fault.Secret, "secret detected")
	// ErrConflictMarkers reports a file holding git conflict markers: it
	// is never loaded, written or committed as a memory.
	ErrConflictMarkers = fault.New(fault.Conflict, "git conflict markers")
)

// ConflictedMarkers is the Memory.Conflicted label of a memory whose file
// holds git conflict markers: what is served is its last committed
// version.
const ConflictedMarkers = "markers"

// Status is a memory's lifecycle state.
type Status string

// The statuses a memory can have.
const (
	StatusActive     Status = "active"
	StatusArchived   Status = "archived"
	StatusSuperseded Status = "superseded"
)

// ParseStatus validates a status as written in front matter; "" is active.
func ParseStatus(s string) (Status, error) {
	switch Status(s) {
	case "", StatusActive:
		return StatusActive, nil
	case StatusArchived, StatusSuperseded:
		return Status(s), nil
	}
	return "", fmt.Errorf("%w: unknown status %q (want active|archived|superseded)", diskwrite.ErrInvalid, s)
}

// Source records who wrote a memory.
type Source struct {
	Client string `json:"client,omitempty"` // claude-code, cursor, cli, ...
	Kind   string `json:"kind,omitempty"`   // manual, auto, import
}

// Memory is one memory as loaded from its file. Values are snapshots: the
// vault never mutates a Memory it has handed out.
type Memory struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Layer       Layer     `json:"-"`
	Importance  int       `json:"importance"`
	Tags        []string  `json:"tags,omitempty"`
	Aliases     []string  `json:"aliases,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	EffectiveAt time.Time `json:"effective_at,omitzero"` // zero: in force since creation
	ExpiresAt   time.Time `json:"expires_at,omitzero"`   // zero: never (after layer defaults are applied)
	Status      Status    `json:"status"`
	Supersedes  []string  `json:"supersedes,omitempty"`
	Links       []string  `json:"links,omitempty"`
	// Refs name the code the memory is about (paths, "dir/", globs,
	// "path#Symbol"), repository-relative; see vault/staleness.
	Refs []string `json:"refs,omitempty"`
	// VerifiedAt is when someone last confirmed the memory still holds;
	// zero when never.
	VerifiedAt time.Time `json:"verified_at,omitzero"`
	Source     Source    `json:"source,omitzero"`
	Version    int       `json:"version"`

	// Body is the Markdown body exactly as in the file; PlainText is its
	// plain text as indexed.
	Body string `json:"body"`
	// Path is the file's path relative to the vault root, with slashes.
	Path string `json:"path"`
	// WikiLinks are the [[targets]] named in the body, as written;
	// Vault.Related resolves them to memories.
	WikiLinks []string `json:"wiki_links,omitempty"`
	// Stale is set when the file on disk no longer parses and this is the
	// last good version, kept searchable until the file is fixed.
	Stale bool `json:"stale,omitempty"`
	// Damaged is set when the file on disk does not parse and this is its
	// last committed version that did: the file's problem as
	// "path:line: what". Every door shows it (see Labels).
	Damaged string `json:"damaged,omitempty"`
	// Redacted is set when the file holds a secret (committed by hand or
	// with --no-verify, pulled from a teammate): every secret in what is
	// served is replaced by "[REDACTED:rule]", and Redacted names the file
	// and the findings as "path:line: what". Every door shows it.
	Redacted string `json:"redacted,omitempty"`
	// Conflicted names what a git merge found both sides changing
	// differently (front-matter keys, "body"): the file keeps one side and
	// records the other in its conflict entry until someone resolves it.
	// A file holding git's conflict markers is never loaded as a memory;
	// its last committed version is, with Conflicted set to "markers".
	Conflicted []string `json:"conflicted,omitempty"`
	// ConflictTheirs holds the other side's values of what Conflicted
	// names, from the file's conflict entry ("body" for the body); a name
	// without a value was deleted on that side.
	ConflictTheirs map[string]string `json:"conflict_theirs,omitempty"`
	// Hash identifies the file bytes this memory was read from (see
	// ContentHash).
	Hash string `json:"-"`

	idLine         int // file line of the id field, for diagnostics
	supersedesLine int // file line of the supersedes field, for diagnostics
	linksLine      int // file line of the links field, for diagnostics
	statusLine     int // file line of the status field, for diagnostics
	// text is the plain text of the parse that made this memory, until
	// the memory is indexed; a vault then drops it (see PlainText).
	text string
}

// PlainText returns the memory's body as the index sees it: plain text,
// without Markdown syntax, and without a first heading that repeats the
// title. A vault does not keep it for every memory (in a large vault it
// was a large part of the heap; docs/performance.md, "Figures behind the
// code's comments"): it derives it from Body when a snippet or a
// comparison needs it, which is a parse of one body.
func (m *Memory) PlainText() string {
	if m.text != "" || m.Body == "" {
		return m.text
	}
	return plainText(parser.ParseBody([]byte(m.Body)), m.Title)
}

// KeptText is the plain text the parse that made m left with it, until
// a vault drops it (DropText): what PlainText returns without parsing the
// body again, and part of the key of a memo of m's text.
func (m *Memory) KeptText() string { return m.text }

// DropText drops the plain text the parse left once the memory is
// indexed: PlainText derives it from Body again when needed.
func (m *Memory) DropText() { m.text = "" }

// FieldLine is the file line of the id, supersedes, links or status field
// of the file m was read from, for diagnostics; 0 when the file has no
// such field (or m was not read from a file).
func (m *Memory) FieldLine(field string) int {
	switch field {
	case "id":
		return m.idLine
	case "supersedes":
		return m.supersedesLine
	case "links":
		return m.linksLine
	case "status":
		return m.statusLine
	}
	return 0
}

// plainText is the indexed text of a parsed body: its text without a
// first heading that repeats the title (it would otherwise lead every
// snippet).
func plainText(b parser.Body, title string) string {
	if h := strings.TrimSpace(b.Heading); h != "" && h == title {
		return strings.TrimLeft(strings.TrimPrefix(b.Text, h), "\n ")
	}
	return b.Text
}

// InForce reports whether the memory's rule applies at t: it has been
// created, its effective_at has come, and it has not expired.
func (m *Memory) InForce(t time.Time) bool {
	if !m.EffectiveAt.IsZero() && t.Before(m.EffectiveAt) {
		return false
	}
	if !m.ExpiresAt.IsZero() && !t.Before(m.ExpiresAt) {
		return false
	}
	return true
}

// Labels are the warnings every door shows with m, where it shows m:
// "damaged: path:line: what" when its file does not parse and m is its
// last version that did, "redacted: path:line: what" when its file holds
// a secret that m shows redacted. None for a memory served as its file
// holds it.
func (m *Memory) Labels() []string { return Labels(m.Damaged, m.Redacted) }

// Labels is Memory.Labels of a memory's Damaged and Redacted, for a door
// that holds a view of it.
func Labels(damaged, redacted string) []string {
	var out []string
	if damaged != "" {
		out = append(out, "damaged: "+damaged)
	}
	if redacted != "" {
		out = append(out, "redacted: "+redacted)
	}
	return out
}

// Clone returns a deep copy so callers can't alias the vault's slices.
func (m *Memory) Clone() *Memory {
	c := *m
	c.Tags = append([]string(nil), m.Tags...)
	c.Aliases = append([]string(nil), m.Aliases...)
	c.Supersedes = append([]string(nil), m.Supersedes...)
	c.Links = append([]string(nil), m.Links...)
	c.Refs = append([]string(nil), m.Refs...)
	c.WikiLinks = append([]string(nil), m.WikiLinks...)
	c.Conflicted = append([]string(nil), m.Conflicted...)
	c.ConflictTheirs = maps.Clone(m.ConflictTheirs)
	return &c
}

// States lists the states a memory can be in at an instant, as
// Result.State and ListQuery.Statuses name them: the statuses a file may
// declare, then expired and future (not yet effective).
func States() []Status {
	return []Status{StatusActive, StatusArchived, StatusSuperseded, "expired", "future"}
}

// ParseState validates a state a caller asks for, case aside.
func ParseState(s string) (Status, error) {
	st := Status(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(States(), st) {
		return "", fmt.Errorf("%w: unknown state %q (want active|archived|superseded|expired|future)", diskwrite.ErrInvalid, s)
	}
	return st, nil
}

// ParseInstant reads an instant as people and models write one in a
// query or a flag: RFC 3339 (2026-12-01T09:00:00Z), the same without a
// zone or seconds (read as UTC), or a plain date (midnight UTC). The
// result is in UTC.
func ParseInstant(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC3339 instant (2026-12-01T09:00:00Z) or a date (2026-12-01)", s)
}
