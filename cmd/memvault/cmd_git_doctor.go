package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
)

// handEditReason is the commit body of doctor --fix's commit of hand edits.
const handEditReason = "commit hand edits found by doctor"

// lockProbeTimeout is how long doctor waits for the write lock before it
// reports it held.
const lockProbeTimeout = 300 * time.Millisecond

// Check outcomes.
const (
	checkOK      = "ok"
	checkNote    = "note"
	checkProblem = "problem"
	checkFixed   = "fixed"
)

// check is one line of doctor's report.
type check struct {
	Name   string `json:"check"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

type doctor struct {
	m      *Main
	fix    bool
	checks []check
}

func (d *doctor) add(name, status, format string, args ...any) {
	d.checks = append(d.checks, check{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
}

func (d *doctor) problems() int {
	n := 0
	for _, c := range d.checks {
		if c.Status == checkProblem {
			n++
		}
	}
	return n
}

func (m *Main) doctorCommand() *cobra.Command {
	var fix, asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the vault and its repository; --fix repairs what it safely can",
		Long: `doctor checks what can stop or spoil memvault's writes: the repository's
state (branch, detached HEAD, a merge or rebase in progress, a leftover
.git/index.lock), the write lock, a write journal left by a process that
stopped before committing, memory files that differ from HEAD (hand edits or
leftovers), and files that do not parse.

--fix finishes an interrupted write (commits its files with their original
message) and commits hand-edited memory files that parse, with the reason
"` + handEditReason + `". It never touches the git index lock, an
operation in progress or a broken file: those need a person.
The exit status is 1 while problems remain.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := &doctor{m: m, fix: fix}
			if err := d.run(cmd.Context()); err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(m.Stdout, map[string]any{"checks": d.checks, "problems": d.problems()}); err != nil {
					return err
				}
			} else {
				for _, c := range d.checks {
					fmt.Fprintf(m.Stdout, "%-8s %-9s %s\n", c.Status, c.Name, indentRest(c.Detail, strings.Repeat(" ", 19)))
				}
			}
			if n := d.problems(); n > 0 {
				hint := ""
				if !fix {
					hint = " (memvault doctor --fix repairs what it safely can)"
				}
				return usagef("doctor: %s%s", plural(n, "problem"), hint)
			}
			if !asJSON {
				fmt.Fprintln(m.Stdout, "no problems")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&fix, "fix", false, "finish an interrupted write and commit hand edits")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (d *doctor) run(ctx context.Context) error {
	m := d.m
	dir, err := m.resolveVaultDir()
	if err != nil {
		return err
	}
	d.add("vault", checkNote, "%s", dir)
	var (
		v *vault.Vault
		g *gitRepo
	)
	store, err := openGit(ctx, dir)
	switch {
	case errors.Is(err, gitstore.ErrNotRepository):
		d.add("git", checkProblem, "not in a git repository: every write is a commit, so writes fail; run `git init`")
		if v, err = m.openVault(ctx); err != nil {
			return err
		}
		d.journal(ctx, v, nil)
		d.diagnostics(v)
		return nil
	case err != nil:
		return fmt.Errorf("open git repository: %w", err)
	}
	store.Close()
	if d.fix {
		var wstore *gitstore.Store
		if v, wstore, err = m.openGitVault(ctx, false); err != nil {
			return err
		}
		defer wstore.Close()
		if g, err = newGitRepo(wstore, dir); err != nil {
			return err
		}
	} else {
		if g, err = m.openRepo(ctx); err != nil {
			return err
		}
		defer g.Close()
		if v, err = m.openVault(ctx); err != nil {
			return err
		}
	}
	if err := d.repoState(ctx, g); err != nil {
		return err
	}
	d.lock(ctx, g)
	d.journal(ctx, v, g)
	if err := d.dirty(ctx, v, g); err != nil {
		return err
	}
	d.diagnostics(v)
	return nil
}

