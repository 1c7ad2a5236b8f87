package teamsync

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/commitmsg"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/resolve"
)

// Steps of a sync, as its errors and progress name them.
const (
	StepCheck   = "check"
	StepCommit  = "commit"
	StepFetch   = "fetch"
	StepMerge   = "merge"
	StepRebase  = "rebase"
	StepResolve = "resolve"
	StepLint    = "lint"
	StepPush    = "push"
)

// DefaultNetworkTimeout bounds one git fetch or push: a remote that
// accepts the connection and never answers must not hang a sync, nor stall
// a team server's syncs for ever (issue 27 finding 8). Generous, since it
// bounds the whole command, not a silence: raise it for a first fetch of
// a large repository over a slow link.
const DefaultNetworkTimeout = 2 * time.Minute

// NetworkTimeoutEnv overrides DefaultNetworkTimeout (a Go duration; 0
// or negative: none) where no flag says.
const NetworkTimeoutEnv = "MEMVAULT_NETWORK_TIMEOUT"

// DefaultAttempts bounds the rounds of fetch, merge and push when the push
// is refused because the remote moved meanwhile.
const DefaultAttempts = 3

// ErrInProgress means a merge, rebase or cherry-pick is already under way:
// sync will not start another on top of it.
var ErrInProgress = fault.New(fault.GitState, "an operation is in progress")

// ErrDetached means HEAD is on no branch: there is nothing to push.
var ErrDetached = fault.New(fault.GitState, "HEAD is detached")

// ErrConflicts means the merge or rebase stopped on conflicts sync does
// not resolve (files that are not memories, or memories resolve cannot
// merge): the repository is left as git left it.
var ErrConflicts = fault.New(fault.Conflict, "conflicts need a person")

// ErrBrokenCommitted means a memory file that does not parse (or holds
// conflict markers or a secret) was committed in this clone, not on the
// remote: pushing it would spread it to the team.
var ErrBrokenCommitted = fault.New(fault.Refused, "memory file(s) with errors")

// StepError is a sync that failed at Step.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Lint is what the merged vault's check found.
type Lint struct {
	// Errors counts lint errors; Conflicted lists the memory files that
	// carry a conflict record (merged, a person to decide).
	Errors     int
	Conflicted []string
	// Broken lists the memory files with errors, one entry a file (its
	// first error); sync fills in where each came from.
	Broken []Broken
}

// Syncer brings a clone's memory in step with its remote: it commits
// pending memory files, fetches, merges or rebases with memvault's merge
// driver, resolves what the driver left, lints the result and pushes.
type Syncer struct {
	Git Git
	// VaultPrefix is the vault folder relative to the top of the work
	// tree, slash-separated ("" at the top): unmerged files under it that
	// are memory files are resolve's; any other is a person's.
	VaultPrefix string
	// Driver is the merge.memvault.driver command, passed to every git
	// command that merges (git -c), so that the driver runs in a clone
	// that never registered it.
	Driver string

	// Commit commits the pending memory files (doctor --fix: hand edits
	// that parse, an interrupted write, the merge setup; secrets and
	// conflict markers refused) and fails when problems remain. It
	// returns a line for people, "" when there was nothing to do.
	Commit func(ctx context.Context) (string, error)
	// Resolve resolves the unmerged memory files (resolve.Run).
	Resolve func(ctx context.Context) ([]resolve.Resolved, error)
	// Join joins the memories a merge left in two files (resolve.JoinCopies),
	// against each memory's file where the merge's sides forked (base);
	// nil skips the step.
	Join func(ctx context.Context, base resolve.Base) ([]resolve.Resolved, error)
	// Lint checks the merged vault.
	Lint func(ctx context.Context) (Lint, error)
	// Lock takes the repository's write lock (gitstore.Store.LockContext)
	// and returns the holder's context, with which the lock is taken again
	// at once. Sync holds it around the commit step and around each
	// round's merge or rebase, resolve and join: a server's write then
	// never commits in the middle of them, doctor --fix never finds a
	// write's commit half done, and two syncs never merge at once. Fetch,
	// lint and push touch neither the work tree nor the branch and run
	// without it. nil takes no lock.
	Lock func(ctx context.Context) (held context.Context, unlock func(), err error)

	// Rebase rebases the local commits onto the remote's instead of
	// merging.
	Rebase bool
	// Remote is the remote to sync with; "" means the branch's upstream
	// remote, else origin.
	Remote string
	// NoPush stops after the merge.
	NoPush bool
	// Attempts bounds the rounds of fetch, merge and push; zero means
	// DefaultAttempts.
	Attempts int
	// Progress receives one short line per step; nil means none.
	Progress io.Writer
	// NetworkTimeout bounds each git fetch and push; zero or negative
	// means none (cmd/memvault sets DefaultNetworkTimeout).
	NetworkTimeout time.Duration
	// Leftovers removes what a killed git left that git never clears
	// itself (gitstore.Store.ClearKilled): orphaned lock files (also of
	// refs, full names) and the merge driver's temporary files, and
	// returns the files it removed. With wait it first waits, within ctx,
	// for the git processes of a killed sync still finishing their last
	// file. Sync calls it holding the write lock. nil: none.
	Leftovers func(ctx context.Context, refs []string, wait bool) ([]string, error)
}

