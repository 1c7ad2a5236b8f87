// Package resolve settles the memory files a git merge, rebase or
// cherry-pick left unmerged (`memvault resolve`, and `memvault sync` after
// a merge): by the merge driver's rules (vault/merge), or one side whole,
// or both sides as rival memories; and joins the copies of a memory a
// merge left in two files. It reads and stages git's index through the
// MergeIndex it declares (cmd/memvault/internal/gitrepo implements it).
package resolve

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/merge"
)

// Unmerged is a file a merge left unmerged in git's index, with its
// stages: 1 the common ancestor, 2 ours, 3 theirs. A stage that is absent
// is nil; a present but empty one is a non-nil empty slice.
type Unmerged struct {
	// Path is vault-relative, slash-separated.
	Path               string
	Base, Ours, Theirs []byte
}

// MergeIndex is git's index during a merge, as Run reads and updates
// it; cmd/memvault/internal/gitrepo implements it with gitstore.
type MergeIndex interface {
	// Unmerged lists the unmerged files under the vault with their
	// stages.
	Unmerged(ctx context.Context) ([]Unmerged, error)
	// Stage records vault-relative files as they are in the work tree (a
	// missing file as deleted), which resolves them.
	Stage(ctx context.Context, rels []string) error
}

// Side is how Run resolves a file.
type Side int

const (
	// Merge applies the merge driver's rules (vault/merge).
	Merge Side = iota
	// Ours takes our side whole (stage 2).
	Ours
	// Theirs takes their side whole (stage 3).
	Theirs
	// Both keeps both sides as rival memories: ours at the path,
	// theirs under a new id in a file of its own, each linking the other.
	Both
)

// Options says which files Run resolves and how.
type Options struct {
	Side Side
	// Only names the files to resolve, by vault-relative path or by the
	// id either side gives the memory; empty means every unmerged memory
	// file.
	Only []string
	// Now dates new ids (Both); nil means time.Now.
	Now func() time.Time
	// Entropy feeds new ids; nil means crypto/rand.
	Entropy io.Reader
}

// Resolution actions, Resolved.Action.
const (
	ActionMerged   = "merged"         // the driver's rules, clean
	ActionConflict = "conflict"       // the driver's rules, with a conflict record
	ActionOurs     = "ours"           // ours whole
	ActionTheirs   = "theirs"         // theirs whole
	ActionBoth     = "both"           // rivals: theirs under a new id in NewPath
	ActionSplit    = "split"          // two memories added at one path: theirs moved to NewPath
	ActionKept     = "kept"           // changed on one side, deleted on the other: the change kept
	ActionRenamed  = "merged-renamed" // changed on one side, moved on the other: merged into NewPath
	ActionDeleted  = "deleted"        // deleted on both sides, or the side taken deleted it
)

// Resolved is what Run did with one file.
type Resolved struct {
	Path   string `json:"path"`
	Action string `json:"action"`
	// ID is the memory's id at Path (ours, when both sides have one).
	ID string `json:"id,omitempty"`
	// NewPath is the other file written (split, both) or the file the
	// change went to (merged-renamed); NewID the id there.
	NewPath string `json:"new_path,omitempty"`
	NewID   string `json:"new_id,omitempty"`
	// Conflicts names what both sides changed differently (the conflict
	// record's fields).
	Conflicts []string `json:"conflicts,omitempty"`
	// Note says more, for people: which side deleted the file.
	Note string `json:"note,omitempty"`
}

// ErrNotUnmerged means a path or id given to Run names no unmerged
// memory file.
var ErrNotUnmerged = fault.New(fault.Invalid, "not an unmerged memory file")

