// Package doctor checks what can stop or spoil a vault's writes (the
// repository's state, the write lock, an interrupted write, hand edits,
// broken files, linked files, the cache folder, the merge driver's
// set-up) and repairs what is safe to repair (`memvault doctor [--fix]`,
// and `memvault sync` before it merges). It reaches git through the Repo
// interface it declares (cmd/memvault/internal/gitrepo implements it), the
// merge driver's set-up through vault/mergesetup.
package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memvault/memvault/parser"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/mergesetup"
)

// Outcomes of a doctor check.
const (
	OK      = "ok"
	Note    = "note"
	Problem = "problem"
	Fixed   = "fixed"
)

// HandEditReason is the commit body of the commit of hand edits Doctor
// makes with Fix.
const HandEditReason = "commit hand edits found by doctor"

// DefaultLockWait is how long Run waits for the write lock before it
// reports it held.
const DefaultLockWait = 300 * time.Millisecond

// Check is one line of a doctor report.
type Check struct {
	// Name is what was checked: vault, git, lock, journal, files, parse.
	Name string `json:"check"`
	// Status is OK, Note, Problem or Fixed.
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// Report is what Run found and did, in the order it checked.
type Report struct {
	Checks []Check
}

// Problems counts the checks that found a problem left unfixed.
func (r Report) Problems() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == Problem {
			n++
		}
	}
	return n
}

// RepoState is the state of the repository holding a vault, as far as it
// can stop or spoil a write.
type RepoState struct {
	// Root is the work tree's top folder.
	Root string
	// Branch is HEAD's branch ("" when detached); Head its commit ("" on
	// an unborn branch).
	Branch, Head     string
	Detached, Unborn bool
	// Operation is a merge, rebase, cherry-pick... in progress, or "".
	Operation string
	// UnmergedMemories are the vault-relative paths of the memory files
	// the index holds unmerged (an operation stopped on a conflict);
	// UnmergedOther the repository-relative paths of the other files.
	UnmergedMemories, UnmergedOther []string
	// IndexLock and RefLock are the paths of the index's and the branch's
	// lock files when they exist: a git command runs, or one crashed.
	IndexLock, RefLock string
	// StaleLocks maps those of IndexLock and RefLock that a memvault
	// process that is gone left (its own record says so) to a description
	// of that process. Only these may be removed without asking a person.
	StaleLocks map[string]string
}

// Repo is the version control around a vault, as Run inspects it;
// cmd/memvault/internal/gitrepo implements it with gitstore.
type Repo interface {
	// State describes the repository.
	State(ctx context.Context) (RepoState, error)
	// Changed lists the vault-relative paths of the files under the
	// vault that differ from HEAD: changed, added or deleted.
	Changed(ctx context.Context) ([]string, error)
	// ReadHead returns a vault-relative file as HEAD records it; nil,
	// nil when HEAD has no such file.
	ReadHead(ctx context.Context, rel string) ([]byte, error)
	// ClearStaleLocks removes the lock files a memvault process that is
	// gone left, and no others; it returns the paths it removed.
	ClearStaleLocks(ctx context.Context) ([]string, error)
}

// Options says what Run reaches and whether it repairs.
type Options struct {
	// Repo is the repository holding the vault; nil means there is none.
	Repo Repo
	// Committer takes the write lock (probed, and held around the commit
	// of hand edits) and commits the hand edits. Required with a Repo.
	Committer vault.Committer
	// Fix repairs what can be repaired safely. The vault must then have
	// been opened with a committer, which Recover commits through.
	Fix bool
	// LockWait is how long to wait for the write lock; zero means
	// DefaultLockWait.
	LockWait time.Duration
	// Client names the fixer in the hand edits' commit; empty means "cli".
	Client string
	// MergeDriver is the merge driver's setup in the clone; nil means it
	// is not checked.
	MergeDriver mergesetup.Repo
}

// Run checks what can stop or spoil v's writes: the repository's state,
// the write lock, a write journal left by a process that stopped before
// committing, memory files that differ from HEAD (hand edits or
// leftovers), and files that do not parse. With o.Fix it removes git lock
// files that a memvault process that is gone left, finishes an
// interrupted write and commits the hand-edited memory files that parse;
// it never touches a lock of git or of a running process, an operation in
// progress or a broken file: those need a person. The error is for
// failures to check; what the checks find is in the report.
func Run(ctx context.Context, v *vault.Vault, o Options) (Report, error) {
	r := &run{Options: o, v: v}
	r.add("vault", Note, "%s", v.Dir())
	r.cacheDir()
	if o.Repo == nil {
		r.add("git", Problem, "not in a git repository: every write is a commit, so writes fail; run `git init`")
		r.journal(ctx)
		r.diagnostics()
		r.links(ctx)
		return r.report, nil
	}
	if err := r.repoState(ctx); err != nil {
		return r.report, err
	}
	r.lock(ctx)
	if o.MergeDriver != nil {
		// Before the journal and the hand edits, so that their commits,
		// which say more, come last.
		r.mergeDriver(ctx)
	}
	r.journal(ctx)
	if err := r.dirty(ctx); err != nil {
		return r.report, err
	}
	r.diagnostics()
	r.links(ctx)
	return r.report, nil
}