// Report is what a sync did.
type Report struct {
	Branch, Remote, RemoteBranch string
	// Committed says what the commit step committed ("" when nothing).
	Committed string
	// Merged is true when the remote had commits to merge or rebase onto;
	// Rebase says which.
	Merged, Rebase bool
	// Resolved lists what resolve did, over all rounds.
	Resolved []resolve.Resolved
	// Lint is the merged vault's check.
	Lint Lint
	// Pushed is true when the push went through; Attempts counts the
	// rounds. PushedNew says the remote lacked commits the push brought.
	Pushed, PushedNew bool
	Attempts          int
	// Recovered names the step (merge, rebase, publish) of a killed sync
	// this sync undid before it began; "" when there was none.
	Recovered string
	// Broken lists the memory files with errors after the merge: left
	// out of what sync commits, and never a reason to stop the rest.
	Broken []Broken
}

// Run syncs. Its error is a *StepError naming the step that failed; the
// repository is then as git left it (a stopped merge stays stopped).
func (s *Syncer) Run(ctx context.Context) (Report, error) {
	var rep Report
	gitDir, err := s.git(ctx, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return rep, &StepError{StepCheck, err}
	}
	gitDir = strings.TrimSpace(gitDir)
	if err := s.recoverKilled(ctx, gitDir, &rep); err != nil {
		return rep, &StepError{StepCheck, err}
	}
	if err := inProgress(gitDir); err != nil {
		return rep, &StepError{StepCheck, err}
	}
	branch, err := s.git(ctx, nil, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil {
		return rep, &StepError{StepCheck, fmt.Errorf("%w: check out a branch to sync (git switch <branch>)", ErrDetached)}
	}
	rep.Branch = strings.TrimSpace(branch)
	rep.Remote, rep.RemoteBranch = s.upstream(ctx, rep.Branch)
	rep.Rebase = s.Rebase
	if _, err := s.git(ctx, nil, "rev-parse", "-q", "--verify", "HEAD"); err != nil {
		// A fresh clone of an empty remote, or a new repository: start
		// from the remote's branch when there is one, or the first
		// commit below would begin a history unrelated to it.
		upstream, err := s.fetch(ctx, rep)
		if err != nil {
			return rep, err
		}
		if upstream != "" {
			s.progress("start " + rep.Branch + " from " + upstream)
			if _, err := s.git(ctx, nil, "merge", "--ff-only", "--quiet", upstream); err != nil {
				return rep, &StepError{StepMerge, err}
			}
			rep.Merged = true
		}
	}

	// The commit step never stops the sync: a file it cannot commit (it
	// does not parse, holds conflict markers or a secret) is left out and
	// reported by the lint step, and any other failure is returned after
	// the fetch, merge and push, so that a fix already on the remote
	// still arrives.
	s.progress("commit pending memory files")
	commitErr := s.locked(ctx, StepCommit, func(ctx context.Context) (err error) {
		if s.Leftovers != nil {
			// A fetch or push killed in a sync leaves the lock of the
			// remote-tracking ref, which every later fetch trips on.
			if _, err := s.Leftovers(ctx, []string{"refs/remotes/" + rep.Remote + "/" + rep.RemoteBranch}, false); err != nil {
				return &StepError{StepCommit, err}
			}
		}
		if rep.Committed, err = s.Commit(ctx); err != nil {
			return &StepError{StepCommit, err}
		}
		return nil
	})
	if commitErr != nil {
		s.progress(commitErr.Error() + "; fetching and merging all the same")
	}
	if err := s.exchange(ctx, gitDir, &rep); err != nil {
		return rep, err
	}
	return rep, commitErr
}

// exchange fetches, merges, lints and pushes, in rounds while the remote
// moves meanwhile.
func (s *Syncer) exchange(ctx context.Context, gitDir string, rep *Report) error {
	attempts := s.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	for rep.Attempts = 1; ; rep.Attempts++ {
		upstream, err := s.fetch(ctx, *rep)
		if err != nil {
			return err
		}
		if upstream != "" {
			if err := s.integrateLocked(ctx, gitDir, upstream, rep); err != nil {
				return err
			}
		}
		s.progress("lint the merged vault")
		if rep.Lint, err = s.Lint(ctx); err != nil {
			return &StepError{StepLint, err}
		}
		rep.Broken = s.classify(ctx, upstream, rep.Lint.Broken)
		if local := localBreaks(rep.Broken); len(local) > 0 {
			return &StepError{StepLint, fmt.Errorf("%w, committed here and not on %s: %s; nothing pushed: fix the file(s) and commit, then memvault sync again",
				ErrBrokenCommitted, rep.Remote, strings.Join(local, "; "))}
		}
		if s.NoPush {
			return nil
		}
		s.progress(fmt.Sprintf("push to %s %s", rep.Remote, rep.RemoteBranch))
		// The commit linted, by its hash: a server's write may move HEAD
		// meanwhile, and goes with the next push. Whether the remote lacks
		// it is asked before the push, which moves the remote-tracking ref.
		head, err := s.git(ctx, nil, "rev-parse", "--verify", "HEAD")
		if err != nil {
			return &StepError{StepPush, err}
		}
		head = strings.TrimSpace(head)
		ahead := upstream == "" || !s.isAncestor(ctx, head, upstream)
		_, err = s.network(ctx, rep.Remote, "push", "--quiet", rep.Remote, head+":refs/heads/"+rep.RemoteBranch)
		if err == nil {
			rep.Pushed, rep.PushedNew = true, ahead
			return nil
		}
		if !nonFastForward(err) || rep.Attempts >= attempts {
			if nonFastForward(err) {
				err = fmt.Errorf("the remote moved again at each of %d attempts: %w", attempts, err)
			}
			return &StepError{StepPush, err}
		}
		s.progress("the remote moved meanwhile: fetch and merge again")
	}
}

// inProgress refuses to start while git is in the middle of something
// (gitstore.OperationIn, the check every memvault write makes too).
func inProgress(gitDir string) error {
	var fix string
	switch op := gitstore.OperationIn(gitDir); op {
	case "":
		return nil
	case "merge":
		fix = "a merge is under way: finish it (memvault resolve, then git commit) or git merge --abort"
	case "rebase":
		fix = "a rebase is under way: finish it (memvault resolve, then git rebase --continue) or git rebase --abort"
	case "bisect":
		fix = "a bisect is under way: end it with git bisect reset"
	default:
		fix = fmt.Sprintf("a git %s is under way: finish it (git %[1]s --continue) or git %[1]s --abort", op)
	}
	return fmt.Errorf("%w: %s, then run memvault sync again", ErrInProgress, fix)
}

// upstream picks the remote and its branch: --remote, else the branch's
// upstream remote, else origin; the upstream's branch when the remote is
// the upstream's, else the same name as the local branch.
func (s *Syncer) upstream(ctx context.Context, branch string) (remote, remoteBranch string) {
	config := func(key string) string {
		out, _ := s.git(ctx, nil, "config", "--get", key)
		return strings.TrimSpace(out)
	}
	upRemote := config("branch." + branch + ".remote")
	remote = s.Remote
	if remote == "" {
		remote = upRemote
	}
	if remote == "" || remote == "." {
		remote = "origin"
	}
	remoteBranch = branch
	if remote == upRemote {
		if m, ok := strings.CutPrefix(config("branch."+branch+".merge"), "refs/heads/"); ok && m != "" {
			remoteBranch = m
		}
	}
	return remote, remoteBranch
}

// fetch fetches the remote's branch into its remote-tracking ref and
// returns that ref, "" when the remote has no such branch yet (the first
// push creates it).
func (s *Syncer) fetch(ctx context.Context, rep Report) (string, error) {
	s.progress(fmt.Sprintf("fetch %s %s", rep.Remote, rep.RemoteBranch))
	tracking := "refs/remotes/" + rep.Remote + "/" + rep.RemoteBranch
	_, err := s.network(ctx, rep.Remote, "fetch", "--quiet", rep.Remote, "+refs/heads/"+rep.RemoteBranch+":"+tracking)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "couldn't find remote ref") {
		return "", nil
	}
	if err != nil {
		return "", &StepError{StepFetch, err}
	}
	return tracking, nil
}

