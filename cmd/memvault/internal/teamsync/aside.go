package teamsync

import (
	"context"
	"fmt"
	"strings"
)

// mergeAside merges upstream into HEAD without the write lock, the way
// git merge-tree does it (new objects only: no index, work tree or ref
// changes), so that a long merge, the driver on a big file, never holds a
// server's write up (issue 27 finding 2). The lock is taken only to
// publish: the merge commit, made from the merged tree, fast-forwards the
// branch. It reports false, having changed nothing, when the locked merge
// must run instead: a fast-forward or an unrelated history (git merge
// handles them), a merge that stops on conflicts (resolve works on the
// work tree), HEAD moved meanwhile (a write came in), or a work tree the
// fast-forward cannot update.
//
// Renames are off (merge.renames=false) where the locked merge finds exact
// ones: git 2.39's merge-tree takes no -X. A merge the two settings would
// make differently stops on a conflict here and runs locked.
func (s *Syncer) mergeAside(ctx context.Context, gitDir, upstream, branch string, rep *Report) (bool, error) {
	if s.Rebase || s.isAncestor(ctx, "HEAD", upstream) {
		return false, nil
	}
	head, err := s.git(ctx, nil, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return false, nil
	}
	head = strings.TrimSpace(head)
	s.progress(fmt.Sprintf("merge %s (aside, without the write lock)", upstream))
	tree, err := s.git(ctx, nil, s.withDriver("-c", "merge.renames=false", "merge-tree", "--write-tree", "--no-messages", head, upstream)...)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		return false, nil // conflicts, or a history git merge must judge
	}
	tree = strings.TrimSpace(strings.SplitN(tree, "\n", 2)[0])
	msg := fmt.Sprintf("Merge remote-tracking branch '%s' into %s", strings.TrimPrefix(upstream, "refs/remotes/"), branch)
	commit, err := s.git(ctx, nil, "commit-tree", tree, "-p", head, "-p", upstream, "-m", msg)
	if err != nil {
		return false, &StepError{StepMerge, err}
	}
	commit = strings.TrimSpace(commit)
	published := false
	err = s.locked(ctx, StepMerge, func(ctx context.Context) error {
		if err := inProgress(gitDir); err != nil {
			return &StepError{StepCheck, err}
		}
		if now, err := s.git(ctx, nil, "rev-parse", "--verify", "HEAD"); err != nil || strings.TrimSpace(now) != head {
			return nil // a write moved HEAD: merge again, locked
		}
		s.progress("publish the merge (fast-forward to " + commit[:min(12, len(commit))] + ")")
		return s.marked(ctx, gitDir, mark{Op: opPublish, Head: head, Commit: commit}, func() error {
			if _, err := s.git(ctx, nil, "merge", "--ff-only", "--quiet", commit); err != nil {
				return nil // the work tree is in the way: the locked merge autostashes
			}
			published, rep.Merged = true, true
			return s.join(ctx, rep, head, upstream)
		})
	})
	return published, err
}
