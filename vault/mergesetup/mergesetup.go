// Package mergesetup is the merge driver's set-up in a clone: whether git
// sends the vault's memory files to memvault's merge driver (the vault's
// .gitattributes, vault.GitattributesContent) and whether this clone's git
// config registers the driver, and, with Fix, the repair: the
// .gitattributes written and committed, the driver registered. Doctor
// runs it as its "merge" check. It reaches git through the Repo interface
// it declares.
package mergesetup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/diskwrite"
)

// Repo is the merge driver's set-up in a clone, as Check inspects and
// repairs it; cmd/memvault/internal/gitrepo implements it with gitstore.
type Repo interface {
	// MergeDriver reports whether git's attributes send the vault's
	// memory files to the memvault merge driver, and whether this clone's
	// git config registers that driver with a command that is there.
	MergeDriver(ctx context.Context) (attribute, registered bool, err error)
	// RegisterMergeDriver registers the driver in the clone's git config.
	RegisterMergeDriver(ctx context.Context) error
}

// Outcome is what Check found, in doctor's words.
type Outcome int

// Outcomes of Check.
const (
	OK Outcome = iota
	Note
	Problem
	Fixed
)

// Result is what Check found and did, for a person.
type Result struct {
	Outcome Outcome
	Detail  string
}

// Setup is a clone's merge driver set-up, as Check inspects it.
type Setup struct {
	// Repo is the clone's git.
	Repo Repo
	// Committer takes the write lock and commits the .gitattributes
	// (Fix only).
	Committer vault.Committer
	// Dir is the vault's folder.
	Dir string
	// Client names the fixer in the commit; empty means "cli".
	Client string
	// Fix writes and commits the .gitattributes and registers the driver
	// where they are missing.
	Fix bool
}

// writeGitattributes writes the vault's .gitattributes unless it exists,
// and reports whether it did.
func writeGitattributes(dir string) (bool, error) {
	f, err := diskwrite.Open(dir, true)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := f.ReadFile(vault.GitattributesName); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err := f.WriteFile(vault.GitattributesName, []byte(vault.GitattributesContent)); err != nil {
		return false, err
	}
	return true, nil
}

// Check checks that merges of memory files go through the merge
// driver and, with Fix, sets it up: the vault's .gitattributes and this
// clone's registration. Only a fresh clone lacks the registration: git
// config is not cloned.
func Check(ctx context.Context, s Setup) Result {
	attr, registered, err := s.Repo.MergeDriver(ctx)
	if err != nil {
		return result(Problem, "cannot tell whether memory files merge through the memvault merge driver: %v", err)
	}
	if attr && registered {
		return result(OK, "memory files merge field by field (merge driver %q)", vault.MergeDriverName)
	}
	if !s.Fix {
		if attr {
			return result(Problem, "the vault's .gitattributes sends memory files to the %q merge driver, but this clone does not register it (git config is not cloned) "+
				"or its binary is gone, so merges fall back to text or fail: run `memvault doctor --fix`", vault.MergeDriverName)
		}
		// A note, not a problem: nothing is broken until two people edit
		// one memory, and the vault may predate the driver.
		return result(Note, "memory files merge as text, which can leave conflict markers in them: `memvault doctor --fix` writes %s/%s and registers the merge driver (docs/team.md)",
			s.Dir, vault.GitattributesName)
	}
	var done []string
	if !attr {
		wrote, err := writeGitattributes(s.Dir)
		if err != nil {
			return result(Problem, "could not write %s: %v", vault.GitattributesName, err)
		}
		if !wrote {
			// It exists but git does not apply it: someone's own file.
			return result(Problem, "%s/%s exists but does not send memory files to the merge driver: add the line %q to it", s.Dir, vault.GitattributesName, "*.md merge="+vault.MergeDriverName)
		}
		hash, err := commitGitattributes(ctx, s)
		if err != nil {
			return result(Problem, "wrote %s/%s, but could not commit it: %v", s.Dir, vault.GitattributesName, err)
		}
		done = append(done, "committed "+vault.GitattributesName+" in "+shortHash(hash))
	}
	if !registered {
		if err := s.Repo.RegisterMergeDriver(ctx); err != nil {
			return result(Problem, "could not register the merge driver: %v", err)
		}
		done = append(done, "registered the merge driver in this clone's git config")
	}
	return result(Fixed, "%s", joinDone(done))
}

// commitGitattributes commits the vault's .gitattributes, which every
// clone needs.
func commitGitattributes(ctx context.Context, s Setup) (string, error) {
	unlock, err := s.Committer.Lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	msg := commitmsg.Message{Subject: "memory: merge memory files field by field (" + vault.GitattributesName + ")",
		Body:     "git sends memory files to memvault's merge driver, so merges never leave conflict markers in them.",
		Trailers: []commitmsg.Trailer{{Key: commitmsg.KeyClient, Value: cmp.Or(vault.SanitizeClient(s.Client), "cli")}}}
	return s.Committer.Commit(ctx, []string{filepath.Join(s.Dir, vault.GitattributesName)}, msg.String())
}

func joinDone(done []string) string {
	if len(done) == 2 {
		return done[0] + " and " + done[1]
	}
	return done[0]
}

func result(o Outcome, format string, args ...any) Result {
	return Result{Outcome: o, Detail: fmt.Sprintf(format, args...)}
}

// shortHash abbreviates a commit id for people.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