// integrateLocked merges or rebases onto upstream and joins what the
// merge left twice, holding the write lock. Under the lock it checks
// again that no operation is under way: another sync may have stopped on
// conflicts meanwhile, and its unmerged files are a person's, not ours.
func (s *Syncer) integrateLocked(ctx context.Context, gitDir, upstream string, rep *Report) error {
	if s.isAncestor(ctx, upstream, "HEAD") {
		// Nothing new upstream, and the server's writes only add to HEAD:
		// no lock, so that a quiet remote never holds a write up.
		return nil
	}
	if done, err := s.mergeAside(ctx, gitDir, upstream, rep.Branch, rep); done || err != nil {
		return err
	}
	return s.locked(ctx, StepMerge, func(ctx context.Context) error {
		if err := inProgress(gitDir); err != nil {
			return &StepError{StepCheck, err}
		}
		m := mark{Op: opMerge}
		if s.Rebase {
			m.Op = opRebase
		}
		head, herr := s.git(ctx, nil, "rev-parse", "--verify", "HEAD")
		commit, cerr := s.git(ctx, nil, "rev-parse", "--verify", upstream+"^{commit}")
		if herr != nil || cerr != nil {
			return &StepError{StepMerge, errors.Join(herr, cerr)}
		}
		m.Head, m.Commit = strings.TrimSpace(head), strings.TrimSpace(commit)
		return s.marked(ctx, gitDir, m, func() error {
			merged, err := s.integrate(ctx, upstream, rep)
			if err != nil {
				return err
			}
			rep.Merged = rep.Merged || merged
			if merged {
				return s.join(ctx, rep, m.Head, m.Commit)
			}
			return nil
		})
	})
}

