package vault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// JournalName is the write-ahead note of a write in progress. It sits in
// the vault folder (a dot-file: never loaded, never watched, git-ignored)
// and lists the files a write is about to change and the commit message,
// so a process that dies between writing files and committing them can be
// finished by the next one.
const JournalName = ".memvault-journal.json"

type journal struct {
	Message string   `json:"message"`
	Paths   []string `json:"paths"` // vault-relative
	Commit  bool     `json:"commit"`
}

func (v *Vault) journalPath() string { return filepath.Join(v.dir, JournalName) }

func (v *Vault) writeJournal(j journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return writeFileAtomic(v.journalPath(), data, 0o644)
}

func (v *Vault) clearJournal() error { return removeFile(v.journalPath()) }

// Recover finishes a write that a previous process left half done: the
// files were written but not committed. It commits them as they are now,
// with the original message and a Memory-Recovered trailer, and reports the
// vault-relative paths it committed. Without a pending journal it does
// nothing.
func (v *Vault) Recover(ctx context.Context) ([]string, error) {
	if v.readOnly {
		return nil, nil
	}
	var done []string
	err := v.withWriteLock(ctx, func() error {
		data, err := os.ReadFile(v.journalPath())
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", JournalName, err)
		}
		var j journal
		if err := json.Unmarshal(data, &j); err != nil {
			return fmt.Errorf("%s is not valid JSON (%v): remove it after checking `git status`", JournalName, err)
		}
		if j.Commit && v.committer != nil && len(j.Paths) > 0 {
			abs := make([]string, len(j.Paths))
			for i, rel := range j.Paths {
				p, err := v.safePath(rel)
				if err != nil {
					return fmt.Errorf("%s lists %q: %w", JournalName, rel, err)
				}
				abs[i] = p
			}
			msg := strings.TrimRight(j.Message, "\n") + "\nMemory-Recovered: the previous process stopped before committing\n"
			if _, err := v.committer.Commit(ctx, abs, msg); err != nil {
				return fmt.Errorf("commit the interrupted write: %w", err)
			}
			done = j.Paths
		}
		if err := v.Refresh(ctx, j.Paths); err != nil {
			return err
		}
		return v.clearJournal()
	})
	return done, err
}