func (d *doctor) repoState(ctx context.Context, g *gitRepo) error {
	st, err := g.store.State(ctx)
	if err != nil {
		return err
	}
	switch {
	case st.Unborn:
		d.add("git", checkNote, "branch %s has no commits yet (%s)", st.Branch, g.store.Root())
	case st.Detached:
		d.add("git", checkNote, "HEAD is detached at %s: memory commits go on no branch until you create one", shortHash(st.Head))
	default:
		d.add("git", checkOK, "branch %s at %s (%s)", st.Branch, shortHash(st.Head), g.store.Root())
	}
	if st.Operation != "" {
		d.add("git", checkProblem, "a %s is in progress: memvault cannot commit until it ends (git %s --continue or --abort)", st.Operation, st.Operation)
	}
	if st.IndexLocked {
		d.add("git", checkProblem, "%s exists: a git command is running, or one crashed; remove the file if no git process runs",
			filepath.Join(g.store.GitDir(), "index.lock"))
	}
	if st.RefLock != "" {
		d.add("git", checkProblem, "%s exists: a git command is moving the branch, or one crashed; commits fail until it is gone, so remove the file if no git process runs",
			st.RefLock)
	}
	return nil
}

// lock probes memvault's cross-process write lock.
func (d *doctor) lock(ctx context.Context, g *gitRepo) {
	pctx, cancel := context.WithTimeout(ctx, lockProbeTimeout)
	defer cancel()
	unlock, err := g.store.Lock(pctx)
	if err != nil {
		d.add("lock", checkProblem, "another memvault process has held the write lock for %s (an MCP server in a long write?): %v", lockProbeTimeout, err)
		return
	}
	unlock()
	d.add("lock", checkOK, "write lock free")
}

// journal reports, and with --fix finishes, a write a process left half
// done.
func (d *doctor) journal(ctx context.Context, v *vault.Vault, g *gitRepo) {
	if !exists(filepath.Join(v.Dir(), vault.JournalName)) {
		if d.fix && g != nil {
			// Without a journal Recover only removes the temp files of a
			// write killed before its journal was in place.
			if _, err := v.Recover(ctx); err != nil {
				d.add("journal", checkProblem, "could not clean up after an interrupted write: %v", err)
				return
			}
		}
		d.add("journal", checkOK, "no interrupted write")
		return
	}
	if !d.fix || g == nil {
		d.add("journal", checkProblem, "%s: a write stopped before its commit; --fix commits its files as they are", vault.JournalName)
		return
	}
	done, err := v.Recover(ctx)
	if err != nil {
		d.add("journal", checkProblem, "could not finish the interrupted write: %v", err)
		return
	}
	if len(done) == 0 {
		d.add("journal", checkFixed, "removed an empty or uncommitted journal")
		return
	}
	d.add("journal", checkFixed, "committed the interrupted write: %s", strings.Join(done, ", "))
}

// dirty reports memory files that differ from HEAD and with --fix commits
// those that parse.
func (d *doctor) dirty(ctx context.Context, v *vault.Vault, g *gitRepo) error {
	paths, err := g.store.Dirty(ctx, v.Dir())
	if err != nil {
		return fmt.Errorf("compare the vault with HEAD: %w", err)
	}
	var good, broken, others []string // vault-relative
	for _, p := range paths {
		rel, err := filepath.Rel(v.Dir(), p)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if l, ok := layerOfPath(rel); ok && !l.Committed() {
			continue // L1 scratch is never committed
		}
		if !vault.IsMemoryPath(rel) {
			others = append(others, rel)
			continue
		}
		if fileHasErrors(v, rel) {
			broken = append(broken, rel)
		} else {
			good = append(good, rel)
		}
	}
	if len(others) > 0 {
		d.add("files", checkNote, "other files in the vault folder differ from HEAD: %s", strings.Join(others, ", "))
	}
	if len(broken) > 0 {
		d.add("files", checkProblem, "hand edits that do not parse, not committed: %s (memvault lint)", strings.Join(broken, ", "))
	}
	if len(good) == 0 {
		if len(broken) == 0 {
			d.add("files", checkOK, "memory files match HEAD")
		}
		return nil
	}
	if !d.fix {
		verb := "differ"
		if len(good) == 1 {
			verb = "differs"
		}
		d.add("files", checkProblem, "%s %s from HEAD (hand edits or leftovers); --fix commits them: %s",
			plural(len(good), "memory file"), verb, strings.Join(good, ", "))
		return nil
	}
	hash, err := d.commitHandEdits(ctx, v, g, good)
	if err != nil {
		d.add("files", checkProblem, "could not commit the hand edits: %v", err)
		return nil
	}
	d.add("files", checkFixed, "committed %s in %s: %s", plural(len(good), "hand-edited file"), shortHash(hash), strings.Join(good, ", "))
	return nil
}