// locked runs fn holding the write lock, with the holder's context; a
// lock that cannot be taken fails step.
func (s *Syncer) locked(ctx context.Context, step string, fn func(ctx context.Context) error) error {
	if s.Lock == nil {
		return fn(ctx)
	}
	held, unlock, err := s.Lock(ctx)
	if err != nil {
		return &StepError{step, fmt.Errorf("take the write lock: %w", err)}
	}
	defer unlock()
	return fn(held)
}

// integrate merges or rebases onto upstream, resolving the memory files
// the driver left, and reports whether there was anything to integrate.
func (s *Syncer) integrate(ctx context.Context, upstream string, rep *Report) (bool, error) {
	if s.isAncestor(ctx, upstream, "HEAD") {
		return false, nil // nothing new upstream
	}
	// Exact renames only, no directory renames: memory files are short
	// and alike (the same keys, a few changed lines), so git's 50 %
	// similarity pairs unrelated memories as renames and merges one into
	// another, and a layer folder emptied by a move looks like a renamed
	// directory, into which git moves the other side's new memories. A
	// memory's identity is its id: a move to another layer (which
	// rewrites its layer line) that meets an edit stops as
	// changed/deleted, and resolve merges the edit into the file that
	// carries the id. (git 2.39's merge-ort ignores -X no-renames.)
	step, args := StepMerge, []string{"merge", "--no-edit", "--autostash", "-X", "find-renames=100%", upstream}
	if s.Rebase {
		// --empty=keep: a write whose change the merge rules outrank (an
		// archive under a supersession) replays as an empty commit; git
		// would drop it, and with it the write's reason and author, which
		// a merge keeps on its side (issue 24: 0 lost reasons).
		step, args = StepRebase, []string{"rebase", "--autostash", "--empty=keep", "-X", "find-renames=100%", upstream}
	}
	s.progress(fmt.Sprintf("%s %s", step, upstream))
	_, err := s.git(ctx, nil, s.withDriver(args...)...)
	// A rebase stops once per commit that conflicts: resolve and continue
	// until it is done. The bound only guards against a git that keeps
	// stopping without progress.
	for round := 0; err != nil; round++ {
		if round > 100000 {
			return true, &StepError{step, fmt.Errorf("git keeps stopping: %w", err)}
		}
		unmerged, uerr := s.unmerged(ctx)
		if uerr != nil {
			return true, &StepError{step, uerr}
		}
		if len(unmerged) == 0 {
			if s.Rebase && s.nothingStaged(ctx) {
				if _, err = s.continueRebase(ctx); errors.As(err, new(*StepError)) {
					return true, err
				}
				continue
			}
			return true, &StepError{step, err}
		}
		var others []string
		for _, p := range unmerged {
			if !s.isMemory(p) {
				others = append(others, p)
			}
		}
		if len(others) > 0 {
			return true, &StepError{step, fmt.Errorf("%w: %s conflict(s) in files that are not memories: %s; resolve them, git add them, "+
				"run memvault resolve for the memory files, then git %s --continue, and memvault sync again", ErrConflicts, step, strings.Join(others, ", "), step)}
		}
		s.progress(fmt.Sprintf("resolve %d memory file(s)", len(unmerged)))
		res, rerr := s.Resolve(ctx)
		rep.Resolved = append(rep.Resolved, res...)
		if rerr != nil {
			return true, &StepError{StepResolve, fmt.Errorf("%w: %w; the %s is stopped: fix the files, git add them, then git %s --continue", ErrConflicts, rerr, step, step)}
		}
		if left, _ := s.unmerged(ctx); len(left) > 0 {
			return true, &StepError{StepResolve, fmt.Errorf("%w: still unmerged: %s", ErrConflicts, strings.Join(left, ", "))}
		}
		if s.Rebase {
			if _, err = s.continueRebase(ctx); errors.As(err, new(*StepError)) {
				return true, err
			}
		} else {
			_, err = s.git(ctx, []string{"GIT_EDITOR=true"}, "commit", "--no-edit", "--cleanup=strip", "--quiet")
		}
	}
	return true, nil
}

