package vault

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/store"
)

// JournalName is the write-ahead note of a write in progress. It sits in
// the vault folder (a dot-file: never loaded, never watched, git-ignored)
// and holds every file change a write is about to make and its commit
// message, so a process that dies anywhere between starting the write and
// committing it can be finished by the next one.
const JournalName = ".memvault-journal.json"

// journal is the content of JournalName.
type journal struct {
	Message string   `json:"message"`
	Paths   []string `json:"paths"` // vault-relative, to commit
	Commit  bool     `json:"commit"`
	// Ops are the file changes with their new content. A journal written
	// before Ops existed only lists Paths; Recover then commits the files
	// as they are.
	Ops []journalOp `json:"ops,omitempty"`
}

// journalOp is one file change of a journaled write.
type journalOp struct {
	Path   string `json:"path"` // vault-relative
	Data   []byte `json:"data,omitempty"`
	Remove bool   `json:"remove,omitempty"`
	// Before is the SHA-256 of the file before the write, "" when it did
	// not exist. Recover redoes a change only while the file still holds
	// that content (or already the new one): anything else is an edit made
	// after the crash, and it is kept.
	Before string `json:"before"`
}

func journalOps(ops []fileOp) []journalOp {
	out := make([]journalOp, len(ops))
	for i, op := range ops {
		out[i] = journalOp{Path: op.rel, Data: op.data, Remove: op.data == nil}
		if op.existed {
			out[i].Before = hashHex(op.old)
		}
	}
	return out
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (v *Vault) journalPath() string { return v.dir + string(os.PathSeparator) + JournalName }

// writeJournal writes j as JournalName through r, atomically.
func writeJournal(r *writeRoot, j journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return r.writeFile(JournalName, data, 0o644)
}

func clearJournal(r *writeRoot) error { return r.remove(JournalName) }

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
	r, err := openRoot(v.dir, false)
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
		r.removeTempFiles()
	}
	data, err := r.readFile(JournalName)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", JournalName, err)
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): remove it after checking `git status`", JournalName, err)
	}
	// Every operation is checked before any is applied: a journal that
	// cannot be finished as a whole changes nothing.
	if err := v.checkJournal(r, &j); err != nil {
		return nil, fmt.Errorf("finish the interrupted write: %w", err)
	}
	var removed, touched []string
	for _, op := range j.Ops {
		if err := v.redo(r, op); err != nil {
			return nil, fmt.Errorf("finish the interrupted write: %w", err)
		}
		if op.Remove {
			removed = append(removed, op.Path)
		} else {
			touched = append(touched, op.Path)
		}
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
	// Removed files first, as in writeSet.rels.
	if err := v.Refresh(ctx, mdPaths(slices.Concat(removed, touched, j.Paths))); err != nil {
		return done, err
	}
	return done, clearJournal(r)
}

// checkJournal validates a journal before any of it is applied: every
// path it names must be a memory file inside the vault, and what its
// commit would hold must hold no secret: the message, and each file to
// commit as it will be once the changes are redone (the journal's content,
// or, for a file edited since the crash, the edit, which the commit takes
// as it is). A secret is refused, not committed: the error names the file
// and line, and the journal stays until the file is fixed.
func (v *Vault) checkJournal(r *writeRoot, j *journal) error {
	for _, rel := range slices.Concat(j.Paths, journalPaths(j.Ops)) {
		if _, err := v.safePath(rel); err != nil {
			return fmt.Errorf("%s lists %q: %w; remove it after checking `git status`", JournalName, rel, err)
		}
	}
	// The files after the redo, simulated in order over what is on disk.
	after := map[string][]byte{}
	gone := map[string]bool{}
	read := func(rel string) ([]byte, bool, error) {
		if gone[rel] {
			return nil, false, nil
		}
		if data, ok := after[rel]; ok {
			return data, true, nil
		}
		data, err := r.readFile(rel)
		if isNotExistErr(err) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("read %s: %w", rel, err)
		}
		return data, true, nil
	}
	for _, op := range j.Ops {
		cur, exists, err := read(op.Path)
		if err != nil {
			return err
		}
		switch redoAction(op, cur, exists) {
		case redoWrite:
			after[op.Path], gone[op.Path] = op.Data, false
		case redoRemove:
			delete(after, op.Path)
			gone[op.Path] = true
		}
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

func journalPaths(ops []journalOp) []string {
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.Path
	}
	return out
}

// What redo does with one journaled change.
const (
	redoNothing = iota
	redoWrite
	redoRemove
)

// redoAction decides what redo does with op given the file's content now:
// the change is made only while the file still holds what it held before
// the write.
func redoAction(op journalOp, cur []byte, exists bool) int {
	switch {
	case op.Remove && !exists:
		return redoNothing // already gone
	case !op.Remove && exists && bytes.Equal(cur, op.Data):
		return redoNothing // already written
	case exists && hashHex(cur) != op.Before, !exists && op.Before != "":
		return redoNothing // changed since the crash: keep it, commit it as it is
	case op.Remove:
		return redoRemove
	default:
		return redoWrite
	}
}

// redo applies one journaled change if the file still holds what it held
// before the write. checkJournal has checked its path.
func (v *Vault) redo(r *writeRoot, op journalOp) error {
	cur, err := r.readFile(op.Path)
	exists := err == nil
	if err != nil && !isNotExistErr(err) {
		return fmt.Errorf("read %s: %w", op.Path, err)
	}
	switch redoAction(op, cur, exists) {
	case redoRemove:
		return r.remove(op.Path)
	case redoWrite:
		return r.writeFile(op.Path, op.Data, 0o644)
	}
	return nil
}

// removeTempFiles deletes the temp files writeFile leaves behind when its
// process is killed between creating and renaming them: in the vault
// folder (the journal's) and in the layer folders. They are dot-files, so
// nothing loads them, but git status would list them.
func (r *writeRoot) removeTempFiles() {
	dirs := []string{"."}
	for _, l := range AllLayers() {
		dirs = append(dirs, l.Dir())
	}
	for _, rel := range dirs {
		d, err := r.folder(rel, false)
		if err != nil {
			continue // missing, or a link: not ours to clean
		}
		f, err := d.Open(".")
		if err != nil {
			continue
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, name := range names {
			if !strings.HasPrefix(name, ".") || !strings.Contains(name, store.TempInfix) {
				continue
			}
			if fi, err := d.Lstat(name); err == nil && fi.Mode().IsRegular() {
				_ = d.Remove(name)
			}
		}
	}
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
