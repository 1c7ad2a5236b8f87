package diskwrite

import (
	"errors"
	"fmt"
	"io/fs"
)

// Change is one file change of a write: Data nil removes the file.
type Change struct {
	Rel  string // vault-relative, slash-separated
	Data []byte
}

// Tx makes one write's file changes as a whole: each file replaced
// atomically, in order, the whole journaled before the first (Journal)
// when the write is to be committed, and undone, last first, when a
// change or the commit fails (Rollback).
type Tx struct {
	r       *Root
	changes []Change
	old     [][]byte // what each file held before
	existed []bool
}

// Begin reads what each file of changes holds now, for the journal and
// a rollback.
func Begin(r *Root, changes []Change) (*Tx, error) {
	t := &Tx{r: r, changes: changes, old: make([][]byte, len(changes)), existed: make([]bool, len(changes))}
	for i, c := range changes {
		old, err := r.ReadFile(c.Rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w", c.Rel, err)
		}
		t.existed[i], t.old[i] = err == nil, old
	}
	return t, nil
}

// Journal records the write about to be committed with message, paths
// the vault-relative files to commit, so a process that dies before the
// commit is finished by the next writer (Redo).
func (t *Tx) Journal(message string, paths []string) error {
	ops := make([]Op, len(t.changes))
	for i, c := range t.changes {
		ops[i] = Op{Path: c.Rel, Data: c.Data, Remove: c.Data == nil}
		if t.existed[i] {
			ops[i].Before = Hash(t.old[i])
		}
	}
	if err := t.r.WriteJournal(Journal{Message: message, Paths: paths, Commit: true, Ops: ops}); err != nil {
		return fmt.Errorf("write journal: %w", err)
	}
	return nil
}

// Write makes the changes in order. When one fails, those made are
// undone and the journal cleared: nothing of the write stays.
func (t *Tx) Write() error {
	for i, c := range t.changes {
		var err error
		if c.Data == nil {
			err = t.r.Remove(c.Rel)
		} else {
			err = t.r.WriteFile(c.Rel, c.Data)
		}
		if err != nil {
			t.rollback(i)
			return fmt.Errorf("write %s: %w", c.Rel, err)
		}
	}
	return nil
}

// Rollback undoes every change, after a failed commit, and clears the
// journal.
func (t *Tx) Rollback() { t.rollback(len(t.changes)) }

// Done clears the journal of a committed write.
func (t *Tx) Done() error { return t.r.ClearJournal() }

// rollback undoes the first done changes, last first, and clears the
// journal.
func (t *Tx) rollback(done int) {
	defer t.r.ClearJournal()
	for i := done - 1; i >= 0; i-- {
		c := t.changes[i]
		if t.existed[i] {
			_ = t.r.WriteFile(c.Rel, t.old[i])
		} else {
			_ = t.r.Remove(c.Rel)
		}
	}
}
