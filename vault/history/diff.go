package history

import (
	"context"
	"errors"
	"time"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/vault"
)

// MaxDiffReasons bounds the log lookups Diff makes to find why each memory
// changed; a huge diff has the rest without reasons.
const MaxDiffReasons = 100

// DiffKinds lists the kinds of MemoryChange in report order.
func DiffKinds() []string {
	return []string{KindAdded, KindChanged, KindSuperseded, KindArchived, KindDeleted}
}

// DiffReport is the memory changes between two commits.
type DiffReport struct {
	Base, Head string // full commit ids
	// From is the commit the changes are counted from: the merge base
	// of Base and Head (Base itself when it is an ancestor of Head).
	From    string
	Changes []MemoryChange
}

// MemoryChange is one memory that differs between two commits.
type MemoryChange struct {
	Kind    string        `json:"kind"` // one of DiffKinds
	ID      string        `json:"id"`
	Title   string        `json:"title"`
	Layer   string        `json:"layer"`
	Path    string        `json:"path"`               // vault-relative, at head (at base when deleted)
	OldPath string        `json:"old_path,omitempty"` // when moved
	Changes []FieldChange `json:"changes,omitempty"`
	Body    bool          `json:"body_changed,omitempty"`
	Broken  bool          `json:"broken,omitempty"` // the head version does not parse
	// Supersedes lists what an added or changed memory newly replaces;
	// SupersededBy what replaced a superseded one, when it is in the diff.
	Supersedes   []vault.Ref `json:"supersedes,omitempty"`
	SupersededBy []vault.Ref `json:"superseded_by,omitempty"`
	// Reason, Client and Author come from the commit that made the
	// change that matters (Reader.explain): the one that added an added
	// memory, else the newest that changed more than verified_at.
	Reason string `json:"reason,omitempty"`
	Client string `json:"client,omitempty"`
	Author string `json:"author,omitempty"`
	// BodyDiff is the body's change in unified form (UnifiedBodyDiff), an
	// added memory's body as added lines; at most MaxDiffBodyLines, and
	// BodyDiffMore counts the lines left out.
	BodyDiff     []string `json:"body_diff,omitempty"`
	BodyDiffMore int      `json:"body_diff_more,omitempty"`
}

// Diff tells what head did to the vault since it forked from base, as
// `git diff base...head` does: it compares the vault at their merge base
// with the vault at head, so commits base made meanwhile (main moving on
// while a branch was reviewed) are not reported as head deleting or
// undoing them. Memories are matched by id, wherever their files are: the
// memories added, changed (and which fields, and a body diff), superseded,
// archived and deleted, each with the reason recorded by the newest
// commit up to head that changed its file. A revision the repository does
// not have is a *RevisionError; two unrelated histories are compared
// from base itself.
func (r *Reader) Diff(ctx context.Context, base, head string) (*DiffReport, error) {
	b, err := r.resolve(ctx, base)
	if err != nil {
		return nil, err
	}
	h, err := r.resolve(ctx, head)
	if err != nil {
		return nil, err
	}
	from, err := r.repo.MergeBase(ctx, b.Hash, h.Hash)
	if errors.Is(err, ErrNotFound) {
		from = b.Hash
	} else if err != nil {
		return nil, err
	}
	changes, err := r.memoryChanges(ctx, from, h.Hash)
	if err != nil {
		return nil, err
	}
	return &DiffReport{Base: b.Hash, Head: h.Hash, From: from, Changes: changes}, nil
}

// sides is one memory's file on each side of a diff.
type sides struct {
	fc            FileChange
	before, after *vault.Memory
}

// pairByID joins a memory's deletion and addition under two paths (a move
// git did not see as a rename: the file changed too much) into one
// change, matched by the memory's id.
func pairByID(in []sides) []sides {
	addedAt := map[string]int{}
	for i, s := range in {
		if s.fc.Kind == filechange.Added && s.after != nil {
			addedAt[s.after.ID] = i
		}
	}
	joinedTo := map[int]int{} // deletion -> addition
	taken := map[int]bool{}   // additions joined
	for i, s := range in {
		if s.fc.Kind != filechange.Deleted || s.before == nil {
			continue
		}
		if a, ok := addedAt[s.before.ID]; ok && !taken[a] {
			joinedTo[i], taken[a] = a, true
		}
	}
	out := make([]sides, 0, len(in))
	for i, s := range in {
		if taken[i] {
			continue
		}
		if a, ok := joinedTo[i]; ok {
			add := in[a]
			s = sides{fc: FileChange{Path: add.fc.Path, OldPath: s.fc.OldPath, Kind: filechange.Renamed, Old: s.fc.Old, New: add.fc.New},
				before: s.before, after: add.after}
		}
		out = append(out, s)
	}
	return out
}

// memoryChanges compares the vault at two commits.
func (r *Reader) memoryChanges(ctx context.Context, base, head string) ([]MemoryChange, error) {
	fcs, err := r.repo.Diff(ctx, base, head)
	if err != nil {
		return nil, err
	}
	var all []sides
	for _, fc := range fcs {
		if fc.Path == "" || !vault.IsMemoryPath(fc.Path) {
			continue
		}
		s := sides{fc: fc}
		if fc.Old != nil {
			s.before, _ = vault.ParseMemory(fc.OldPath, fc.Old, time.Time{})
		}
		if fc.New != nil {
			s.after, _ = vault.ParseMemory(fc.Path, fc.New, time.Time{})
		}
		all = append(all, s)
	}
	var out []MemoryChange
	titles := map[string]string{}
	for _, s := range pairByID(all) {
		fc, before, after := s.fc, s.before, s.after
		c := MemoryChange{Path: fc.Path}
		if fc.Kind == filechange.Renamed {
			c.OldPath = fc.OldPath
		}
		cur := firstMem(after, before)
		if cur == nil {
			continue // neither side is a memory file
		}
		c.ID, c.Title, c.Layer = cur.ID, cur.Title, cur.Layer.String()
		titles[c.ID] = c.Title
		switch {
		case fc.Kind == filechange.Added:
			c.Kind = KindAdded
			c.Supersedes = vault.NewSupersedes(nil, after)
			c.BodyDiff, c.BodyDiffMore = UnifiedBodyDiff("", after.Body, MaxDiffBodyLines)
		case fc.Kind == filechange.Deleted:
			c.Kind, c.Path = KindDeleted, fc.OldPath
		case after == nil:
			c.Kind, c.Broken = KindChanged, true
		case before == nil:
			c.Kind = KindAdded
		default:
			c.Changes = FieldChanges(before, after)
			c.Body = before.Body != after.Body
			c.BodyDiff, c.BodyDiffMore = UnifiedBodyDiff(before.Body, after.Body, MaxDiffBodyLines)
			c.Supersedes = vault.NewSupersedes(before, after)
			c.Kind = vault.Transition(before, after)
		}
		out = append(out, c)
	}
	// Name the memories on both ends of a supersession in this diff.
	byID := map[string]int{}
	for i := range out {
		byID[out[i].ID] = i
	}
	for i := range out {
		for j, ref := range out[i].Supersedes {
			out[i].Supersedes[j].Title = titles[ref.ID]
			if k, ok := byID[ref.ID]; ok && out[k].Kind == KindSuperseded {
				out[k].SupersededBy = append(out[k].SupersededBy, vault.Ref{ID: out[i].ID, Title: out[i].Title})
			}
		}
	}
	for i := range out {
		if i == MaxDiffReasons {
			break
		}
		if err := r.explain(ctx, head, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