// run is one run of Run.
type run struct {
	Options
	v      *vault.Vault
	report Report
}

func (r *run) add(name, status, format string, args ...any) {
	r.report.Checks = append(r.report.Checks, Check{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
}

func (r *run) repoState(ctx context.Context) error {
	st, err := r.Repo.State(ctx)
	if err != nil {
		return err
	}
	switch {
	case st.Unborn:
		r.add("git", Note, "branch %s has no commits yet (%s)", st.Branch, st.Root)
	case st.Detached:
		r.add("git", Note, "HEAD is detached at %s: writes are refused until you check out a branch (with --allow-detached their commits go on no branch)", shortHash(st.Head))
	default:
		r.add("git", OK, "branch %s at %s (%s)", st.Branch, shortHash(st.Head), st.Root)
	}
	if st.Operation != "" {
		r.add("git", Problem, "a %s is in progress: memvault cannot commit until it ends (git %s --continue or --abort)", st.Operation, st.Operation)
	}
	r.unmerged(st)
	cleared := map[string]bool{}
	if r.Fix {
		// Also sweeps the owner records of gone processes that hold no
		// lock (killed just before taking one or just after releasing it).
		paths, err := r.Repo.ClearStaleLocks(ctx)
		if err != nil {
			r.add("git", Problem, "could not remove the locks a stopped memvault process left: %v", err)
		}
		for _, p := range paths {
			cleared[p] = true
		}
	}
	for _, l := range []struct{ path, what string }{
		{st.IndexLock, "a git command is running, or one crashed; remove the file if no git process runs"},
		{st.RefLock, "a git command is moving the branch, or one crashed; commits fail until it is gone, so remove the file if no git process runs"},
	} {
		owner, stale := st.StaleLocks[l.path]
		switch {
		case l.path == "":
		case cleared[l.path]:
			r.add("git", Fixed, "removed %s, left by %s, which is no longer running", l.path, owner)
		case stale:
			r.add("git", Problem, "%s was left by %s, which is no longer running; doctor --fix removes it", l.path, owner)
		default:
			r.add("git", Problem, "%s exists: %s", l.path, l.what)
		}
	}
	return nil
}

// lock probes the cross-process write lock.
func (r *run) lock(ctx context.Context) {
	wait := r.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	unlock, err := r.Committer.Lock(pctx)
	if err != nil {
		r.add("lock", Problem, "another memvault process has held the write lock for %s (an MCP server in a long write?): %v", wait, err)
		return
	}
	unlock()
	r.add("lock", OK, "write lock free")
}

// journal reports, and with Fix finishes, a write a process left half
// done.
func (r *run) journal(ctx context.Context) {
	fix := r.Fix && r.Repo != nil
	if _, err := os.Lstat(filepath.Join(r.v.Dir(), vault.JournalName)); err != nil {
		if fix {
			// Without a journal Recover only removes the temp files of a
			// write killed before its journal was in place.
			if _, err := r.v.Recover(ctx); err != nil {
				r.add("journal", Problem, "could not clean up after an interrupted write: %v", err)
				return
			}
		}
		r.add("journal", OK, "no interrupted write")
		return
	}
	if !fix {
		r.add("journal", Problem, "%s: a write stopped before its commit; --fix commits its files as they are", vault.JournalName)
		return
	}
	done, err := r.v.Recover(ctx)
	switch {
	case err != nil:
		r.add("journal", Problem, "could not finish the interrupted write: %v", err)
	case len(done) == 0:
		r.add("journal", Fixed, "removed an empty or uncommitted journal")
	default:
		r.add("journal", Fixed, "committed the interrupted write: %s", strings.Join(done, ", "))
	}
}

// dirty reports memory files that differ from HEAD and with Fix commits
// those that parse.
func (r *run) dirty(ctx context.Context) error {
	paths, err := r.Repo.Changed(ctx)
	if err != nil {
		return fmt.Errorf("compare the vault with HEAD: %w", err)
	}
	good, broken, others := sortHandEdits(r.v, paths)
	if len(others) > 0 {
		r.add("files", Note, "other files in the vault folder differ from HEAD: %s", someOf(others))
	}
	if len(broken) > 0 {
		r.add("files", Problem, "hand edits that do not parse, not committed: %s (memvault lint)", someOf(broken))
	}
	if len(good) == 0 {
		if len(broken) == 0 {
			r.add("files", OK, "memory files match HEAD")
		}
		return nil
	}
	if !r.Fix {
		verb := "differ"
		if len(good) == 1 {
			verb = "differs"
		}
		r.add("files", Problem, "%s %s from HEAD (hand edits or leftovers); --fix commits them: %s",
			plural(len(good), "memory file"), verb, someOf(good))
		return nil
	}
	hash, err := r.commitHandEdits(ctx, good)
	if err != nil {
		r.add("files", Problem, "could not commit the hand edits: %v", err)
		return nil
	}
	r.add("files", Fixed, "committed %s in %s: %s", plural(len(good), "hand-edited file"), shortHash(hash), someOf(good))
	return nil
}

// maxListed is how many paths a doctor line names; a branch switch or an
// import can leave thousands, which `git status` lists better.
const maxListed = 10

// someOf joins the first maxListed paths and says how many more there are.
func someOf(paths []string) string {
	if len(paths) <= maxListed {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more (git status lists them)", strings.Join(paths[:maxListed], ", "), len(paths)-maxListed)
}

// sortHandEdits sorts the vault-relative paths that differ from HEAD into
// memory files that may be committed as they are, memory files with
// errors (a file that does not parse, or holds a secret, is never
// committed), and other files. Transient memories are left out: they are
// never committed.
func sortHandEdits(v *vault.Vault, paths []string) (good, broken, others []string) {
	withErrors := map[string]bool{}
	for _, d := range v.Diagnostics() {
		if d.Severity == parser.SeverityError {
			withErrors[d.Path] = true
		}
	}
	for _, rel := range paths {
		if l, ok := layerOfPath(rel); ok && !l.Committed() {
			continue
		}
		switch {
		case !vault.IsMemoryPath(rel):
			others = append(others, rel)
		case withErrors[rel]:
			broken = append(broken, rel)
		default:
			good = append(good, rel)
		}
	}
	return good, broken, others
}

// commitHandEdits commits vault-relative files as they are on disk, with
// Memory-Id trailers so history finds the commit, and refreshes the vault.
func (r *run) commitHandEdits(ctx context.Context, rels []string) (string, error) {
	unlock, err := r.Committer.Lock(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	// Hand edits bypassed the write path's guard: check every file as it
	// will be committed (deletions always pass).
	if err := r.v.RefuseSecretsInFiles(ctx, rels); err != nil {
		return "", err
	}
	if err := r.v.RefuseConflictMarkers(rels); err != nil {
		return "", err
	}
	msg := commitmsg.Message{Body: HandEditReason}
	byPath := map[string]*vault.Memory{}
	for _, m := range r.v.All() {
		byPath[m.Path] = m
	}
	abs := make([]string, len(rels))
	for i, rel := range rels {
		abs[i] = filepath.Join(r.v.Dir(), filepath.FromSlash(rel))
		mem, verb := r.handEditedMemory(ctx, byPath[rel], rel)
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
	client := vault.SanitizeClient(r.Client)
	if client == "" {
		client = "cli"
	}
	msg.Trailers = append(msg.Trailers, commitmsg.Trailer{Key: commitmsg.KeyClient, Value: client})
	hash, err := r.Committer.Commit(ctx, abs, msg.String())
	if err != nil {
		return "", err
	}
	return hash, r.v.Refresh(ctx, rels)
}

// handEditedMemory names the memory of a changed file and what happened
// to it: from the work tree (added or updated), or for a deleted file,
// from HEAD.
func (r *run) handEditedMemory(ctx context.Context, cur *vault.Memory, rel string) (*vault.Memory, string) {
	data, err := r.Repo.ReadHead(ctx, rel)
	switch {
	case cur != nil && err == nil && data == nil:
		return cur, "add"
	case cur != nil:
		return cur, "update"
	case err != nil || data == nil:
		return nil, ""
	}
	mem, _ := vault.ParseMemory(rel, data, time.Time{})
	return mem, "delete"
}

// diagnostics reports files that do not parse (problems) and warnings.
func (r *run) diagnostics() {
	errs, warns := 0, 0
	var first []string
	for _, diag := range r.v.Diagnostics() {
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
		r.add("parse", Problem, "%s in vault files, e.g. %s (memvault lint lists all)", plural(errs, "error"), strings.Join(first, "; "))
	} else {
		r.add("parse", OK, "%s parse", plural(len(r.v.All()), "memory file"))
	}
	if warns > 0 {
		r.add("parse", Note, "%s (memvault lint)", plural(warns, "warning"))
	}
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

// plural is "1 unit" or "n units".
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// shortHash abbreviates a commit id for people.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