// Run resolves the memory files a merge left unmerged under the vault
// at dir: it reads their index stages, writes the result to the work tree
// and stages it. With Merge a file gets exactly what the merge
// driver would have written (vault/merge), with two additions the driver
// cannot make, since it writes only the one file git names: two different
// memories added at one path (two ids) both survive, the greater id in a
// file of its own (the slug and a short id suffix; see split); and a memory changed on one
// side and deleted on the other is kept, or merged into the file the other
// side moved it to (same id, another layer folder). Files it cannot
// resolve are named in the error, one line each; the others are resolved
// and staged all the same.
func Run(ctx context.Context, dir string, idx MergeIndex, o Options) ([]Resolved, error) {
	all, err := idx.Unmerged(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the unmerged files: %w", err)
	}
	files, err := selectUnmerged(all, o.Only)
	if err != nil {
		return nil, err
	}
	root, err := diskwrite.Open(dir, false)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	r := &resolver{dir: dir, root: root, o: o, taken: map[string]bool{}, joined: map[string]string{}}
	for _, u := range all {
		r.taken[u.Path] = true
	}
	var (
		out   []Resolved
		stage []string
		errs  []error
	)
	// Files both sides have first: a split writes a memory to a new
	// path, where a file one side deleted (moved) looks for its id.
	slices.SortStableFunc(files, func(a, b Unmerged) int { return sides(b) - sides(a) })
	for _, u := range files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		res, paths, err := r.file(ctx, u)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", u.Path, err))
			continue
		}
		out = append(out, res)
		stage = append(stage, paths...)
	}
	if len(stage) > 0 {
		if err := idx.Stage(ctx, stage); err != nil {
			return out, fmt.Errorf("stage the resolved files: %w", err)
		}
	}
	return out, errors.Join(errs...)
}

// selectUnmerged keeps the unmerged memory files named by path or id, or
// all of them; a name that matches none is an error.
func selectUnmerged(all []Unmerged, only []string) ([]Unmerged, error) {
	var mem []Unmerged
	for _, u := range all {
		if vault.IsMemoryPath(u.Path) {
			mem = append(mem, u)
		}
	}
	if len(only) == 0 {
		return mem, nil
	}
	var out []Unmerged
	var errs []error
	for _, name := range only {
		i := slices.IndexFunc(mem, func(u Unmerged) bool {
			return u.Path == name || idOf(u.Ours) == name || idOf(u.Theirs) == name || idOf(u.Base) == name
		})
		switch {
		case i < 0:
			errs = append(errs, fmt.Errorf("%s: %w (git ls-files -u lists what a merge left)", vault.ShortID(name), ErrNotUnmerged))
		case !slices.ContainsFunc(out, func(u Unmerged) bool { return u.Path == mem[i].Path }):
			out = append(out, mem[i])
		}
	}
	return out, errors.Join(errs...)
}

// sides counts the sides (ours, theirs) that have the file.
func sides(u Unmerged) int {
	n := 0
	if u.Ours != nil {
		n++
	}
	if u.Theirs != nil {
		n++
	}
	return n
}

// idOf is the id a memory file's front matter gives, "" when none.
func idOf(data []byte) string {
	if data == nil {
		return ""
	}
	d, _ := parser.Parse("stage", data)
	if d == nil {
		return ""
	}
	return d.Meta.ID
}

// resolver is one run of Run.
type resolver struct {
	dir   string
	root  *diskwrite.Root
	o     Options
	taken map[string]bool // paths written or unmerged: not free for a new file
	// joined is id → the file a moved memory's copies were merged into
	// in this run.
	joined map[string]string
}

// layerDir is the folder of the layer a memory file's front matter
// names, "" when it names none that memvault knows.
func layerDir(data []byte) string {
	d, _ := parser.Parse("merged", data)
	if d == nil {
		return ""
	}
	l, err := vault.ParseLayer(d.Meta.Layer)
	if err != nil || d.Meta.Layer == "" {
		return ""
	}
	return l.Dir()
}

