package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/secret"
)

// Diagnostic is a problem found in a vault file, with its place.
type Diagnostic = parser.Error

// MarkersDiagnostic reports git conflict markers at path:line.
func MarkersDiagnostic(rel string, line int) *Diagnostic {
	return &Diagnostic{Path: rel, Line: line, Severity: parser.SeverityError,
		Err: fmt.Errorf("%w: a merge was left unresolved; the file is not loaded as a memory (memvault stats says what to run)", ErrConflictMarkers)}
}

// ServedForMarkers is what the vault serves for a file holding conflict
// markers, disk: the version of it last committed, data, labelled
// conflicted (the vault serves nothing when HEAD has no such file, as for
// a file new in the merge). Its Hash is that of the file on disk, so that
// the file's resolution, even back to the committed bytes, is a change
// the vault takes in.
func ServedForMarkers(rel string, data, disk []byte, modTime time.Time) *Memory {
	m, _ := Parse(rel, data, modTime)
	if m == nil {
		return nil
	}
	m.Conflicted = []string{ConflictedMarkers}
	m.Hash = ContentHash(disk)
	return m
}

// Parse converts parsed bytes into a Memory, filling what a hand-written
// file leaves out: id from the path, title from the first heading or the
// file name, layer from the folder, dates from the modification time.
func Parse(rel string, data []byte, modTime time.Time) (*Memory, []*Diagnostic) {
	return ParseScratch(rel, data, modTime, nil)
}

// ParseScratch is Parse with parser memory reused from an earlier
// call (ps may be nil): nothing the Memory keeps points into ps or data.
func ParseScratch(rel string, data []byte, modTime time.Time, ps *parser.Scratch) (*Memory, []*Diagnostic) {
	if line := merge.MarkerLine(data); line > 0 {
		// Loading it would serve half of a merge as a memory (or invent one
		// named after "<<<<<<< HEAD"): ServedForMarkers is what is served.
		return nil, []*Diagnostic{MarkersDiagnostic(rel, line)}
	}
	doc, diags := parser.Options{Scratch: ps}.Parse(rel, data)
	found := secret.Scan(data)
	diags = append(diags, secretDiagnosticsOf(rel, found)...)
	if doc == nil {
		return nil, diags
	}
	for _, d := range diags {
		if errors.Is(d.Err, parser.ErrNoFrontMatter) {
			// Hand-written notes without front matter are first-class.
			d.Severity = parser.SeverityWarning
		}
	}
	sum := ContentHash(data)
	meta := doc.Meta
	warn := func(field string, format string, args ...any) {
		diags = append(diags, &Diagnostic{Path: rel, Line: doc.FieldLine(field), Field: field, Err: fmt.Errorf(format, args...), Severity: parser.SeverityWarning})
	}
	// Front-matter strings can be pieces of one string holding the whole
	// front matter; copy the ones kept so that it can be freed.
	m := &Memory{
		ID:         strings.Clone(strings.TrimSpace(meta.ID)),
		Title:      strings.Clone(strings.TrimSpace(meta.Title)),
		Tags:       MergeTags(meta.Tags, doc.Body.Tags),
		Aliases:    cloneStrings(meta.Aliases),
		Supersedes: cloneStrings(meta.Supersedes),
		Links:      cloneStrings(meta.Links),
		Refs:       cloneStrings(meta.Refs),
		Source:     Source{Client: strings.Clone(meta.Source.Client), Kind: strings.Clone(meta.Source.Kind)},
		Body:       string(doc.BodyBytes()),
		Path:       rel,
		WikiLinks:  doc.Body.WikiLinks,
		Hash:       sum,
		idLine:     doc.FieldLine("id"),
	}
	if len(m.Supersedes) > 0 {
		m.supersedesLine = doc.FieldLine("supersedes")
	}
	if len(m.Links) > 0 {
		m.linksLine = doc.FieldLine("links")
	}
	if meta.Status != "" {
		m.statusLine = doc.FieldLine("status")
	}
	if kept, problems := capRefs(m.Refs); problems != nil {
		m.Refs = kept
		for _, p := range problems {
			warn("refs", "%s", p)
		}
	}
	m.Conflicted, m.ConflictTheirs = merge.Record(doc)
	if len(m.Conflicted) > 0 {
		// Served (labelled conflicted) but not settled: lint names it.
		warn(merge.ConflictKey, "unresolved merge conflict: both sides changed %s; keep the values that hold (theirs are in this entry), delete the entry, then commit the file (git add it first while a merge is under way)",
			strings.Join(m.Conflicted, ", "))
	}
	if m.ID == "" {
		m.ID = DerivedID(rel)
	} else if err := ValidateID(m.ID); err != nil {
		warn("id", "%v; using %q", err, DerivedID(rel))
		m.ID = DerivedID(rel)
	}
	if m.Title == "" {
		m.Title = strings.TrimSpace(doc.Body.Heading)
	}
	if m.Title == "" {
		m.Title = strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
	}
	m.text = plainText(doc.Body, m.Title)
	folderLayer, inFolder := LayerFromDir(rel)
	switch {
	case meta.Layer != "":
		l, err := ParseLayer(meta.Layer)
		if err != nil {
			m.Layer = Project
			if inFolder {
				m.Layer = folderLayer
			}
			warn("layer", "%v; using %s", err, m.Layer)
		} else {
			m.Layer = l
		}
	case inFolder:
		m.Layer = folderLayer
	default:
		m.Layer = Project
	}
	m.Importance = 5
	if meta.Importance != nil {
		m.Importance = *meta.Importance
		if m.Importance < 1 || m.Importance > 10 {
			m.Importance = min(10, max(1, m.Importance))
			warn("importance", "%d is outside 1..10; using %d", *meta.Importance, m.Importance)
		}
	}
	st, err := ParseStatus(meta.Status)
	if err != nil {
		warn("status", "%v; using active", err)
		st = StatusActive
	}
	m.Status = st
	m.Version = 1
	if meta.Version != nil && *meta.Version > 0 {
		m.Version = *meta.Version
	}
	if meta.VerifiedAt != nil {
		m.VerifiedAt = meta.VerifiedAt.UTC()
	}
	mod := modTime.UTC().Truncate(time.Second)
	m.CreatedAt, m.UpdatedAt = mod, mod
	if meta.CreatedAt != nil {
		m.CreatedAt = meta.CreatedAt.UTC()
	}
	if meta.UpdatedAt != nil {
		m.UpdatedAt = meta.UpdatedAt.UTC()
	} else if meta.CreatedAt != nil {
		m.UpdatedAt = m.CreatedAt
	}
	if m.UpdatedAt.Before(m.CreatedAt) {
		warn("updated_at", "is before created_at")
	}
	if meta.EffectiveAt != nil {
		m.EffectiveAt = meta.EffectiveAt.UTC()
	}
	if meta.ExpiresAt != nil {
		m.ExpiresAt = meta.ExpiresAt.UTC()
	} else if ttl := m.Layer.TTL(); ttl > 0 {
		m.ExpiresAt = m.UpdatedAt.Add(ttl)
	}
	for i, id := range m.Supersedes {
		switch {
		case id == m.ID:
			warn("supersedes", "%v", ErrSupersedesSelf)
		case slices.Contains(m.Supersedes[:i], id):
			warn("supersedes", "%q is listed more than once", id)
		}
	}
	if len(found) > 0 {
		// Never served as it is, by any door (issue 27, finding 4).
		redactMemory(m, rel, data, found)
	}
	return m, diags
}