// continueRebase continues a rebase that stopped. A replayed commit that
// is empty once resolved is kept, with its message and author (-C
// REBASE_HEAD), as --empty=keep keeps one that replays clean: git's
// rebase --continue would drop it, and with it the write's reason.
func (s *Syncer) continueRebase(ctx context.Context) (string, error) {
	if s.nothingStaged(ctx) {
		if out, err := s.git(ctx, nil, "commit", "--quiet", "--allow-empty", "--no-verify", "-C", "REBASE_HEAD"); err != nil {
			return out, &StepError{StepRebase, fmt.Errorf("keep the replayed commit that became empty: %w", err)}
		}
	}
	return s.git(ctx, []string{"GIT_EDITOR=true"}, s.withDriver("rebase", "--continue")...)
}

// join joins the memories the merge left in two files and commits the
// result: a merge that moved one memory to two layers is clean for git.
func (s *Syncer) join(ctx context.Context, rep *Report, head, upstream string) error {
	if s.Join == nil {
		return nil
	}
	res, err := s.Join(ctx, s.forkedFile(head, upstream))
	rep.Resolved = append(rep.Resolved, res...)
	if err != nil {
		return &StepError{StepResolve, err}
	}
	if len(res) == 0 {
		return nil
	}
	s.progress(fmt.Sprintf("join %d memory file(s) the merge left twice", len(res)))
	var paths []string
	msg := commitmsg.Message{Subject: fmt.Sprintf("memory: join %d memory file(s) a merge left in two places", len(res)),
		Body: "One memory, one file: the copies merged by memvault's merge rules."}
	for _, r := range res {
		msg.Trailers = append(msg.Trailers, commitmsg.Trailer{Key: commitmsg.KeyID, Value: r.ID})
		for _, p := range []string{r.Path, r.NewPath} {
			if p != "" {
				paths = append(paths, path.Join(s.VaultPrefix, p))
			}
		}
	}
	if _, err := s.git(ctx, nil, append([]string{"add", "-A", "--"}, paths...)...); err != nil {
		return &StepError{StepResolve, err}
	}
	msg.Trailers = append(msg.Trailers, commitmsg.Trailer{Key: commitmsg.KeyClient, Value: "sync"})
	if _, err := s.git(ctx, nil, "commit", "-q", "-m", msg.String()); err != nil {
		return &StepError{StepResolve, err}
	}
	return nil
}