// file resolves one unmerged file and returns the paths to stage.
func (r *resolver) file(ctx context.Context, u Unmerged) (Resolved, []string, error) {
	res := Resolved{Path: u.Path, ID: cmp.Or(idOf(u.Ours), idOf(u.Theirs))}
	switch r.o.Side {
	case Ours, Theirs:
		data, action := u.Ours, ActionOurs
		if r.o.Side == Theirs {
			data, action = u.Theirs, ActionTheirs
			res.ID = idOf(u.Theirs)
		}
		res.Action = action
		if data == nil {
			res.Action, res.Note = ActionDeleted, action+" deleted the file"
			return res, []string{u.Path}, r.remove(u.Path)
		}
		return res, []string{u.Path}, r.write(u.Path, data)
	}
	switch {
	case u.Ours == nil && u.Theirs == nil:
		res.Action = ActionDeleted
		return res, []string{u.Path}, r.remove(u.Path)
	case u.Ours == nil || u.Theirs == nil:
		return r.changedDeleted(ctx, u, res)
	case r.o.Side == Both:
		return r.both(u, res)
	}
	m, err := merge.Files(u.Base, u.Ours, u.Theirs)
	var two *merge.TwoMemoriesError
	switch {
	case errors.As(err, &two):
		return r.split(ctx, u, res, two.Ours, two.Theirs)
	case errors.Is(err, merge.ErrUnmergeable):
		// One side does not parse (or is too big to merge by fields):
		// keep the one that parses and the other whole in its record,
		// for a person to choose; nothing is lost either way.
		k, kept, kerr := merge.Keep(u.Ours, u.Theirs)
		if kerr != nil {
			return res, nil, fmt.Errorf("%w (%w): edit the file by hand, or take a side whole with --ours or --theirs", err, kerr)
		}
		res.ID = idOf(k.Data)
		res.Action, res.Conflicts = ActionConflict, k.Conflicts
		res.Note = fmt.Sprintf("cannot merge by fields (%v): kept %s, the other side's whole file is in the conflict entry; choose, then delete the entry", err, kept)
		return res, []string{u.Path}, r.write(u.Path, k.Data)
	case err != nil:
		return res, nil, fmt.Errorf("%w: edit the file by hand, or take a side whole with --ours, --theirs or --both", err)
	}
	res.Action, res.Conflicts = ActionMerged, m.Conflicts
	if len(m.Conflicts) > 0 {
		res.Action = ActionConflict
	}
	return res, []string{u.Path}, r.write(u.Path, m.Data)
}

// changedDeleted resolves a file one side deleted: when the other changed
// it, the change is kept, never lost to the deletion; when a file under
// the vault now carries the same id (the deleting side moved the memory
// to another layer folder and git did not pair the two), the change is
// merged into that file and the old path goes.
func (r *resolver) changedDeleted(ctx context.Context, u Unmerged, res Resolved) (Resolved, []string, error) {
	kept, side, gone := u.Ours, "ours", "theirs"
	if kept == nil {
		kept, side, gone = u.Theirs, "theirs", "ours"
	}
	res.ID = idOf(kept)
	if baseID := idOf(u.Base); baseID != "" && res.ID != "" && baseID != res.ID {
		// The path held another memory, which the deleting side moved
		// away while the path went to this one (an earlier split):
		// this one stays as it is, and the other's copies join.
		paths, err := r.joinCopies(ctx, baseID, u.Base, u.Path)
		if err != nil {
			return res, nil, err
		}
		res.Action, res.Note = ActionKept, fmt.Sprintf("%s moved %s away from this file name; the memory here stays", gone, baseID)
		return res, append([]string{u.Path}, paths...), r.write(u.Path, kept)
	}
	if into, ok := r.joined[res.ID]; ok && res.ID != "" {
		// Both sides moved the memory (git's rename/rename): the other
		// path's copy, which this one's stage holds, is already merged
		// into the file kept; a second merge would take its stage whole.
		res.Action, res.NewPath, res.NewID = ActionRenamed, into, res.ID
		res.Note = fmt.Sprintf("merged into %s with the other side's move", into)
		if into == u.Path {
			return res, []string{u.Path}, nil
		}
		return res, []string{u.Path}, r.remove(u.Path)
	}
	if res.ID != "" {
		moved, data, err := r.findID(ctx, res.ID, u.Path)
		if err != nil {
			return res, nil, err
		}
		if moved != "" {
			o, t := data, kept
			if side == "ours" {
				o, t = kept, data
			}
			m, err := merge.Files(u.Base, o, t)
			if err != nil {
				return res, nil, fmt.Errorf("merge with %s, where %s moved it: %w", moved, gone, err)
			}
			// The file goes where its merged layer says: when both sides
			// moved it, the layer kept is ours, which may be this path's
			// folder, not the other file's.
			into, drop := moved, u.Path
			if dir := layerDir(m.Data); dir != "" && dir == path.Dir(u.Path) && dir != path.Dir(moved) {
				into, drop = u.Path, moved
			}
			if err := r.write(into, m.Data); err != nil {
				return res, nil, err
			}
			r.joined[res.ID] = into
			res.Action, res.NewPath, res.NewID, res.Conflicts = ActionRenamed, into, res.ID, m.Conflicts
			res.Note = fmt.Sprintf("%s changed it, %s moved it to %s", side, gone, moved)
			return res, []string{u.Path, moved}, r.remove(drop)
		}
	}
	res.Action, res.Note = ActionKept, fmt.Sprintf("%s changed it, %s deleted it: the change is kept (forget it again if it should go)", side, gone)
	return res, []string{u.Path}, r.write(u.Path, kept)
}