// ContentHash is Memory.Hash: the first 8 bytes of the SHA-256 of the
// file's bytes, in hex. It tells the vault that a file it reads back is
// the one it wrote, or was touched without change, and it is the same in
// every process, so a memory restored from the index cache (which records
// each file's SHA-256) carries the hash a fresh read would give. Two
// different contents of one file collide with probability about 2^-64.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hashOfSum(&sum)
}

// hashOfSum is ContentHash of the bytes whose SHA-256 is sum.
func hashOfSum(sum *[sha256.Size]byte) string {
	return hex.EncodeToString(sum[:hashLen/2])
}

// hashLen is the length of a Memory.Hash: 8 bytes of SHA-256 in hex.
const hashLen = 16

// MergeTags joins front-matter tags and inline #tags, dropping duplicates
// (case-insensitively) and keeping first spellings.
func MergeTags(lists ...[]string) []string {
	var out, keys []string
	var seen map[string]bool // only once there are many: most files have a few tags
	for _, l := range lists {
		for _, t := range l {
			t = strings.TrimSpace(strings.TrimPrefix(t, "#"))
			if t == "" {
				continue
			}
			k := strings.ToLower(t)
			switch {
			case seen != nil:
				if seen[k] {
					continue
				}
				seen[k] = true
			case slices.Contains(keys, k):
				continue
			default:
				keys = append(keys, k)
				if len(keys) > 16 {
					seen = make(map[string]bool, 2*len(keys))
					for _, x := range keys {
						seen[x] = true
					}
				}
			}
			out = append(out, strings.Clone(t))
		}
	}
	return out
}

// cloneStrings copies the strings of l into fresh memory, in place; see
// Parse.
func cloneStrings(l []string) []string {
	for i, s := range l {
		l[i] = strings.Clone(s)
	}
	return l
}
