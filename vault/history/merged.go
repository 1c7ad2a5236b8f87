package history

import (
	"bytes"
	"context"
	"errors"
	"path"
	"time"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// A merge commit in a memory's history. Git lists a merge in a file's log
// only when its result differs from every parent (a merge that took one
// side's version is that side's story, told by its own commits). Such a
// merge changed the memory, but it was not a decision of whoever merged:
// its message is "Merge branch ..." and, after a hand resolution, the list
// of conflicted files. So a merge is told as KindMerged, with no reason of
// its own, and the reasons of the commits it brought together: on each
// side, the last commit that changed the memory since the merge base.

// mergedRevision turns rv, the revision of merge commit e, into a
// KindMerged one. It reports false when the merge's version of the memory
// equals one parent's (the Repo listed it anyway): that side's commits
// tell the story, and the merge is left out.
func (r *Reader) mergedRevision(ctx context.Context, id string, e LogEntry, rv *Revision) (bool, error) {
	data, err := r.repo.ReadFile(ctx, e.Hash, e.Path)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return false, err
	}
	paths := make([]string, len(e.Parents))
	for i, p := range e.Parents {
		rel, pdata, err := r.fileOf(ctx, p, id, e)
		if err != nil {
			return false, err
		}
		if rel != "" && bytes.Equal(pdata, data) {
			return false, nil
		}
		paths[i] = rel
	}
	// Changes are what the merge brought to the branch merged into: its
	// first parent, wherever that side kept the file.
	if rv.before == nil && paths[0] != "" {
		if rv.before, _, err = r.ReadMemory(ctx, e.Parents[0], paths[0]); err != nil {
			return false, err
		}
		if paths[0] != e.Path {
			rv.OldPath = paths[0]
		}
		describeRevision(rv)
	}
	if rv.after == nil {
		return true, nil // deleted by the merge: told as a deletion
	}
	rv.Kind = KindMerged
	rv.Reason = ""
	rv.Merged, err = r.mergeSides(ctx, id, e, paths)
	return true, err
}

// fileOf finds memory id in commit rev, a parent of merge e: at the
// merge's path, at the path the first parent had, or in another layer's
// folder under the same name (a layer move keeps the file name). It
// returns "" when rev has no such file.
func (r *Reader) fileOf(ctx context.Context, rev, id string, e LogEntry) (string, []byte, error) {
	cands := []string{e.Path}
	if e.OldPath != "" {
		cands = append(cands, e.OldPath)
	}
	name := path.Base(e.Path)
	for _, l := range vault.AllLayers() {
		cands = append(cands, l.Dir()+"/"+name)
	}
	for _, rel := range cands {
		data, err := r.repo.ReadFile(ctx, rev, rel)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		if m, _ := vault.ParseMemory(rel, data, time.Time{}); m != nil && m.ID == id {
			return rel, data, nil
		}
	}
	return "", nil, nil
}

// mergeSides returns, for each parent of merge e whose side changed the
// memory since the merge base, the last commit that did. paths are the
// memory's file in each parent ("" where the parent has none).
func (r *Reader) mergeSides(ctx context.Context, id string, e LogEntry, paths []string) ([]Note, error) {
	base := e.Parents[0]
	for _, p := range e.Parents[1:] {
		b, err := r.repo.MergeBase(ctx, base, p)
		if errors.Is(err, ErrNotFound) {
			base = "" // unrelated histories: every side's last change counts
			break
		}
		if err != nil {
			return nil, err
		}
		base = b
	}
	var out []Note
	for i, p := range e.Parents {
		if paths[i] == "" {
			continue // this side deleted it (or never had it)
		}
		les, err := r.repo.Log(ctx, paths[i], LogOptions{Rev: p, Follow: followID(id), Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(les) == 0 {
			continue
		}
		le := les[0]
		if base != "" {
			// Not since the merge base: the side left the memory as it
			// was, and its last change is history both sides share.
			mb, err := r.repo.MergeBase(ctx, le.Hash, base)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return nil, err
			}
			if mb == le.Hash {
				continue
			}
		}
		msg := commitmsg.ParseFor(le.Message, id)
		out = append(out, Note{Commit: le.Hash, Date: le.When.UTC(), Client: msg.Get(commitmsg.KeyClient), Author: le.Author.Name,
			Subject: msg.Subject, Reason: msg.Body})
	}
	return out, nil
}
