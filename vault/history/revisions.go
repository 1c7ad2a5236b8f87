package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// MaxBodyDiffLines caps the body diff of a revision: history is a
// summary, `git show` has the rest.
const MaxBodyDiffLines = 20

// Kinds of Revision and of MemoryChange.
const (
	KindAdded      = "added"
	KindChanged    = "changed"
	KindMoved      = "moved"   // revisions only: a move between layer folders
	KindDeleted    = "deleted" // the file was removed
	KindMentioned  = "mentioned"
	KindConfirmed  = "confirmed"  // revisions only: verified_at moved, nothing else (memvault confirm)
	KindSuperseded = "superseded" // changes only: status became superseded
	KindArchived   = "archived"   // changes only: status became archived
	// KindMerged is a merge commit whose version of the memory differs
	// from every parent's (revisions only): Revision.Merged holds the
	// reasons of the commits it brought together.
	KindMerged = "merged"
	// KindDamaged is a commit after which the memory's file no longer
	// parses (revisions only): Revision.Damaged says where and why; the
	// memory stays its last version that parsed.
	KindDamaged = "damaged"
)

// Revision is one commit in a memory's history and what it changed.
type Revision struct {
	Commit  string        `json:"commit"`
	Date    time.Time     `json:"date"`
	Author  string        `json:"author"`
	Email   string        `json:"email"`
	Client  string        `json:"client,omitempty"`
	Subject string        `json:"subject"`
	Reason  string        `json:"reason,omitempty"`
	Path    string        `json:"path"`               // vault-relative, at this commit
	OldPath string        `json:"old_path,omitempty"` // vault-relative, in the parent, when moved
	Kind    string        `json:"kind"`               // KindAdded, KindChanged, KindMoved, KindDeleted, KindConfirmed, KindMentioned or KindMerged
	Version int           `json:"version,omitempty"`
	Changes []FieldChange `json:"changes,omitempty"`
	// BodyDiff holds "+ line" / "- line" entries, at most
	// MaxBodyDiffLines; BodyDiffMore counts the ones left out.
	BodyDiff     []string `json:"body_diff,omitempty"`
	BodyDiffMore int      `json:"body_diff_more,omitempty"`
	// Merged, for a KindMerged revision, holds on each side of the merge
	// (first parent's first) the last commit that changed the memory
	// since the merge base: the merge's reasons. Changes and BodyDiff
	// compare with the first parent. Reason is empty: a merge message
	// says what was merged, not why the memory changed.
	Merged []Note `json:"merged,omitempty"`
	// Damaged, for a KindDamaged revision, is the file's problem as
	// "path:line: what".
	Damaged string `json:"damaged,omitempty"`

	before, after *vault.Memory // the memory in the parent and at this commit
}

// Memory returns the memory as this commit left it, or as it was before
// when the commit deleted it; nil when the commit names the memory in its
// trailers but has no file of it.
func (r Revision) Memory() *vault.Memory { return firstMem(r.after, r.before) }

// FieldChange is one front-matter field that differs between two versions.
// List fields read "[a, b]", times RFC 3339, "" when unset.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Story is a memory's history.
type Story struct {
	ID string
	// Title is the memory's current title, else the last one recorded,
	// else its id.
	Title string
	// Path is where the memory lives, or last lived (vault-relative).
	Path string
	// Current is the memory as the caller has it now; nil when deleted.
	Current *vault.Memory
	// Revisions are newest first; none when the memory was never
	// committed.
	Revisions []Revision
}

// History tells memory id's story: every commit that touched it, newest
// first, following it across moves between layer folders through the
// Memory-Id trailer of memvault's commits. cur is the memory as the work
// tree (or the loaded vault) has it, nil when it has none: a deleted
// memory is found through the newest commit naming it. It returns an error
// wrapping vault.ErrNotFound when neither the vault nor any commit knows
// the memory.
func (r *Reader) History(ctx context.Context, id string, cur *vault.Memory) (*Story, error) {
	rel, err := r.locate(ctx, id, cur)
	if err != nil {
		return nil, err
	}
	revs, err := r.revisions(ctx, id, rel)
	if err != nil {
		return nil, err
	}
	return &Story{ID: id, Title: storyTitle(cur, id, revs), Path: rel, Current: cur, Revisions: revs}, nil
}

// storyTitle names the memory: its current title, else the last one
// recorded.
func storyTitle(cur *vault.Memory, id string, revs []Revision) string {
	if cur != nil {
		return cur.Title
	}
	for _, r := range revs {
		if m := r.Memory(); m != nil {
			return m.Title
		}
	}
	return id
}

