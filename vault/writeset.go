package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/diskwrite"
	"github.com/memvault/memvault/vault/memory"
	"github.com/memvault/memvault/vault/merge"
	"github.com/memvault/memvault/vault/store"
)

// fileOp is one file change of a write.
type fileOp struct {
	rel  string
	data []byte // nil: remove
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
	// From here on every file operation goes through checked folder
	// handles (diskwrite.Root), so a link planted since the check is
	// refused too, and nothing is ever written outside the vault.
	r, err := v.disk.OpenFolder(v.dir, true)
	if err != nil {
		return "", err
	}
	defer r.Close()
	changes := make([]diskwrite.Change, len(w.ops))
	for i, op := range w.ops {
		changes[i] = diskwrite.Change{Rel: op.rel, Data: op.data}
	}
	tx, err := diskwrite.Begin(r, changes)
	if err != nil {
		return "", err
	}
	var paths []string // absolute paths to commit
	if commit && v.ports.committer != nil {
		paths = w.commitPaths()
	}
	if len(paths) > 0 {
		if err := tx.Journal(message, w.relsOf(paths)); err != nil {
			return "", err
		}
	}
	if err := tx.Write(); err != nil {
		return "", err
	}
	var hash string
	if len(paths) > 0 {
		if hash, err = v.ports.committer.Commit(ctx, paths, message); err != nil {
			tx.Rollback()
			_ = v.Refresh(context.WithoutCancel(ctx), w.rels())
			return "", fmt.Errorf("commit: %w", err)
		}
		if err := tx.Done(); err != nil {
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
	if v.ports.committer != nil && fileExists(v.dir+string(os.PathSeparator)+JournalName) {
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

// commitPaths lists the absolute paths of the files to commit: all but
// L1 scratch, which is git-ignored.
func (w *writeSet) commitPaths() []string {
	var paths []string
	for _, op := range w.ops {
		if l, ok := memory.LayerFromDir(op.rel); ok && !l.Committed() {
			continue
		}
		paths = append(paths, filepath.Join(w.v.dir, filepath.FromSlash(op.rel)))
	}
	return paths
}

// relsOf turns the absolute paths of the vault's files into
// vault-relative slash paths, as the journal records them.
func (w *writeSet) relsOf(paths []string) []string {
	rels := make([]string, 0, len(paths))
	for _, p := range paths {
		rel, _ := filepath.Rel(w.v.dir, p)
		rels = append(rels, filepath.ToSlash(rel))
	}
	return rels
}

// commitsAny reports whether a file of the set is in a committed layer
// (L1 scratch is git-ignored and never committed).
func (w *writeSet) commitsAny() bool {
	for _, op := range w.ops {
		if l, ok := memory.LayerFromDir(op.rel); !ok || l.Committed() {
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

// Recover finishes a write that a previous process left half done. It
// redoes the journaled file changes that did not happen yet (skipping files
// changed since), commits the files with the original message and a
// Memory-Recovered trailer, and reports the vault-relative paths it
// committed. Without a pending journal it does nothing.
func (v *Vault) Recover(ctx context.Context) ([]string, error) {
	if v.readOnly {
		return nil, nil
	}
	var done []string
	err := v.withWriteLock(ctx, func() error {
		if v.ports.committer != nil {
			store.RemoveTemps(v.dir) // as every write does
		}
		var err error
		done, err = v.recoverLocked(ctx)
		return err
	})
	return done, err
}

// recoverLocked is Recover for a caller that holds the write lock.
func (v *Vault) recoverLocked(ctx context.Context) ([]string, error) {
	r, err := v.disk.OpenFolder(v.dir, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // no vault folder yet: nothing to finish
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if v.ports.committer != nil && !(v.headersOnly && v.load.noTempFiles.Load()) {
		// Only with the cross-process lock held is no other writer in
		// the middle of a write whose temp file this would delete. A
		// headers-only vault (one add) skips the listing when its load
		// saw none: a temp file left since is removed by the next write.
		dirs := make([]string, 0, len(AllLayers()))
		for _, l := range AllLayers() {
			dirs = append(dirs, l.Dir())
		}
		r.RemoveTempFiles(dirs)
	}
	j, err := r.Redo(func(j *diskwrite.Journal) error { return v.checkJournal(r, j) })
	if j == nil || err != nil {
		return nil, err
	}
	var done []string
	if j.Commit && v.ports.committer != nil && len(j.Paths) > 0 {
		abs := make([]string, len(j.Paths))
		for i, rel := range j.Paths {
			p, err := v.safePath(rel)
			if err != nil {
				return nil, fmt.Errorf("%s lists %q: %w", JournalName, rel, err)
			}
			abs[i] = p
		}
		msg := commitmsg.Parse(j.Message)
		msg.Trailers = append(msg.Trailers, commitmsg.Trailer{Key: commitmsg.KeyRecovered, Value: "the previous process stopped before committing"})
		if _, err := v.ports.committer.Commit(ctx, abs, msg.String()); err != nil {
			return nil, fmt.Errorf("commit the interrupted write: %w", err)
		}
		done = j.Paths
	}
	var removed, touched []string
	for _, op := range j.Ops {
		if op.Remove {
			removed = append(removed, op.Path)
		} else {
			touched = append(touched, op.Path)
		}
	}
	// Removed files first, as in writeSet.rels.
	if err := v.Refresh(ctx, mdPaths(slices.Concat(removed, touched, j.Paths))); err != nil {
		return done, err
	}
	return done, r.ClearJournal()
}

// checkJournal validates a journal before any of it is applied: every
// path it names must be a memory file inside the vault, and what its
// commit would hold must hold no secret: the message, and each file to
// commit as it will be once the changes are redone (the journal's content,
// or, for a file edited since the crash, the edit, which the commit takes
// as it is). A secret is refused, not committed: the error names the file
// and line, and the journal stays until the file is fixed.
func (v *Vault) checkJournal(r *diskwrite.Root, j *diskwrite.Journal) error {
	for _, rel := range slices.Concat(j.Paths, j.OpPaths()) {
		if _, err := v.safePath(rel); err != nil {
			return fmt.Errorf("%s lists %q: %w; remove it after checking `git status`", JournalName, rel, err)
		}
	}
	read, err := r.After(j)
	if err != nil {
		return err
	}
	var sc secretScan
	sc.text("its commit message", j.Message)
	if j.Commit {
		for _, rel := range j.Paths {
			data, exists, err := read(rel)
			if err != nil {
				return err
			}
			if !exists {
				data = nil
			}
			sc.file(rel, data)
		}
	}
	if err := sc.err(); err != nil {
		return fmt.Errorf("the interrupted write would commit a secret, so it is not finished (remove the secret from the file, then any write or memvault doctor --fix finishes it): %w", err)
	}
	return nil
}

// mdPaths keeps the memory files of rels, without duplicates.
func mdPaths(rels []string) []string {
	seen := make(map[string]bool, len(rels))
	out := rels[:0:0]
	for _, r := range rels {
		if strings.HasSuffix(r, ".md") && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
