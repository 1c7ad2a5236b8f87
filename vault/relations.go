package vault

import (
	"fmt"
	"slices"
	"time"

	"github.com/memvault/memvault/parser"
)

// relationDiagsLocked reports, as warnings, what a memory's relations to
// other memories get wrong at instant at: supersedes and links entries
// naming no memory of the vault, and a status that disagrees with the
// supersession recall applies (active while an active, in-force successor
// supersedes it; superseded while nothing lists it in supersedes). They
// depend on other files, so they are computed when asked for, from the
// entries and the successor map, rather than stored with each file's
// problems. in, when not nil, limits the report to the files it accepts
// (the others are not looked at). Caller holds v.mu.
func (v *Vault) relationDiagsLocked(at time.Time, in func(path string) bool) []*Diagnostic {
	var inRing map[string]bool // paths in a supersession ring: already errors
	for _, d := range v.cycles {
		if inRing == nil {
			inRing = map[string]bool{}
		}
		inRing[d.Path] = true
	}
	var out []*Diagnostic
	warn := func(m *Memory, field string, line int, err error) {
		out = append(out, &Diagnostic{Path: m.Path, Line: line, Field: field, Severity: parser.SeverityWarning, Err: err})
	}
	dangling := func(m *Memory, field string, line int, ids []string) {
		for i, id := range ids {
			// Self-supersession and repeats are warned about when the
			// file is read.
			if id == m.ID || slices.Contains(ids[:i], id) || v.memLocked(id) != nil {
				continue
			}
			if _, ok := v.byAlias(id); ok { // an old path id a memory keeps
				continue
			}
			warn(m, field, line, fmt.Errorf("%q %w: a deleted or mistyped id (fine when the other vault, project or user, holds it)", id, ErrDangling))
		}
	}
	for d, m := range v.entries {
		if m == nil || in != nil && !in(m.Path) {
			continue
		}
		if len(m.Supersedes) > 0 {
			dangling(m, "supersedes", m.FieldLine("supersedes"), m.Supersedes)
		}
		if len(m.Links) > 0 {
			dangling(m, "links", m.FieldLine("links"), m.Links)
		}
		switch {
		case m.Status == StatusActive && d < len(v.replaced) && v.replaced[d]:
			if s := v.inForceSuccessorLocked(m, at); s != nil && !inRing[m.Path] {
				warn(m, "status", m.FieldLine("status"), fmt.Errorf("%w: active, but %s (%q) supersedes it and is in force, so recall treats it as superseded; expected status: superseded",
					ErrStatusDisagrees, s.ID, s.Title))
			}
		case m.Status == StatusSuperseded && !v.hasSuccessorLocked(m) && !inRing[m.Path]:
			warn(m, "status", m.FieldLine("status"), fmt.Errorf("%w: superseded, but no memory of this vault lists %s in supersedes, so recall hides it with nothing in its place; set status: active (or archived), or add the id to its successor's supersedes (fine when a memory of the other vault supersedes it)",
				ErrStatusDisagrees, m.ID))
		}
	}
	return out
}

// inForceSuccessorLocked returns the memory, other than m, that lists m in
// supersedes and is active and in force at at (the smallest id of them,
// so that the report is stable), or nil. Caller holds v.mu.
func (v *Vault) inForceSuccessorLocked(m *Memory, at time.Time) *Memory {
	var best *Memory
	for _, s := range v.succ[m.ID] {
		sm := v.memLocked(s)
		if s == m.ID || sm == nil || sm.Status != StatusActive || !sm.InForce(at) {
			continue
		}
		if best == nil || sm.ID < best.ID {
			best = sm
		}
	}
	return best
}

// hasSuccessorLocked reports whether a memory other than m lists m in
// supersedes. Caller holds v.mu.
func (v *Vault) hasSuccessorLocked(m *Memory) bool {
	for _, s := range v.succ[m.ID] {
		if s != m.ID {
			return true
		}
	}
	return false
}
