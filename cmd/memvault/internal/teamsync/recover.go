package teamsync

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/gitstore"
)

// A sync killed (kill -9, a power cut of the terminal, a cancel) while it
// merges, rebases or publishes leaves the repository half way: MERGE_HEAD
// and a half-resolved index, a work tree git was updating, orphaned locks
// (issue 27 finding 5). Before each of those steps sync writes a mark in
// <git-dir>/memvault/ saying what it does, from which HEAD, with which
// commit; it removes the mark when the step ends, however it ends, except
// when cancelled. The mark is written and removed under the write lock,
// which the kernel releases when its holder dies: a mark found by a sync
// that holds the lock is a dead sync's. That sync then puts the repository
// back as it was before the step (git merge --abort, git rebase --abort,
// or the files the step was writing checked out from HEAD again, and the
// work it had set aside put back), or, where the step got as far as moving
// the branch, finishes its clean-up, and syncs again. Nothing the user
// wrote is lost: sync commits the pending memory files before it merges,
// and git set the other changes aside (--autostash) before touching the
// work tree.

// Steps a mark names.
const (
	opMerge   = "merge"   // git merge of Commit, the remote's, into Head
	opRebase  = "rebase"  // git rebase of Head onto Commit
	opPublish = "publish" // git merge --ff-only from Head to Commit, the merge made aside
)

// markFile is the mark's name in <git-dir>/memvault.
const markFile = "sync-step.json"

// mark is what a sync records before a step that changes the work tree.
type mark struct {
	Op     string `json:"op"`
	Head   string `json:"head"`
	Commit string `json:"commit"`
	// PID is the sync's process, for the message that tells what the
	// next sync found.
	PID int `json:"pid"`
}

func markPath(gitDir string) string { return filepath.Join(gitDir, "memvault", markFile) }

