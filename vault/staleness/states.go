package staleness

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/memvault/memvault/filechange"
)

// States returns the staleness of the tracked memories ids, as of the
// last Update plus the work tree's uncommitted changes now. Memories with
// no refs, or not tracked, are left out.
func (t *Tracker) States(ctx context.Context, ids []string) (map[string]Staleness, error) {
	if err := t.lock(ctx); err != nil {
		return nil, err
	}
	type want struct {
		id   string
		refs []refState
		bad  []string
	}
	var ws []want
	var paths, prefixes []string
	for _, id := range ids {
		e, ok := t.entries[id]
		if !ok || len(e.refs)+len(e.bad) == 0 {
			continue
		}
		w := want{id: id, bad: e.bad}
		for _, r := range e.refs {
			w.refs = append(w.refs, *r)
			paths = append(paths, r.ref.Prefix())
			prefixes = append(prefixes, r.ref.Prefix())
		}
		ws = append(ws, w)
	}
	head := t.head
	t.unlock()
	prefixes = coverPrefixes(prefixes)
	out := make(map[string]Staleness, len(ws))
	if len(ws) == 0 {
		return out, nil
	}
	exists := map[string]bool{}
	if head != "" {
		var err error
		if exists, err = t.git.Exists(ctx, head, paths); err != nil {
			return nil, fmt.Errorf("staleness: %w", err)
		}
	}
	exists[""] = true
	work, err := t.git.Uncommitted(ctx, prefixes)
	if err != nil {
		return nil, fmt.Errorf("staleness: uncommitted: %w", err)
	}
	for _, w := range ws {
		if err := ctx.Err(); err != nil { // a recall's deadline: the caller says unknown
			return nil, fmt.Errorf("staleness: %w", err)
		}
		st := Staleness{State: Fresh}
		var reasons []string
		for i := range w.refs {
			s, reason, err := t.judge(ctx, &w.refs[i], exists, work)
			if err != nil {
				return nil, err
			}
			if s.rank() > st.State.rank() {
				st.State = s
			}
			// Two refs to one missing file ("a.go#F", "a.go#G") say the
			// same thing: once is enough.
			if reason != "" && !slices.Contains(reasons, reason) {
				reasons = append(reasons, reason)
			}
		}
		for _, b := range w.bad {
			reasons = append(reasons, fmt.Sprintf("ref %q is not a valid path, folder, glob or path#Symbol and is ignored", b))
		}
		if st.State == Fresh && len(w.refs) > 0 {
			reasons = append([]string{fmt.Sprintf("none of its %s changed since it was last written or confirmed", plural(len(w.refs), "ref"))}, reasons...)
		}
		st.Reason = strings.Join(reasons, "; ")
		out[w.id] = st
	}
	return out, nil
}

// judge decides one ref: its state and the reason, "" when fresh.
func (t *Tracker) judge(ctx context.Context, r *refState, exists map[string]bool, work []Change) (State, string, error) {
	name := r.ref.Raw
	if r.gone {
		if r.movedTo != "" {
			return Stale, fmt.Sprintf("%s was renamed to %s in %s %q", r.ref.Path, r.movedTo, short(r.goneID), r.goneSubj), nil
		}
		return Stale, fmt.Sprintf("%s was deleted in %s %q", r.ref.Path, short(r.goneID), r.goneSubj), nil
	}
	if !exists[r.ref.Prefix()] {
		if r.ref.Kind == Folder && r.movedTo != "" {
			return Stale, fmt.Sprintf("%s/ was moved to %s/ in %s %q", r.ref.Path, r.movedTo, short(r.goneID), r.goneSubj), nil
		}
		missing := name
		if r.ref.Kind == File {
			missing = r.ref.Path
		}
		if r.absent {
			return Unknown, fmt.Sprintf("%s never existed in this repository's history: check the ref", missing), nil
		}
		return Stale, fmt.Sprintf("%s does not exist at HEAD", missing), nil
	}
	uncommitted, deleted := false, false
	for _, ch := range work {
		if !r.ref.Matches(ch.Path) {
			continue
		}
		if r.ref.Kind == File && ch.Kind == filechange.Deleted {
			deleted = true
			continue
		}
		if r.ref.Symbol != "" {
			old, err := t.git.Blob(ctx, ch.OldBlob)
			if err != nil {
				return "", "", err
			}
			cur, err := t.git.WorkFile(ctx, ch.Path)
			if err != nil {
				return "", "", err
			}
			if !symbolChanged(r.ref.Path, old, cur, r.ref.Symbol) {
				continue
			}
		}
		uncommitted = true
	}
	if deleted {
		return Stale, fmt.Sprintf("%s was deleted in the working tree (uncommitted)", r.ref.Path), nil
	}
	if r.ref.Symbol != "" {
		src, err := t.git.WorkFile(ctx, r.ref.Path)
		if err != nil {
			return "", "", err
		}
		if _, ok := block(r.ref.Path, src, r.ref.Symbol); !ok {
			return Stale, fmt.Sprintf("%s is no longer defined in %s", r.ref.Symbol, r.ref.Path), nil
		}
	}
	// One reason per ref: its commits, then its uncommitted edits.
	switch {
	case r.count > 0 && uncommitted:
		return PossiblyStale, fmt.Sprintf("%s changed in %s since the memory was last written or confirmed, latest %s %q, and has uncommitted changes in the working tree",
			name, plural(r.count, "commit"), short(r.latestID), r.latestSubj), nil
	case r.count > 0:
		return PossiblyStale, fmt.Sprintf("%s changed in %s since the memory was last written or confirmed, latest %s %q",
			name, plural(r.count, "commit"), short(r.latestID), r.latestSubj), nil
	case uncommitted:
		return PossiblyStale, fmt.Sprintf("%s has uncommitted changes in the working tree", name), nil
	}
	return Fresh, "", nil
}

func short(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Weight is the factor recall multiplies a memory's score by: a stale
// memory ranks below a fresh one of similar relevance, and is never
// hidden. An unknown one is not demoted: nothing says it is wrong.
func Weight(s State) float64 {
	switch s {
	case Stale:
		return 0.6
	case PossiblyStale:
		return 0.85
	}
	return 1
}

// coverPrefixes sorts and dedupes prefixes and drops those inside another
// ("a/b.go" when "a" is there), so a work-tree scan reads each place once.
func coverPrefixes(ps []string) []string {
	slices.Sort(ps)
	ps = slices.Compact(ps)
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && (out[n-1] == "" || strings.HasPrefix(p, out[n-1]+"/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// NeverExisted returns, for each of the tracked memories ids, the refs
// (as written) whose path does not exist and never existed on the
// history's first-parent line as of the last Update: lint warns about
// them (a misspelt path, or a memory about another repository).
func (t *Tracker) NeverExisted(ctx context.Context, ids []string) (map[string][]string, error) {
	if err := t.lock(ctx); err != nil {
		return nil, err
	}
	defer t.unlock()
	out := map[string][]string{}
	for _, id := range ids {
		e, ok := t.entries[id]
		if !ok {
			continue
		}
		for _, r := range e.refs {
			if r.absent {
				out[id] = append(out[id], r.ref.Raw)
			}
		}
	}
	return out, nil
}

// Late is the staleness of a memory whose answer was not ready before
// the caller had to answer (a recall's deadline): unknown. The history is
// still being read in the background (Refresh), and a later call says.
func Late() Staleness {
	return Staleness{State: Unknown, Reason: "not known in time: the code's history is still being read; ask again shortly"}
}
