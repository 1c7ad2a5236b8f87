package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// Unmerged is a path that git's index holds unmerged during a merge,
// rebase or cherry-pick, with the contents of its stages.
type Unmerged struct {
	// Path is relative to the top of the work tree, slash-separated.
	Path string
	// Base, Ours and Theirs are stages 1, 2 and 3; nil when the stage is
	// absent (added or deleted on a side), a non-nil empty slice for an
	// empty file.
	Base, Ours, Theirs []byte
}

// UnmergedFiles lists the unmerged paths under prefix (relative to the
// top of the work tree; "" for all) with their stages, read with the git
// command: git ls-files -u, then one git cat-file --batch for the blobs.
func (s *Store) UnmergedFiles(ctx context.Context, prefix string) ([]Unmerged, error) {
	args := []string{"ls-files", "-u", "-z"}
	if prefix != "" {
		args = append(args, "--", prefix)
	}
	out, err := s.gitCLI(ctx, args...)
	if err != nil {
		return nil, err
	}
	type slot struct{ file, stage int }
	var (
		files []Unmerged
		shas  []string
		where []slot
	)
	byPath := map[string]int{}
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		// "<mode> <sha> <stage>\t<path>"
		meta, p, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-files -u: unexpected line %q", rec)
		}
		i, seen := byPath[p]
		if !seen {
			i = len(files)
			byPath[p] = i
			files = append(files, Unmerged{Path: p})
		}
		stage, err := strconv.Atoi(f[2])
		if err != nil || stage < 1 || stage > 3 {
			return nil, fmt.Errorf("git ls-files -u: unexpected stage in %q", rec)
		}
		shas = append(shas, f[1])
		where = append(where, slot{i, stage})
	}
	if len(shas) == 0 {
		return nil, nil
	}
	blobs, err := s.catBlobs(ctx, shas)
	if err != nil {
		return nil, err
	}
	for i, b := range blobs {
		f := &files[where[i].file]
		switch where[i].stage {
		case 1:
			f.Base = b
		case 2:
			f.Ours = b
		default:
			f.Theirs = b
		}
	}
	return files, nil
}

// catBlobs reads blobs by id with one git cat-file --batch.
func (s *Store) catBlobs(ctx context.Context, shas []string) ([][]byte, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGitCLI
	}
	cmd := exec.CommandContext(ctx, git, "cat-file", "--batch")
	cmd.Dir = s.root
	cmd.Stdin = strings.NewReader(strings.Join(shas, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file --batch: %w", err)
	}
	r := bufio.NewReader(pipe)
	blobs := make([][]byte, 0, len(shas))
	var readErr error
	for _, sha := range shas {
		head, err := r.ReadString('\n')
		if err != nil {
			readErr = fmt.Errorf("git cat-file --batch: read %s: %w", sha, err)
			break
		}
		f := strings.Fields(head) // "<sha> blob <size>"
		if len(f) != 3 || f[1] != "blob" {
			readErr = fmt.Errorf("git cat-file --batch: %s: %s", sha, strings.TrimSpace(head))
			break
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			readErr = fmt.Errorf("git cat-file --batch: %s: size %q", sha, f[2])
			break
		}
		b := make([]byte, n+1) // and the newline after it
		if _, err := io.ReadFull(r, b); err != nil {
			readErr = fmt.Errorf("git cat-file --batch: read %s: %w", sha, err)
			break
		}
		blobs = append(blobs, b[:n])
	}
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = fmt.Errorf("git cat-file --batch: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return blobs, readErr
}

// StageWorkTree stages paths (relative to the top of the work tree) as
// they are in the work tree, a missing one as deleted, with git add -A:
// this is how a merge's unmerged paths are marked resolved.
func (s *Store) StageWorkTree(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := s.gitCLI(ctx, append([]string{"add", "-A", "--"}, paths...)...)
	return err
}
