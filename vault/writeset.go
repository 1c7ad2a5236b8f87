package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/store"
)

// GitignoreName and its content keep L1 scratch out of git.
const (
	GitignoreName    = ".gitignore"
	GitignoreContent = "# L1 transient memories are session scratch: never committed.\ntransient/\n# A write in progress (see memvault doctor).\n" + JournalName + "\n"
)

// fileOp is one file change of a write, with what was there before so a
// failed commit can be rolled back.
type fileOp struct {
	rel     string
	data    []byte // nil: remove
	old     []byte
	existed bool
	// scanned is set when the writer ran the secret scan over data
	// itself (a batch, item by item), so apply does not run it again.
	scanned bool
}

// writeSet gathers the file changes of one write so they land together:
// written atomically one by one, committed as one commit, rolled back if
// the commit fails, then reflected in the index.
type writeSet struct {
	v   *Vault
	ops []fileOp
}

func (w *writeSet) put(rel string, data []byte) { w.ops = append(w.ops, fileOp{rel: rel, data: data}) }
func (w *writeSet) remove(rel string)           { w.ops = append(w.ops, fileOp{rel: rel}) }

// markSuperseded adds the change that marks memory id superseded. It
// reports false when the memory already is.
func (w *writeSet) markSuperseded(ctx context.Context, id string, now time.Time) (bool, error) {
	cur, doc, err := w.v.readCurrent(ctx, id)
	if err != nil {
		return false, fmt.Errorf("supersedes %s: %w", id, err)
	}
	if cur.Status == StatusSuperseded {
		return false, nil
	}
	st := StatusSuperseded
	if _, err := applyPatch(doc, cur, Patch{Status: &st}, now); err != nil {
		return false, fmt.Errorf("supersedes %s: %w", id, err)
	}
	w.put(cur.Path, doc.Format())
	return true, nil
}

// apply performs the file changes, commits them when commit is true and
// the vault has a committer, and updates the index. On a failed commit the
// files are restored and nothing changes.
func (w *writeSet) apply(ctx context.Context, message string, commit bool) (string, error) {
	v := w.v
	if err := w.prepare(ctx, message, commit); err != nil {
		return "", err
	}
	if v.hooks.afterCheck != nil {
		v.hooks.afterCheck()
	}
	// From here on every file operation goes through checked folder
	// handles (writeRoot), so a link planted since the check is refused
	// too, and nothing is ever written outside the vault.
	r, err := openRoot(v.dir, true)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if err := w.readOld(r); err != nil {
		return "", err
	}
	var paths []string // absolute paths to commit
	if commit && v.ports.committer != nil {
		paths = w.commitPaths()
	}
	if len(paths) > 0 {
		if err := w.writeJournal(r, message, paths); err != nil {
			return "", err
		}
	}
	if done, err := w.writeFiles(r); err != nil {
		w.rollback(r, done)
		return "", err
	}
	var hash string
	if len(paths) > 0 {
		if hash, err = v.ports.committer.Commit(ctx, paths, message); err != nil {
			w.rollback(r, len(w.ops))
			_ = v.Refresh(context.WithoutCancel(ctx), w.rels())
			return "", fmt.Errorf("commit: %w", err)
		}
		if err := clearJournal(r); err != nil {
			return hash, err
		}
	}
	if err := v.Refresh(context.WithoutCancel(ctx), w.rels()); err != nil {
		return hash, fmt.Errorf("index after write: %w", err)
	}
	return hash, nil
}

// prepare does everything before the first byte is written: it refuses a
// write during a git operation, clears what a killed process left, adds
// the vault's scaffolding to its first write, refuses secrets, conflict
// markers and symbolic links, and orders the operations.
func (w *writeSet) prepare(ctx context.Context, message string, commit bool) error {
	v := w.v
	if commit && v.ports.committer != nil && w.commitsAny() {
		// Before anything is written, recovery included: during a merge
		// the files themselves may be what git is asking about.
		if err := v.refuseDuringOperation(ctx); err != nil {
			return err
		}
	}
	if v.ports.committer != nil {
		// A process killed while it wrote the index cache leaves a temp
		// file and no journal: every write clears them (one folder's
		// listing, so a headers-only add too), and so does Recover.
		store.RemoveTemps(v.dir)
	}
	if v.ports.committer != nil && fileExists(v.journalPath()) {
		// A write whose process died: finish it first, or this write's
		// journal would replace it. Holding the cross-process lock, no
		// live writer can own it.
		if _, err := v.recoverLocked(ctx); err != nil {
			return fmt.Errorf("finish an interrupted write first: %w", err)
		}
	}
	w.addScaffold()
	// Nothing a write commits may hold a secret: fields were checked one
	// by one, this checks the assembled files and message.
	if err := w.refuseWriteSecrets(message); err != nil {
		return err
	}
	// Nor git conflict markers: the loader would refuse the file it wrote.
	for _, op := range w.ops {
		if line := merge.MarkerLine(op.data); line > 0 {
			return fmt.Errorf("%w: %s:%d: %w: a line starting with seven '<', '>' or '|' reads as half a merge; indent it",
				ErrInvalid, op.rel, line, ErrConflictMarkers)
		}
	}
	// Removals go last: a process that dies between moving a memory's
	// file and removing the old one leaves two copies, never none.
	slices.SortStableFunc(w.ops, func(a, b fileOp) int { return cmp.Compare(boolInt(a.data == nil), boolInt(b.data == nil)) })
	for _, op := range w.ops {
		// Before anything is written: a symbolic link on the way is refused,
		// never followed, with a message that says where it leads.
		if _, err := v.safePath(op.rel); err != nil {
			return err
		}
	}
	return nil
}