// joinCopies merges the files under the vault (but except) that carry
// id, when there are several (one side moved the memory, the other had
// moved it elsewhere: an earlier split), three-way against base, into the
// one outside except's folder (a deliberate move to another layer wins
// the place), and removes the others. It returns the paths to stage.
func (r *resolver) joinCopies(ctx context.Context, id string, base []byte, except string) ([]string, error) {
	rels, err := vault.MemoryFiles(ctx, r.dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	var copies [][]byte
	for _, rel := range rels {
		if rel == except || !vault.IsMemoryPath(rel) {
			continue
		}
		data, err := r.root.ReadFile(rel)
		if err == nil && bytes.Contains(data, []byte(id)) && idOf(data) == id {
			paths, copies = append(paths, rel), append(copies, data)
		}
	}
	if len(paths) < 2 {
		return nil, nil
	}
	keep := slices.IndexFunc(paths, func(p string) bool { return path.Dir(p) != path.Dir(except) })
	if keep < 0 {
		keep = 0
	}
	merged := copies[keep]
	for i, data := range copies {
		if i == keep {
			continue
		}
		m, err := merge.Files(base, merged, data)
		if err != nil {
			return nil, fmt.Errorf("join the copies of %s (%s, %s): %w", id, paths[keep], paths[i], err)
		}
		merged = m.Data
		if err := r.remove(paths[i]); err != nil {
			return nil, err
		}
	}
	return paths, r.write(paths[keep], merged)
}

// findID looks for another memory file under the vault carrying id, and
// returns its path and contents ("" when there is none).
func (r *resolver) findID(ctx context.Context, id, except string) (string, []byte, error) {
	rels, err := vault.MemoryFiles(ctx, r.dir)
	if err != nil {
		return "", nil, err
	}
	for _, rel := range rels {
		if rel == except || !vault.IsMemoryPath(rel) {
			continue
		}
		data, err := r.root.ReadFile(rel)
		if err != nil || !bytes.Contains(data, []byte(id)) {
			continue
		}
		if idOf(data) == id {
			return rel, data, nil
		}
	}
	return "", nil, nil
}

// split keeps two memories that meet at one path (added on both sides,
// or the path given to another memory on one side while the other edited
// the memory that was there). The one with the greater id
// moves, whichever side it came from, so that every clone that meets the
// pair makes the same choice and later merges find each memory where the
// others put it: beside the path (the slug and a short suffix of its id),
// or into the file that already carries its id there (a clone that split
// the pair before), merged with it.
func (r *resolver) split(ctx context.Context, u Unmerged, res Resolved, oursID, theirsID string) (Resolved, []string, error) {
	stay, move, moveID, moveSide := u.Ours, u.Theirs, theirsID, "theirs"
	if oursID > theirsID {
		stay, move, moveID, moveSide = u.Theirs, u.Ours, oursID, "ours"
	}
	other, data, err := r.findID(ctx, moveID, u.Path)
	if err != nil {
		return res, nil, err
	}
	to := other
	if to == "" {
		to = r.freeBeside(u.Path, moveID)
	} else {
		// The base is the mover's when the path held it before (the
		// other side gave the path to the other memory): then the
		// mover's edits merge three-way.
		var base []byte
		if idOf(u.Base) == moveID {
			base = u.Base
		}
		m, err := merge.Files(base, data, move)
		if err != nil {
			return res, nil, fmt.Errorf("merge %s's memory %s into %s: %w", moveSide, moveID, other, err)
		}
		move, res.Conflicts = m.Data, m.Conflicts
	}
	if err := r.write(u.Path, stay); err != nil {
		return res, nil, err
	}
	if err := r.write(to, move); err != nil {
		return res, nil, err
	}
	res.Action, res.ID, res.NewPath, res.NewID = ActionSplit, idOf(stay), to, moveID
	res.Note = fmt.Sprintf("two memories met at this file name: the one from %s went to %s", moveSide, to)
	return res, []string{u.Path, to}, nil
}

// both keeps the two sides as rival memories: ours at the path, theirs
// under a new id in a file of its own, each linking the other.
func (r *resolver) both(u Unmerged, res Resolved) (Resolved, []string, error) {
	ours, err := r.doc("ours", u.Ours)
	if err != nil {
		return res, nil, err
	}
	theirs, err := r.doc("theirs", u.Theirs)
	if err != nil {
		return res, nil, err
	}
	now := time.Now
	if r.o.Now != nil {
		now = r.o.Now
	}
	newID, err := vault.NewULID(now(), r.o.Entropy)
	if err != nil {
		return res, nil, err
	}
	oursID := ours.Meta.ID
	if oursID == "" {
		oursID = vault.DerivedID(u.Path)
	}
	to := r.freeBeside(u.Path, newID)
	for _, e := range []struct {
		d    *parser.Document
		link string
	}{{ours, newID}, {theirs, oursID}} {
		e.d.Delete(merge.ConflictKey)
		links := slices.Clone(e.d.Meta.Links)
		if !slices.Contains(links, e.link) {
			links = append(links, e.link)
		}
		if err := e.d.Set("links", links); err != nil {
			return res, nil, fmt.Errorf("link the rivals: %w", err)
		}
	}
	if err := theirs.Set("id", newID); err != nil {
		return res, nil, fmt.Errorf("give theirs a new id: %w", err)
	}
	if err := r.write(u.Path, ours.Format()); err != nil {
		return res, nil, err
	}
	if err := r.write(to, theirs.Format()); err != nil {
		return res, nil, err
	}
	res.Action, res.ID, res.NewPath, res.NewID = ActionBoth, oursID, to, newID
	return res, []string{u.Path, to}, nil
}

// doc parses one side for editing.
func (r *resolver) doc(side string, data []byte) (*parser.Document, error) {
	d, diags := parser.Parse(side, data)
	if d == nil || parser.HasError(diags) {
		return nil, fmt.Errorf("%s is not a memory file that parses: %w", side, parser.Join(diags))
	}
	return d, nil
}

// freeBeside picks a file name next to rel for the memory id: rel's slug
// and a short suffix of the id (its random end), longer when taken.
func (r *resolver) freeBeside(rel, id string) string {
	folder, stem := path.Dir(rel), strings.TrimSuffix(path.Base(rel), ".md")
	suffix := strings.ToLower(vault.Slug(id))
	for n := 6; ; n++ {
		s := suffix
		if n < len(s) {
			s = s[len(s)-n:]
		} else if n > len(s) {
			s = fmt.Sprintf("%s-%d", s, n-len(s))
		}
		cand := path.Join(folder, stem+"-"+s+".md")
		if r.taken[cand] {
			continue
		}
		if _, err := r.root.ReadFile(cand); err == nil {
			continue
		}
		r.taken[cand] = true
		return cand
	}
}

func (r *resolver) write(rel string, data []byte) error {
	if line := merge.MarkerLine(data); line > 0 {
		return fmt.Errorf("line %d: %w: resolve it by hand", line, vault.ErrConflictMarkers)
	}
	r.taken[rel] = true
	if err := r.root.WriteFile(rel, data); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}

func (r *resolver) remove(rel string) error {
	if err := r.root.Remove(rel); err != nil {
		return fmt.Errorf("remove %s: %w", rel, err)
	}
	return nil
}

// Base gives a memory's file as it was where the two sides of a merge
// forked (nil when it was not there yet).
type Base func(ctx context.Context, id string) ([]byte, error)

// JoinCopies finds the memories a merge left in two or more files (one
// branch moved a memory to one layer folder and another to a different
// one: git sees two deletions and two new files, and no conflict) and
// joins each memory's copies into one file by the merge rules, three-way
// against the memory's file where the sides forked (base; nil, or none
// there: what differs is merged as if both sides changed it, and a
// difference no rule settles is a conflict record). Without the base, a
// field one side changed before its move would be left for a person. The copy kept is the one whose
// path sorts first, so every clone that joins the same copies writes the
// same tree. It returns what it did, one Resolved per memory (ID, Path the
// file kept, NewPath the copy removed when there were two); the caller
// stages and commits the paths.
func JoinCopies(ctx context.Context, dir string, base Base) ([]Resolved, error) {
	rels, err := vault.MemoryFiles(ctx, dir)
	if err != nil {
		return nil, err
	}
	root, err := diskwrite.Open(dir, false)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	byID := map[string][]string{}
	var ids []string
	for _, rel := range rels {
		if !vault.IsMemoryPath(rel) {
			continue
		}
		data, err := root.ReadFile(rel)
		if err != nil {
			continue
		}
		if id := idOf(data); id != "" {
			if byID[id] == nil {
				ids = append(ids, id)
			}
			byID[id] = append(byID[id], rel)
		}
	}
	r := &resolver{dir: dir, root: root, taken: map[string]bool{}}
	var out []Resolved
	for _, id := range ids {
		paths := byID[id]
		if len(paths) < 2 {
			continue
		}
		slices.Sort(paths)
		kept, err := root.ReadFile(paths[0])
		if err != nil {
			return out, fmt.Errorf("read %s: %w", paths[0], err)
		}
		res := Resolved{Path: paths[0], Action: ActionMerged, ID: id}
		var forked []byte
		if base != nil {
			if forked, err = base(ctx, id); err != nil {
				return out, fmt.Errorf("join the copies of %s: read it where the merge's sides forked: %w", id, err)
			}
		}
		for _, p := range paths[1:] {
			data, err := root.ReadFile(p)
			if err != nil {
				return out, fmt.Errorf("read %s: %w", p, err)
			}
			m, err := merge.Files(forked, kept, data)
			if err != nil {
				return out, fmt.Errorf("join the copies of %s (%s, %s): %w", id, paths[0], p, err)
			}
			kept = m.Data
			res.Conflicts = append(res.Conflicts, m.Conflicts...)
			if err := r.remove(p); err != nil {
				return out, err
			}
			res.NewPath = p
		}
		if len(res.Conflicts) > 0 {
			res.Action = ActionConflict
		}
		res.Note = fmt.Sprintf("the merge left %d files with this id", len(paths))
		if err := r.write(paths[0], kept); err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}
