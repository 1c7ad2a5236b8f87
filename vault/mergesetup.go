package vault

import (
	"cmp"
	"context"
	"path/filepath"

	"github.com/memvault/memvault/vault/commitmsg"
)

// The vault's .gitattributes sends its memory files to memvault's merge
// driver (vault/merge, run by `memvault merge-driver`), so that a git
// merge, rebase or cherry-pick merges them field by field and never
// leaves conflict markers in one. It lives in the vault folder, not the
// repository's root, so that it travels with the vault wherever it is and
// leaves the project's own .gitattributes alone. The README is not a
// memory: git merges it as text.
const (
	GitattributesName    = ".gitattributes"
	GitattributesContent = "# Memory files merge field by field through memvault's merge driver\n" +
		"# (docs/team.md). Each clone registers it: memvault doctor --fix.\n" +
		"*.md merge=" + MergeDriverName + "\n/README.md merge=text\n"
	// MergeDriverName is the driver's name in .gitattributes and in git's
	// config (merge.memvault.driver).
	MergeDriverName = "memvault"
)

// MergeDriverRepo is the merge driver's setup in a clone, as doctor
// checks and repairs it.
type MergeDriverRepo interface {
	// MergeDriver reports whether git's attributes send the vault's
	// memory files to the memvault merge driver, and whether this clone's
	// git config registers that driver with a command that is there.
	MergeDriver(ctx context.Context) (attribute, registered bool, err error)
	// RegisterMergeDriver registers the driver in the clone's git config.
	RegisterMergeDriver(ctx context.Context) error
}

// writeGitattributes writes the vault's .gitattributes unless it exists,
// and reports whether it did.
func writeGitattributes(dir string) (bool, error) {
	r, err := openRoot(dir, true)
	if err != nil {
		return false, err
	}
	defer r.Close()
	if _, err := r.readFile(GitattributesName); err == nil {
		return false, nil
	} else if !isNotExistErr(err) {
		return false, err
	}
	if err := r.writeFile(GitattributesName, []byte(GitattributesContent), 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// mergeDriver checks that merges of memory files go through the merge
// driver and, with Fix, sets it up: the vault's .gitattributes and this
// clone's registration. Only a fresh clone lacks the registration: git
// config is not cloned.
func (r *doctorRun) mergeDriver(ctx context.Context) {
	attr, registered, err := r.MergeDriver.MergeDriver(ctx)
	if err != nil {
		r.add("merge", CheckProblem, "cannot tell whether memory files merge through the memvault merge driver: %v", err)
		return
	}
	if attr && registered {
		r.add("merge", CheckOK, "memory files merge field by field (merge driver %q)", MergeDriverName)
		return
	}
	if !r.Fix {
		if attr {
			r.add("merge", CheckProblem, "the vault's .gitattributes sends memory files to the %q merge driver, but this clone does not register it (git config is not cloned) "+
				"or its binary is gone, so merges fall back to text or fail: run `memvault doctor --fix`", MergeDriverName)
			return
		}
		// A note, not a problem: nothing is broken until two people edit
		// one memory, and the vault may predate the driver.
		r.add("merge", CheckNote, "memory files merge as text, which can leave conflict markers in them: `memvault doctor --fix` writes %s/%s and registers the merge driver (docs/team.md)",
			r.v.Dir(), GitattributesName)
		return
	}
	var done []string
	if !attr {
		wrote, err := writeGitattributes(r.v.Dir())
		if err != nil {
			r.add("merge", CheckProblem, "could not write %s: %v", GitattributesName, err)
			return
		}
		if !wrote {
			// It exists but git does not apply it: someone's own file.
			r.add("merge", CheckProblem, "%s/%s exists but does not send memory files to the merge driver: add the line %q to it", r.v.Dir(), GitattributesName, "*.md merge="+MergeDriverName)
			return
		}
		hash, err := r.commitGitattributes(ctx)
		if err != nil {
			r.add("merge", CheckProblem, "wrote %s/%s, but could not commit it: %v", r.v.Dir(), GitattributesName, err)
			return
		}
		done = append(done, "committed "+GitattributesName+" in "+shortHash(hash))
	}
	if !registered {
		if err := r.MergeDriver.RegisterMergeDriver(ctx); err != nil {
			r.add("merge", CheckProblem, "could not register the merge driver: %v", err)
			return
		}
		done = append(done, "registered the merge driver in this clone's git config")
	}
	r.add("merge", CheckFixed, "%s", joinDone(done))
}

// commitGitattributes commits the vault's .gitattributes, which every
// clone needs.
func (r *doctorRun) commitGitattributes(ctx context.Context) (string, error) {
	unlock, err := r.Committer.Lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	msg := commitmsg.Message{Subject: "memory: merge memory files field by field (" + GitattributesName + ")",
		Body:     "git sends memory files to memvault's merge driver, so merges never leave conflict markers in them.",
		Trailers: []commitmsg.Trailer{{Key: commitmsg.KeyClient, Value: cmp.Or(SanitizeClient(r.Client), "cli")}}}
	return r.Committer.Commit(ctx, []string{filepath.Join(r.v.Dir(), GitattributesName)}, msg.String())
}

func joinDone(done []string) string {
	if len(done) == 2 {
		return done[0] + " and " + done[1]
	}
	return done[0]
}
