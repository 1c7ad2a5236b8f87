package history

import (
	"context"
	"slices"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
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
	Changes    []MemoryChange
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
	// Reason and Client come from the newest commit that changed the file.
	Reason string `json:"reason,omitempty"`
	Client string `json:"client,omitempty"`
}

// Diff compares the vault at two revisions: the memories added, changed
// (and which fields), superseded, archived and deleted, each with the
// reason recorded by the newest commit up to head that changed its file.
// A revision the repository does not have is a *RevisionError.
func (r *Reader) Diff(ctx context.Context, base, head string) (*DiffReport, error) {
	b, err := r.resolve(ctx, base)
	if err != nil {
		return nil, err
	}
	h, err := r.resolve(ctx, head)
	if err != nil {
		return nil, err
	}
	changes, err := r.memoryChanges(ctx, b.Hash, h.Hash)
	if err != nil {
		return nil, err
	}
	return &DiffReport{Base: b.Hash, Head: h.Hash, Changes: changes}, nil
}

// memoryChanges compares the vault at two commits.
func (r *Reader) memoryChanges(ctx context.Context, base, head string) ([]MemoryChange, error) {
	fcs, err := r.repo.Diff(ctx, base, head)
	if err != nil {
		return nil, err
	}
	var out []MemoryChange
	titles := map[string]string{}
	for _, fc := range fcs {
		if fc.Path == "" || !vault.IsMemoryPath(fc.Path) {
			continue
		}
		var before, after *vault.Memory
		if fc.Old != nil {
			before, _ = vault.ParseMemory(fc.OldPath, fc.Old, time.Time{})
		}
		if fc.New != nil {
			after, _ = vault.ParseMemory(fc.Path, fc.New, time.Time{})
		}
		c := MemoryChange{Path: fc.Path}
		if fc.Kind == FileRenamed {
			c.OldPath = fc.OldPath
		}
		cur := firstMem(after, before)
		if cur == nil {
			continue // neither side is a memory file
		}
		c.ID, c.Title, c.Layer = cur.ID, cur.Title, cur.Layer.String()
		titles[c.ID] = c.Title
		switch {
		case fc.Kind == FileAdded:
			c.Kind = KindAdded
			c.Supersedes = refs(after.Supersedes)
		case fc.Kind == FileDeleted:
			c.Kind, c.Path = KindDeleted, fc.OldPath
		case after == nil:
			c.Kind, c.Broken = KindChanged, true
		case before == nil:
			c.Kind = KindAdded
		default:
			c.Changes = FieldChanges(before, after)
			c.Body = before.Body != after.Body
			for _, id := range after.Supersedes {
				if !slices.Contains(before.Supersedes, id) {
					c.Supersedes = append(c.Supersedes, vault.Ref{ID: id})
				}
			}
			switch {
			case after.Status == vault.StatusSuperseded && before.Status != vault.StatusSuperseded:
				c.Kind = KindSuperseded
			case after.Status == vault.StatusArchived && before.Status != vault.StatusArchived:
				c.Kind = KindArchived
			default:
				c.Kind = KindChanged
			}
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
		c := &out[i]
		cs, err := r.repo.Log(ctx, c.Path, LogOptions{Rev: head, Limit: 1, NoRenames: true})
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			msg := commitmsg.Parse(cs[0].Message)
			c.Reason, c.Client = msg.Body, msg.Get(commitmsg.KeyClient)
		}
	}
	return out, nil
}

func refs(ids []string) []vault.Ref {
	var out []vault.Ref
	for _, id := range ids {
		out = append(out, vault.Ref{ID: id})
	}
	return out
}