// writeMark records m, by a rename so that a kill never leaves half a
// mark.
func writeMark(gitDir string, m mark) error {
	p := markPath(gitDir)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("record sync's step: %w", err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("record sync's step: %w", err)
	}
	if err := os.WriteFile(p+".tmp", b, 0o644); err != nil {
		return fmt.Errorf("record sync's step: %w", err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		return fmt.Errorf("record sync's step: %w", err)
	}
	return nil
}

// readMark reads the mark; ok is false when there is none.
func readMark(gitDir string) (m mark, ok bool, err error) {
	b, err := os.ReadFile(markPath(gitDir))
	if errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("read the mark of a killed sync: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Head == "" || m.Commit == "" {
		// Unreadable: nothing to go by. HEAD and the operation in
		// progress still say what there is; a person judges.
		return m, false, removeMark(gitDir)
	}
	return m, true, nil
}

func removeMark(gitDir string) error {
	if err := os.Remove(markPath(gitDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove sync's mark: %w", err)
	}
	return nil
}

// marked runs fn, a step that changes the work tree, with m recorded. The
// caller holds the write lock. A cancelled step keeps its mark: git was
// killed in it, and the next sync recovers as after kill -9.
func (s *Syncer) marked(ctx context.Context, gitDir string, m mark, fn func() error) error {
	m.PID = os.Getpid()
	if err := writeMark(gitDir, m); err != nil {
		return &StepError{StepMerge, err}
	}
	err := fn()
	if ctx.Err() != nil {
		return err
	}
	if rerr := removeMark(gitDir); rerr != nil && err == nil {
		err = &StepError{StepMerge, rerr}
	}
	return err
}

// recoverKilled finds the mark of a sync killed in a step and puts the
// repository back as it was before that step, or finishes the step's
// clean-up when it got as far as moving the branch. It waits for the
// killed sync's git processes still finishing, and clears the locks and
// temporary files they left. Without a mark it does nothing: a merge
// under way is then a person's, and the check refuses it.
func (s *Syncer) recoverKilled(ctx context.Context, gitDir string, rep *Report) error {
	if _, ok, err := readMark(gitDir); !ok || err != nil {
		return err
	}
	return s.locked(ctx, StepCheck, func(ctx context.Context) error {
		m, ok, err := readMark(gitDir) // another sync may have recovered meanwhile
		if !ok || err != nil {
			return err
		}
		s.progress(fmt.Sprintf("a sync (process %d) was killed in its %s: putting the repository back as it was before", m.PID, m.Op))
		if s.Leftovers != nil {
			removed, err := s.Leftovers(ctx, nil, true)
			if err != nil {
				return fmt.Errorf("clear what the killed sync's git left: %w", err)
			}
			for _, f := range removed {
				s.progress("removed " + f)
			}
		}
		if err := s.undo(ctx, gitDir, m, rep); err != nil {
			return fmt.Errorf("recover from the sync killed in its %s (HEAD was %.12s, %s %.12s): %w", m.Op, m.Head, m.Op, m.Commit, err)
		}
		rep.Recovered = m.Op
		return removeMark(gitDir)
	})
}

// undo puts back the state from before m's step, or finishes its
// clean-up.
func (s *Syncer) undo(ctx context.Context, gitDir string, m mark, rep *Report) error {
	head, err := s.git(ctx, nil, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return err
	}
	head = strings.TrimSpace(head)
	op := gitstore.OperationIn(gitDir)
	switch {
	case m.Op == opRebase:
		if op == "rebase" {
			_, err := s.git(ctx, nil, "rebase", "--abort")
			return err
		}
		return nil // the rebase ended, or never began
	case head != m.Head:
		// The branch moved: the merge was committed (or published); what
		// may be left is its state files and, after a publish or a
		// merge, the join of the memories it left in two files.
		if m.Op == opMerge && s.isAncestor(ctx, m.Commit, "HEAD") {
			if op == "merge" && s.readPseudo(gitDir, "MERGE_HEAD") == m.Commit {
				removePseudo(gitDir, "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE")
				op = ""
			}
			if op == "" {
				// git commit puts the autostash back after it moved
				// the branch: a kill in between leaves it.
				if err := s.applyAutostash(ctx, gitDir); err != nil {
					return err
				}
			}
		}
		if s.isAncestor(ctx, m.Commit, "HEAD") && s.isAncestor(ctx, m.Head, "HEAD") {
			return s.join(ctx, rep, m.Head, m.Commit)
		}
		return nil
	case op == "merge":
		if m.Op == opMerge && s.readPseudo(gitDir, "MERGE_HEAD") == m.Commit {
			_, err := s.git(ctx, nil, "merge", "--abort")
			return err
		}
		return nil // a person's merge, begun after: the check refuses it
	case op != "":
		return nil
	}
	// Killed while git was writing the work tree, before it recorded a
	// merge: the files the step changes hold either HEAD's version or
	// the new one.
	if err := s.restore(ctx, gitDir, m.Head, m.Commit, m.Op == opMerge); err != nil {
		return err
	}
	if m.Op == opMerge {
		removePseudo(gitDir, "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE")
		return s.applyAutostash(ctx, gitDir)
	}
	return nil
}

// restore checks out from head again the files that differ between head
// and to, which a killed checkout (of to, or with merge of a merge with
// it, only those to changed since the merge base) may have half written; a file to adds is removed when it holds to's version,
// the one the checkout wrote. When a file to check out holds neither
// head's version nor to's (a merge's result, or a change git had not yet
// set aside when the kill came), the work tree is first kept in the stash
// list: nothing is lost even then.
func (s *Syncer) restore(ctx context.Context, gitDir, head, to string, merge bool) error {
	out, err := s.git(ctx, nil, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", head, to)
	if err != nil {
		return err
	}
	var theirs map[string]bool // with merge, the paths to changed since the base
	if merge {
		base, err := s.git(ctx, nil, "merge-base", head, to)
		if err != nil {
			return err
		}
		names, err := s.git(ctx, nil, "diff", "--name-only", "-z", "--no-renames", strings.TrimSpace(base), to)
		if err != nil {
			return err
		}
		theirs = map[string]bool{}
		for p := range strings.SplitSeq(names, "\x00") {
			theirs[p] = true
		}
	}
	top, err := s.git(ctx, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	top = strings.TrimSpace(top)
	format, err := s.git(ctx, nil, "rev-parse", "--show-object-format")
	if err != nil {
		return err
	}
	format = strings.TrimSpace(format)
	var back, added []string
	unknown := false
	f := strings.Split(out, "\x00")
	for i := 0; i+1 < len(f); i += 2 {
		// :<mode> <mode> <blob> <blob> <status>, then the path.
		meta := strings.Fields(f[i])
		if len(meta) != 5 {
			return fmt.Errorf("git diff --raw: unexpected line %q", f[i])
		}
		p := f[i+1]
		if merge && !theirs[p] {
			continue // only ours changed it: the merge keeps ours
		}
		blob := blobOf(filepath.Join(top, filepath.FromSlash(p)), format)
		if blob == "" {
			blob = strings.Repeat("0", len(meta[2])) // absent, as git says
		}
		switch {
		case meta[4] != "A":
			back = append(back, p)
			unknown = unknown || blob != meta[2] && blob != meta[3]
		case blob == meta[3]:
			added = append(added, p)
		}
	}
	if unknown {
		if err := s.keepWorkTree(ctx); err != nil {
			return err
		}
	}
	if len(back) > 0 {
		if err := s.withPaths(ctx, gitDir, back, "checkout", head); err != nil {
			return err
		}
	}
	if len(added) > 0 {
		if err := s.withPaths(ctx, gitDir, added, "rm", "-q", "--cached", "--ignore-unmatch"); err != nil {
			return err
		}
		for _, p := range added {
			if err := os.Remove(filepath.Join(top, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// keepWorkTree stores the work tree's changes in the stash list, without
// touching them.
func (s *Syncer) keepWorkTree(ctx context.Context) error {
	const msg = "memvault sync: the work tree a killed sync left, before it was set back"
	stash, err := s.git(ctx, nil, "stash", "create", msg)
	if err != nil || strings.TrimSpace(stash) == "" {
		return err
	}
	if _, err := s.git(ctx, nil, "stash", "store", "-m", msg, strings.TrimSpace(stash)); err != nil {
		return err
	}
	s.progress("the files the killed sync's git had written are kept in git stash list (" + msg + ")")
	return nil
}

// withPaths runs git with args and the paths, passed in a file (a merge
// may touch more files than a command line holds).
func (s *Syncer) withPaths(ctx context.Context, gitDir string, paths []string, args ...string) error {
	list := filepath.Join(gitDir, "memvault", "sync-paths")
	if err := os.WriteFile(list, []byte(strings.Join(paths, "\x00")), 0o644); err != nil {
		return err
	}
	defer os.Remove(list)
	_, err := s.git(ctx, nil, append(args, "--pathspec-from-file="+list, "--pathspec-file-nul")...)
	return err
}

// blobOf is the git object id of the file at name as a blob, "" when it
// cannot be read (or is not a regular file).
func blobOf(name, format string) string {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	var h hash.Hash = sha1.New()
	if format == "sha256" {
		h = sha256.New()
	}
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// applyAutostash puts back the changes git merge --autostash set aside,
// as git merge --abort would; when they do not apply, they go to the
// stash list, and sync says so.
func (s *Syncer) applyAutostash(ctx context.Context, gitDir string) error {
	stash := s.readPseudo(gitDir, "MERGE_AUTOSTASH")
	if stash == "" {
		return nil
	}
	if _, err := s.git(ctx, nil, "stash", "apply", "--quiet", stash); err != nil {
		if _, err := s.git(ctx, nil, "stash", "store", "-m", "memvault sync: changes a killed sync had set aside", stash); err != nil {
			return fmt.Errorf("keep the changes a killed sync set aside (commit %s): %w", stash, err)
		}
		s.progress("the changes the killed sync had set aside do not apply: they are in git stash list (git stash pop)")
	}
	removePseudo(gitDir, "MERGE_AUTOSTASH")
	return nil
}

// readPseudo reads a pseudo-ref file of the git dir, "" when absent.
func (s *Syncer) readPseudo(gitDir, name string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, name))
	if err != nil {
		return ""
	}
	v, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return v
}

// removePseudo removes state files of the git dir, those a merge writes.
func removePseudo(gitDir string, names ...string) {
	for _, n := range names {
		os.Remove(filepath.Join(gitDir, n))
	}
}