// locate finds where memory id lives: its current file, or for a memory
// deleted from the work tree, the file named in the newest commit carrying
// its Memory-Id trailer. The returned path is vault-relative.
func (r *Reader) locate(ctx context.Context, id string, cur *vault.Memory) (string, error) {
	if cur != nil {
		return cur.Path, nil
	}
	if vault.IsMemoryPath(id + ".md") {
		// A hand-written file's id is its path.
		if mem, _, err := r.ReadMemory(ctx, "", id+".md"); err == nil && mem != nil {
			return id + ".md", nil
		}
	}
	// Follow a path that never exists: only commits with the trailer match.
	cs, err := r.repo.Log(ctx, ".memvault-none/"+id, LogOptions{Follow: followID(id), Limit: 1, NoRenames: true})
	if err != nil {
		return "", err
	}
	if len(cs) == 0 {
		return "", fmt.Errorf("%w: %s (not in the vault, and no commit names it)", vault.ErrNotFound, vault.ShortID(id))
	}
	base := cs[0].Hash + "^"
	if _, err := r.repo.Resolve(ctx, base); errors.Is(err, ErrNotFound) {
		base = "" // a root commit: compare with the empty tree
	}
	changes, err := r.repo.Diff(ctx, base, cs[0].Hash)
	if err != nil {
		return "", err
	}
	for _, c := range changes {
		for _, side := range []struct {
			path string
			data []byte
		}{{c.Path, c.New}, {c.OldPath, c.Old}} {
			if side.path == "" || side.data == nil || !vault.IsMemoryPath(side.path) {
				continue
			}
			if mem, _ := vault.ParseMemory(side.path, side.data, time.Time{}); mem != nil && mem.ID == id {
				return side.path, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %s (commit %s names it but changed no file with that id)", vault.ErrNotFound, vault.ShortID(id), ShortHash(cs[0].Hash))
}

// revisions lists the commits that touched the memory id, whose file is at
// rel now (or was when last seen), newest first.
func (r *Reader) revisions(ctx context.Context, id, rel string) ([]Revision, error) {
	// Every side of a merge: an edit the merge's rules outranked (an
	// archive under a supersession) is part of the story even when the
	// merge kept the other side's version.
	entries, err := r.repo.Log(ctx, rel, LogOptions{Follow: followID(id), FullHistory: true})
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	// Consecutive revisions share a version of the file: parse each
	// content once.
	type parse struct {
		m       *vault.Memory
		damaged string // the version does not parse: vault.DamageLabel
	}
	parsed := map[string]parse{}
	read := func(rev, rel string, when time.Time) (parse, error) {
		if rel == "" {
			return parse{}, nil // outside the vault
		}
		data, err := r.repo.ReadFile(ctx, rev, rel)
		if errors.Is(err, ErrNotFound) {
			return parse{}, nil
		}
		if err != nil {
			return parse{}, err
		}
		key := rel + "\x00" + string(data)
		if p, ok := parsed[key]; ok {
			return p, nil
		}
		m, diags := vault.ParseMemory(rel, data, when)
		p := parse{m: m}
		if p.damaged = vault.DamageLabel(diags); p.damaged != "" {
			// Not this memory: a path id, the file name as title.
			p.m = nil
		}
		parsed[key] = p
		return p, nil
	}
	type sides struct{ before, after parse }
	read2 := make([]sides, len(entries))
	for i, e := range entries {
		parentPath := e.Path
		if e.OldPath != "" && e.OldPath != e.Path {
			parentPath = e.OldPath
		}
		if !e.Deleted {
			if read2[i].after, err = read(e.Hash, e.Path, e.When); err != nil {
				return nil, err
			}
		}
		if read2[i].before, err = read(e.Hash+"^", parentPath, e.When); err != nil {
			return nil, err
		}
	}
	// A version that does not parse stands for the last one before it
	// that did, as the vault serves it (issue 24, finding 2): the commit
	// that broke the file is "damaged", not a change of every field, and
	// the one that fixed it compares with the last good version. Oldest
	// first, to know that version.
	var lastGood *vault.Memory
	for i := len(entries) - 1; i >= 0; i-- {
		sd := &read2[i]
		if sd.before.damaged != "" {
			sd.before.m = lastGood
		}
		if sd.after.damaged != "" {
			sd.after.m = lastGood
		} else if sd.after.m != nil && sd.after.m.ID == id {
			lastGood = sd.after.m
		}
	}
	out := make([]Revision, 0, len(entries))
	for i, e := range entries {
		msg := commitmsg.ParseFor(e.Message, id)
		rv := Revision{
			Commit: e.Hash, Date: e.When.UTC(), Author: e.Author.Name, Email: e.Author.Email,
			Client: msg.Get(commitmsg.KeyClient), Subject: msg.Subject, Reason: msg.Body, Path: e.Path,
		}
		if e.OldPath != "" && e.OldPath != e.Path {
			rv.OldPath = e.OldPath
		}
		rv.before, rv.after = read2[i].before.m, read2[i].after.m
		// A commit found by its trailer may not contain this memory's
		// file at all (it names the memory in another file's commit).
		if (rv.after == nil || rv.after.ID != id) && (rv.before == nil || rv.before.ID != id) {
			rv.after, rv.before = nil, nil
		}
		describeRevision(&rv)
		if d := read2[i].after.damaged; d != "" && rv.after != nil {
			rv.Kind, rv.Damaged, rv.Changes, rv.BodyDiff, rv.BodyDiffMore = KindDamaged, d, nil, nil, 0
		}
		if len(e.Parents) > 1 {
			keep, err := r.mergedRevision(ctx, id, e, &rv)
			if err != nil {
				return nil, err
			}
			if !keep {
				continue
			}
		}
		out = append(out, rv)
	}
	return out, nil
}

// describeRevision fills Kind, Version, Changes and BodyDiff from the
// before and after versions.
func describeRevision(r *Revision) {
	switch {
	case r.after == nil && r.before != nil:
		r.Kind = KindDeleted
		r.Version = r.before.Version
		return
	case r.after == nil:
		r.Kind = KindMentioned
		return
	case r.before == nil:
		r.Kind = KindAdded
		r.Version = r.after.Version
		return
	}
	r.Version = r.after.Version
	r.Changes = FieldChanges(r.before, r.after)
	r.BodyDiff, r.BodyDiffMore = BodyDiff(r.before.Body, r.after.Body, MaxBodyDiffLines)
	switch {
	case r.OldPath != "":
		r.Kind = KindMoved
	case vault.OnlyConfirmed(r.before, r.after):
		r.Kind = KindConfirmed
	case len(r.Changes) == 0 && len(r.BodyDiff) == 0:
		r.Kind = KindMentioned
	default:
		r.Kind = KindChanged
	}
}

// FieldChanges compares the fields people care about between two versions
// of a memory, in a fixed order: title, layer, importance, tags, status,
// effective_at, expires_at, supersedes, links, version.
func FieldChanges(a, b *vault.Memory) []FieldChange {
	var out []FieldChange
	add := func(field, x, y string) {
		if x != y {
			out = append(out, FieldChange{Field: field, Old: x, New: y})
		}
	}
	add("title", a.Title, b.Title)
	add("layer", a.Layer.String(), b.Layer.String())
	add("importance", strconv.Itoa(a.Importance), strconv.Itoa(b.Importance))
	add("tags", fmtList(a.Tags), fmtList(b.Tags))
	add("status", string(a.Status), string(b.Status))
	add("effective_at", fmtTime(a.EffectiveAt), fmtTime(b.EffectiveAt))
	add("expires_at", fmtTime(a.ExpiresAt), fmtTime(b.ExpiresAt))
	add("supersedes", fmtList(a.Supersedes), fmtList(b.Supersedes))
	add("links", fmtList(a.Links), fmtList(b.Links))
	add("version", strconv.Itoa(a.Version), strconv.Itoa(b.Version))
	return out
}

func fmtList(l []string) string {
	if len(l) == 0 {
		return ""
	}
	return "[" + strings.Join(l, ", ") + "]"
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// BodyDiff is a line diff of two bodies: "- " for removed lines, "+ " for
// added ones, at most max entries plus the count left out.
func BodyDiff(a, b string, max int) ([]string, int) {
	if a == b {
		return nil, 0
	}
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var out []string
	more := 0
	for _, d := range diffs {
		var sign string
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			sign = "- "
		case diffmatchpatch.DiffInsert:
			sign = "+ "
		default:
			continue
		}
		for _, line := range strings.SplitAfter(d.Text, "\n") {
			if line == "" {
				continue
			}
			if len(out) >= max {
				more++
				continue
			}
			out = append(out, sign+strings.TrimRight(line, "\n"))
		}
	}
	return out, more
}

func firstMem(ms ...*vault.Memory) *vault.Memory {
	for _, m := range ms {
		if m != nil {
			return m
		}
	}
	return nil
}