// commitHandEdits commits vault-relative files as they are on disk, with
// Memory-Id trailers so history finds the commit.
func (d *doctor) commitHandEdits(ctx context.Context, v *vault.Vault, g *gitRepo, rels []string) (string, error) {
	unlock, err := g.store.Lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	if err := v.RefuseSecretsInFiles(ctx, rels); err != nil {
		return "", err
	}
	msg := commitmsg.Message{Body: handEditReason}
	byPath := map[string]*vault.Memory{}
	for _, m := range v.All() {
		byPath[m.Path] = m
	}
	abs := make([]string, len(rels))
	for i, rel := range rels {
		abs[i] = filepath.Join(v.Dir(), filepath.FromSlash(rel))
		mem, verb := handEditedMemory(ctx, byPath[rel], g, rel)
		if mem == nil {
			continue
		}
		msg.Trailers = append(msg.Trailers, commitmsg.Trailer{Key: commitmsg.KeyID, Value: mem.ID})
		if len(rels) == 1 {
			msg.Subject = commitmsg.Subject(mem.Layer.String(), verb, mem.Title)
		}
	}
	if msg.Subject == "" {
		msg.Subject = fmt.Sprintf("memory: commit %s", plural(len(rels), "hand-edited file"))
	}
	msg.Trailers = append(msg.Trailers, commitmsg.Trailer{Key: commitmsg.KeyClient, Value: "cli"})
	author, err := parseAuthor(d.m.Getenv("MEMVAULT_AUTHOR"))
	if err != nil {
		return "", usageError{err}
	}
	res, err := g.store.Commit(ctx, gitstore.Change{Paths: abs, Message: msg.String(), Author: author})
	if err != nil {
		return "", err
	}
	if err := v.Refresh(ctx, rels); err != nil {
		return res.Hash, err
	}
	return res.Hash, nil
}

// handEditedMemory names the memory of a dirty file: from the work tree,
// or for a deleted file, from HEAD.
func handEditedMemory(ctx context.Context, cur *vault.Memory, g *gitRepo, rel string) (*vault.Memory, string) {
	if cur != nil {
		if _, data, err := g.past(nil).ReadMemory(ctx, "", rel); err == nil && data == nil {
			return cur, "add"
		}
		return cur, "update"
	}
	if mem, _, err := g.past(nil).ReadMemory(ctx, "", rel); err == nil && mem != nil {
		return mem, "delete"
	}
	return nil, ""
}

func fileHasErrors(v *vault.Vault, rel string) bool {
	for _, d := range v.Diagnostics() {
		if d.Path == rel && d.Severity == parser.SeverityError {
			return true
		}
	}
	return false
}

// layerOfPath maps a vault-relative path's first folder to its layer.
func layerOfPath(rel string) (vault.Layer, bool) {
	first, _, ok := strings.Cut(rel, "/")
	if !ok {
		return 0, false
	}
	for _, l := range vault.AllLayers() {
		if l.Dir() == first {
			return l, true
		}
	}
	return 0, false
}

// diagnostics reports files that do not parse (problems) and warnings.
func (d *doctor) diagnostics(v *vault.Vault) {
	errs, warns := 0, 0
	var first []string
	for _, diag := range v.Diagnostics() {
		if diag.Severity != parser.SeverityError {
			warns++
			continue
		}
		errs++
		if len(first) < 3 {
			first = append(first, diag.Error())
		}
	}
	if errs > 0 {
		d.add("parse", checkProblem, "%s in vault files, e.g. %s (memvault lint lists all)", plural(errs, "error"), strings.Join(first, "; "))
	} else {
		d.add("parse", checkOK, "%s parse", plural(len(v.All()), "memory file"))
	}
	if warns > 0 {
		d.add("parse", checkNote, "%s (memvault lint)", plural(warns, "warning"))
	}
}
