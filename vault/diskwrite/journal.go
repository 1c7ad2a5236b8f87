package diskwrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// JournalName is the write-ahead note of a write in progress. It sits in
// the vault folder (a dot-file: never loaded, never watched, git-ignored)
// and holds every file change a write is about to make and its commit
// message, so a process that dies anywhere between starting the write and
// committing it can be finished by the next one.
const JournalName = ".memvault-journal.json"

// Journal is the content of JournalName.
type Journal struct {
	Message string   `json:"message"`
	Paths   []string `json:"paths"` // vault-relative, to commit
	Commit  bool     `json:"commit"`
	// Ops are the file changes with their new content. A journal written
	// before Ops existed only lists Paths; the redo then leaves the files
	// as they are.
	Ops []Op `json:"ops,omitempty"`
}

// Op is one file change of a journaled write.
type Op struct {
	Path   string `json:"path"` // vault-relative
	Data   []byte `json:"data,omitempty"`
	Remove bool   `json:"remove,omitempty"`
	// Before is the SHA-256 of the file before the write (Hash), "" when
	// it did not exist. The redo makes a change only while the file still
	// holds that content (or already the new one): anything else is an
	// edit made after the crash, and it is kept.
	Before string `json:"before"`
}

// Hash is the hex SHA-256 of b, as Op.Before holds it.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// OpPaths lists the paths of j's changes, in order.
func (j *Journal) OpPaths() []string {
	out := make([]string, len(j.Ops))
	for i, op := range j.Ops {
		out[i] = op.Path
	}
	return out
}

// WriteJournal writes j as JournalName, atomically.
func (r *Root) WriteJournal(j Journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return r.WriteFile(JournalName, data)
}

// ClearJournal removes JournalName; a missing journal is no error.
func (r *Root) ClearJournal() error { return r.Remove(JournalName) }

// Redo finishes the file changes of the write a previous process left
// half done: it reads the journal (nil, and nothing done, without one),
// lets check refuse it as a whole before anything changes, then makes
// each change that did not happen yet and leaves a file changed since as
// it is. The journal stays until the caller, having committed the
// files, clears it.
func (r *Root) Redo(check func(*Journal) error) (*Journal, error) {
	data, err := r.ReadFile(JournalName)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", JournalName, err)
	}
	var j Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): remove it after checking `git status`", JournalName, err)
	}
	// Every operation is checked before any is applied: a journal that
	// cannot be finished as a whole changes nothing.
	if err := check(&j); err != nil {
		return nil, fmt.Errorf("finish the interrupted write: %w", err)
	}
	for _, op := range j.Ops {
		if err := r.redo(op); err != nil {
			return nil, fmt.Errorf("finish the interrupted write: %w", err)
		}
	}
	return &j, nil
}

// After reads the files as the redo of j will leave them, simulated in
// order over what is on disk, without changing any: read reports a
// file's content and whether it will exist. A check of the journal reads
// through it what the commit will hold.
func (r *Root) After(j *Journal) (read func(rel string) ([]byte, bool, error), err error) {
	after := map[string][]byte{}
	gone := map[string]bool{}
	read = func(rel string) ([]byte, bool, error) {
		if gone[rel] {
			return nil, false, nil
		}
		if data, ok := after[rel]; ok {
			return data, true, nil
		}
		data, err := r.ReadFile(rel)
		if errors.Is(err, os.ErrNotExist) {
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
			return nil, err
		}
		switch redoAction(op, cur, exists) {
		case redoWrite:
			after[op.Path], gone[op.Path] = op.Data, false
		case redoRemove:
			delete(after, op.Path)
			gone[op.Path] = true
		}
	}
	return read, nil
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
func redoAction(op Op, cur []byte, exists bool) int {
	switch {
	case op.Remove && !exists:
		return redoNothing // already gone
	case !op.Remove && exists && bytes.Equal(cur, op.Data):
		return redoNothing // already written
	case exists && Hash(cur) != op.Before, !exists && op.Before != "":
		return redoNothing // changed since the crash: keep it, commit it as it is
	case op.Remove:
		return redoRemove
	default:
		return redoWrite
	}
}

// redo applies one journaled change if the file still holds what it held
// before the write. The caller's check has checked its path.
func (r *Root) redo(op Op) error {
	cur, err := r.ReadFile(op.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", op.Path, err)
	}
	switch redoAction(op, cur, exists) {
	case redoRemove:
		return r.Remove(op.Path)
	case redoWrite:
		return r.WriteFile(op.Path, op.Data)
	}
	return nil
}
