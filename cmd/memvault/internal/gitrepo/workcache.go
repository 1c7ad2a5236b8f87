package gitrepo

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/watcher"
)

// workCache keeps, per referenced path, what the work tree has
// uncommitted there, for a server that answers many recalls: a recall
// whose results name code nobody touched since reads the cache instead
// of stat-ing every tracked file under a referenced folder. An entry is
// good while HEAD is the same and the watcher saw no change under the
// path's folders (watcher.Changes, whose Sync makes sure every change
// made before the recall was counted); any change under any watched
// folder, or lost events, drops them all. A path that cannot be watched
// is read every time, as without the cache.
type workCache struct {
	store   *gitstore.Store
	changes *watcher.Changes

	mu      sync.Mutex
	entries map[string]workEntry
	// commit and found cache which paths exist at one commit (the last
	// asked about): a commit's tree never changes.
	commit string
	found  map[string]bool
}

type workEntry struct {
	gen     uint64
	head    string
	changes []gitstore.PathChange
}

// newWorkCache starts the watcher whose barrier files go to the
// repository's git folder.
func newWorkCache(store *gitstore.Store) (*workCache, error) {
	ch, err := watcher.NewChanges(filepath.Join(store.GitDir(), "memvault", "watch"))
	if err != nil {
		return nil, err
	}
	return &workCache{store: store, changes: ch, entries: map[string]workEntry{}}, nil
}

// answer is what one Checker.Check learnt before asking the tracker, for
// the work cache to use instead of asking again: the generation of one
// barrier (watcher.Changes.Sync) made during the answer, and HEAD read
// before it. It travels in the context of the tracker's calls (answerKey).
type answer struct {
	gen  uint64
	head string
	// unwatched is set when a path of the answer could not be watched
	// and was read as it is now: a later change there would not move the
	// generation, so the answer must not be reused.
	unwatched atomic.Bool
}

type answerKey struct{}

// barrierKey is the context key of the barrier begun for an answer of
// one work cache ahead of it (Checker.Prepare).
type barrierKey struct{ w *workCache }

// sync is the answer's barrier: the one begun for it in ctx, else one of
// its own; nil when the file system cannot say what changed (the caller
// then reads without caches).
func (w *workCache) sync(ctx context.Context, head string) *answer {
	b, ok := ctx.Value(barrierKey{w}).(*watcher.Barrier)
	if !ok {
		b = w.changes.Begin()
	}
	gen, err := b.Wait(ctx)
	if err != nil {
		return nil
	}
	return &answer{gen: gen, head: head}
}

// close stops the watcher.
func (w *workCache) close() error { return w.changes.Close() }

// uncommitted is gitstore.Uncommitted for prefixes (none inside
// another, as staleness passes them), reading each prefix from the cache
// when nothing changed since it was computed. The others are read in one
// pass, as without the cache, and cached when they can be watched.
func (w *workCache) uncommitted(ctx context.Context, prefixes []string) ([]gitstore.PathChange, error) {
	a, ok := ctx.Value(answerKey{}).(*answer)
	if !ok {
		// Not within Checker.Check: a barrier and HEAD of its own.
		gen, err := w.changes.Sync(ctx)
		if err != nil {
			return w.store.Uncommitted(ctx, prefixes)
		}
		head, err := w.store.Resolve(ctx, "")
		if err != nil && !errors.Is(err, gitstore.ErrNotFound) {
			return nil, err
		}
		a = &answer{gen: gen, head: head}
	}
	gen, head := a.gen, a.head
	var out []gitstore.PathChange
	var miss []string
	w.mu.Lock()
	for _, p := range prefixes {
		if e, ok := w.entries[p]; ok && e.gen == gen && e.head == head {
			out = append(out, e.changes...)
		} else {
			miss = append(miss, p)
		}
	}
	w.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	// Watched before they are read: a change while reading moves the
	// generation past gen, and the entries stored at gen are not used.
	watched := make(map[string]bool, len(miss))
	for _, p := range miss {
		watched[p] = w.watch(p) == nil
	}
	chs, err := w.store.Uncommitted(ctx, miss)
	if err != nil {
		return nil, err
	}
	byPrefix := make(map[string][]gitstore.PathChange, len(miss))
	for _, ch := range chs {
		for d := ch.Path; ; d = path.Dir(d) {
			if _, ok := watched[d]; ok {
				byPrefix[d] = append(byPrefix[d], ch)
				break
			}
			if d == "." || d == "/" || d == "" {
				break
			}
		}
	}
	w.mu.Lock()
	for _, p := range miss {
		if watched[p] {
			w.entries[p] = workEntry{gen: gen, head: head, changes: byPrefix[p]}
		} else {
			a.unwatched.Store(true)
		}
	}
	w.mu.Unlock()
	return append(out, chs...), nil
}

// watch makes sure a change at repository-relative path p moves the
// generation: a folder is watched with everything below it, and the
// folders above it up to the root without (their .gitignore files decide
// what counts as untracked there); a file, or a path that does not exist
// (yet), by the nearest folder that holds it. The whole repository ("")
// is not watched.
func (w *workCache) watch(p string) error {
	if p == "" {
		return errors.New("the whole repository is not watched")
	}
	root := w.store.Root()
	abs := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/")))
	fi, err := os.Stat(abs)
	switch {
	case err == nil && fi.IsDir():
		if err := w.changes.Watch(abs, true); err != nil {
			return err
		}
	case err == nil || errors.Is(err, fs.ErrNotExist):
	default:
		return err
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if err := w.changes.Watch(d, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if d == root || filepath.Dir(d) == d {
			return nil
		}
	}
}

// exists is gitstore.Exists at a full commit id, reading only the paths
// not asked about at that commit before.
func (w *workCache) exists(ctx context.Context, rev string, paths []string) (map[string]bool, error) {
	out := make(map[string]bool, len(paths))
	var missing []string
	w.mu.Lock()
	if w.commit != rev {
		w.commit, w.found = rev, map[string]bool{}
	}
	for _, p := range paths {
		if ok, known := w.found[p]; known {
			out[p] = ok
		} else {
			missing = append(missing, p)
		}
	}
	w.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	got, err := w.store.Exists(ctx, rev, missing)
	if err != nil {
		return nil, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range missing {
		out[p] = got[p]
		if w.commit == rev && len(rev) == 40 {
			w.found[p] = got[p]
		}
	}
	return out, nil
}