// withDriver prefixes git's arguments with the merge driver's config.
func (s *Syncer) withDriver(args ...string) []string {
	return append([]string{"-c", "merge.memvault.name=memvault memory files, field by field", "-c", "merge.memvault.driver=" + s.Driver, "-c", "merge.directoryRenames=false"}, args...)
}

// unmerged lists the unmerged paths, relative to the top of the work
// tree.
func (s *Syncer) unmerged(ctx context.Context) ([]string, error) {
	out, err := s.git(ctx, nil, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, err
	}
	var paths []string
	for p := range strings.SplitSeq(out, "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}

// isAncestor reports whether commit a is an ancestor of b (or b).
func (s *Syncer) isAncestor(ctx context.Context, a, b string) bool {
	_, err := s.git(ctx, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// nothingStaged reports whether the index matches HEAD.
func (s *Syncer) nothingStaged(ctx context.Context) bool {
	_, err := s.git(ctx, nil, "diff", "--cached", "--quiet")
	return err == nil
}

// isMemory reports whether a repository-relative path is a memory file
// of the vault.
func (s *Syncer) isMemory(p string) bool {
	rel := p
	if s.VaultPrefix != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(p, s.VaultPrefix+"/"); !ok {
			return false
		}
	}
	return vault.IsMemoryPath(path.Clean(rel))
}

// nonFastForward reports a push the remote refused because it moved.
func nonFastForward(err error) bool {
	var ge *GitError
	if !errors.As(err, &ge) {
		return false
	}
	for _, s := range []string{"non-fast-forward", "fetch first", "[rejected]", "stale info", "cannot lock ref"} {
		if strings.Contains(ge.Stderr, s) {
			return true
		}
	}
	return false
}

// ErrNetworkTimeout means a fetch or push got no complete answer from the
// remote within Syncer.NetworkTimeout.
var ErrNetworkTimeout = fault.New(fault.Internal, "no answer from the remote")

// network runs a git command that talks to remote (fetch, push) within
// NetworkTimeout; git and what it started (ssh, a remote helper) are
// killed when it passes.
func (s *Syncer) network(ctx context.Context, remote string, args ...string) (string, error) {
	if s.NetworkTimeout <= 0 {
		return s.git(ctx, nil, args...)
	}
	tctx, cancel := context.WithTimeoutCause(ctx, s.NetworkTimeout, ErrNetworkTimeout)
	defer cancel()
	out, err := s.git(tctx, nil, args...)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(tctx), ErrNetworkTimeout) {
		return out, fmt.Errorf("git %s %s: %w within %s (--network-timeout, $%s): %w", args[0], remote, ErrNetworkTimeout, s.NetworkTimeout, NetworkTimeoutEnv, err)
	}
	return out, err
}

func (s *Syncer) git(ctx context.Context, env []string, args ...string) (string, error) {
	return s.Git.Run(ctx, env, args...)
}

func (s *Syncer) progress(line string) {
	if s.Progress != nil {
		fmt.Fprintf(s.Progress, "memvault sync: %s\n", line)
	}
}

// forkedFile reads a memory's file, by id, as it was at the merge base of
// head and upstream: the base for joining the copies a merge left (a
// memory moved to two layers), so that what one side alone changed is
// not a conflict.
func (s *Syncer) forkedFile(head, upstream string) resolve.Base {
	return func(ctx context.Context, id string) ([]byte, error) {
		base, err := s.git(ctx, nil, "merge-base", head, upstream)
		if err != nil {
			return nil, nil // unrelated histories: no base
		}
		base = strings.TrimSpace(base)
		// The id line as memvault writes it, whole; a file without it
		// joins without a base, as before.
		hits, err := s.git(ctx, nil, "grep", "-l", "-e", "^id: "+regexp.QuoteMeta(id)+"$", base, "--", cmp.Or(s.VaultPrefix, "."))
		var ge *GitError
		if errors.As(err, &ge) && ge.Code == 1 {
			return nil, nil // nothing matches: the memory is newer than the fork
		}
		if err != nil {
			return nil, err
		}
		first, _, _ := strings.Cut(strings.TrimSpace(hits), "\n")
		data, err := s.git(ctx, nil, "show", first)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", first, err)
		}
		return []byte(data), nil
	}
}