// addScaffold makes the first write create the vault's scaffolding in the
// same commit: the .gitignore, and the .gitattributes that sends memory
// files to the merge driver, so every clone has it.
func (w *writeSet) addScaffold() {
	dir := w.v.dir
	if _, err := os.Lstat(filepath.Join(dir, GitignoreName)); !errors.Is(err, os.ErrNotExist) {
		return
	}
	scaffold := []fileOp{{rel: GitignoreName, data: []byte(GitignoreContent)}}
	if _, err := os.Lstat(filepath.Join(dir, GitattributesName)); errors.Is(err, os.ErrNotExist) {
		scaffold = append(scaffold, fileOp{rel: GitattributesName, data: []byte(GitattributesContent)})
	}
	w.ops = append(scaffold, w.ops...)
}

// readOld records what each file held before, for a rollback and for the
// journal.
func (w *writeSet) readOld(r *writeRoot) error {
	for i := range w.ops {
		op := &w.ops[i]
		old, err := r.readFile(op.rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read %s: %w", op.rel, err)
		}
		op.existed, op.old = err == nil, old
	}
	return nil
}

// commitPaths lists the absolute paths of the files to commit: all but
// L1 scratch, which is git-ignored.
func (w *writeSet) commitPaths() []string {
	var paths []string
	for _, op := range w.ops {
		if l, ok := layerFromDir(op.rel); ok && !l.Committed() {
			continue
		}
		paths = append(paths, filepath.Join(w.v.dir, filepath.FromSlash(op.rel)))
	}
	return paths
}

// writeJournal records the write about to be committed, so a process that
// dies before the commit is finished by the next writer or Recover.
func (w *writeSet) writeJournal(r *writeRoot, message string, paths []string) error {
	rels := make([]string, 0, len(paths))
	for _, p := range paths {
		rel, _ := filepath.Rel(w.v.dir, p)
		rels = append(rels, filepath.ToSlash(rel))
	}
	if err := writeJournal(r, journal{Message: message, Paths: rels, Commit: true, Ops: journalOps(w.ops)}); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

// writeFiles writes and removes the files in order; it returns how many
// operations were done, for the rollback of a failed one.
func (w *writeSet) writeFiles(r *writeRoot) (int, error) {
	for i := range w.ops {
		op := &w.ops[i]
		var err error
		if op.data == nil {
			err = r.remove(op.rel)
		} else {
			err = r.writeFile(op.rel, op.data, 0o644)
		}
		if err != nil {
			return i, fmt.Errorf("write %s: %w", op.rel, err)
		}
	}
	return len(w.ops), nil
}

// rollback undoes the first done operations, last first, and clears the
// journal.
func (w *writeSet) rollback(r *writeRoot, done int) {
	defer clearJournal(r)
	for i := done - 1; i >= 0; i-- {
		op := w.ops[i]
		if op.existed {
			_ = r.writeFile(op.rel, op.old, 0o644)
		} else {
			_ = r.remove(op.rel)
		}
	}
}

// commitsAny reports whether a file of the set is in a committed layer
// (L1 scratch is git-ignored and never committed).
func (w *writeSet) commitsAny() bool {
	for _, op := range w.ops {
		if l, ok := layerFromDir(op.rel); !ok || l.Committed() {
			return true
		}
	}
	return false
}

// finish applies the write set and returns the result with the memory id
// as now indexed.
func (w *writeSet) finish(ctx context.Context, message string, commit bool, id string, superseded []string) (WriteResult, error) {
	hash, err := w.apply(ctx, message, commit)
	if err != nil {
		return WriteResult{}, err
	}
	m, err := w.v.Get(id)
	if err != nil {
		return WriteResult{}, fmt.Errorf("reload after write: %w", err)
	}
	return WriteResult{Memory: m, Commit: hash, Superseded: superseded}, nil
}

// rels lists the memory files of the write for Refresh, removals first:
// Refresh skips a file whose id another indexed file still holds, so a
// moved memory's old file must leave the index before the new one enters.
func (w *writeSet) rels() []string {
	out := make([]string, 0, len(w.ops))
	for _, removed := range []bool{true, false} {
		for _, op := range w.ops {
			if (op.data == nil) == removed && strings.HasSuffix(op.rel, ".md") {
				out = append(out, op.rel)
			}
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
