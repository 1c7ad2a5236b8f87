package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/memvault/memvault/filechange"
)

// Reading a long history through the git command. WalkPathChanges over
// tens of thousands of commits spends its time reading tree objects out
// of packs (seeks, inflating, parsing, in Go, one object at a time);
// `git log --raw` does the same tree diffs in C, several times faster. It
// is a read: nothing is written through the command, and the same walk
// in Go stands in when git is not installed or refuses (older than 2.31,
// which lacks --diff-merges). The two give the same commits and changes
// (TestWalkPathChangesCLIMatchesGo).

// minCLIWalk is the number of first-parent commits from which a walk
// goes through the git command: below it, starting a process costs more
// than the walk.
const minCLIWalk = 64

// errCLIWalk means the git command could not do the walk: the caller
// walks in Go instead.
var errCLIWalk = errors.New("git log walk unavailable")

// walkPathChangesCLI is WalkPathChanges read from `git log --first-parent
// --raw`: every commit of head's first-parent line down to stop, with its
// changes against its first parent, filtered to watch; renames are paired
// as the Go walk pairs them (pairRenames over the whole commit). It
// returns errCLIWalk, having called fn for nothing, when git cannot run.
func (s *Store) walkPathChangesCLI(ctx context.Context, head plumbing.Hash, stop string, watch *watchNode, fn func(PathCommit) error) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return errCLIWalk
	}
	// --git-dir: the repository this Store reads, whatever GIT_DIR says.
	args := []string{"--git-dir=" + s.gitDir, "log", "--first-parent", "--diff-merges=first-parent", "--raw", "--no-renames", "--no-abbrev", "-z",
		"--format=%x01%H %P%x00%cI%x00%B%x00", head.String()}
	if stop != "" {
		args = append(args, "^"+stop)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, args...)
	cmd.Dir = s.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return errCLIWalk
	}
	if err := cmd.Start(); err != nil {
		return errCLIWalk
	}
	r := &rawLog{br: bufio.NewReaderSize(out, 256<<10)}
	called := false
	var last rawCommit
	walkErr := func() error {
		for {
			c, err := r.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			pc, err := s.cliPathCommit(c, watch)
			if err != nil {
				return err
			}
			called = true
			last = c
			if err := fn(pc); err != nil {
				return err
			}
		}
	}()
	if walkErr != nil {
		cancel()
		_ = cmd.Wait()
		return walkErr
	}
	if err := cmd.Wait(); err != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !called {
			return errCLIWalk
		}
		return fmt.Errorf("git log: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	switch {
	case stop == "" || head.String() == stop:
		return nil
	case !called, len(last.parents) == 0 || last.parents[0] != stop:
		// git stopped at a commit reachable from stop, or listed nothing:
		// stop is not on head's first-parent line.
		return fmt.Errorf("walk to %s: %w", stop, ErrNotAncestor)
	}
	return nil
}

// rawCommit is one commit of `git log --raw -z` output.
type rawCommit struct {
	hash    string
	parents []string
	time    time.Time
	message string
	changes []rawChange
}

// rawChange is one line of --raw: modes, blob ids, status, path.
type rawChange struct {
	oldMode, newMode string
	oldHash, newHash plumbing.Hash
	status           byte
	path             string
}

// rawLog reads `git log -z --raw` output with the format
// "\x01%H %P\0%cI\0%B\0" one commit at a time.
type rawLog struct {
	br      *bufio.Reader
	pending string // a token read past the end of the last commit
}

// token returns the next NUL-terminated token, without leading newlines.
func (r *rawLog) token() (string, error) {
	if t := r.pending; t != "" {
		r.pending = ""
		return t, nil
	}
	b, err := r.br.ReadString(0)
	if err == io.EOF && b == "" {
		return "", io.EOF
	}
	if err != nil && err != io.EOF {
		return "", err
	}
	return strings.TrimLeft(strings.TrimSuffix(b, "\x00"), "\n"), nil
}

// next reads one commit.
func (r *rawLog) next() (rawCommit, error) {
	var t string
	var err error
	for t == "" {
		if t, err = r.token(); err != nil {
			return rawCommit{}, err
		}
	}
	if t[0] != 1 {
		return rawCommit{}, fmt.Errorf("git log: unexpected %q", t)
	}
	ids := strings.Fields(t[1:])
	if len(ids) == 0 {
		return rawCommit{}, fmt.Errorf("git log: unexpected %q", t)
	}
	c := rawCommit{hash: ids[0], parents: ids[1:]}
	when, err := r.token()
	if err != nil {
		return rawCommit{}, unexpectedEOF(err)
	}
	if c.time, err = time.Parse(time.RFC3339, when); err != nil {
		return rawCommit{}, fmt.Errorf("git log: commit %s: time %q: %w", c.hash, when, err)
	}
	// The message is one token whatever it holds: read it raw.
	msg, err := r.br.ReadString(0)
	if err != nil {
		return rawCommit{}, unexpectedEOF(err)
	}
	c.message = strings.TrimSuffix(msg, "\x00")
	for {
		t, err := r.token()
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return rawCommit{}, err
		}
		switch {
		case t == "":
		case t[0] == 1:
			r.pending = t
			return c, nil
		case t[0] == ':':
			ch, err := parseRaw(t)
			if err != nil {
				return rawCommit{}, fmt.Errorf("git log: commit %s: %w", c.hash, err)
			}
			// The path token is taken raw: a file name may start with
			// a newline.
			p, err := r.br.ReadString(0)
			if err != nil {
				return rawCommit{}, unexpectedEOF(err)
			}
			ch.path = strings.TrimSuffix(p, "\x00")
			c.changes = append(c.changes, ch)
		default:
			return rawCommit{}, fmt.Errorf("git log: commit %s: unexpected %q", c.hash, t)
		}
	}
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return fmt.Errorf("git log: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// parseRaw reads ":100644 100644 <old> <new> M".
func parseRaw(t string) (rawChange, error) {
	f := strings.Fields(t[1:])
	if len(f) != 5 || len(f[4]) == 0 {
		return rawChange{}, fmt.Errorf("raw line %q", t)
	}
	ch := rawChange{oldMode: f[0], newMode: f[1], status: f[4][0]}
	for i, h := range []*plumbing.Hash{&ch.oldHash, &ch.newHash} {
		if !plumbing.IsHash(f[2+i]) {
			return rawChange{}, fmt.Errorf("raw line %q", t)
		}
		*h = plumbing.NewHash(f[2+i])
	}
	return ch, nil
}

// cliPathCommit turns a commit read from git into what the Go walk
// reports for it: the changes under watch, gitlinks left out, and a
// watched file that was deleted paired with a file added anywhere in the
// commit when git's rename rules say it moved there.
func (s *Store) cliPathCommit(c rawCommit, watch *watchNode) (PathCommit, error) {
	out := PathCommit{Hash: c.hash, Subject: subject(c.message), Time: c.time}
	var all []treeDiff // the whole commit, for renames
	deleted := false
	for _, ch := range c.changes {
		var d treeDiff
		switch {
		case ch.oldMode == "160000" || ch.newMode == "160000":
			continue
		case ch.status == 'A':
			d = treeDiff{kind: filechange.Added, path: ch.path, newHash: ch.newHash}
		case ch.status == 'D':
			d = treeDiff{kind: filechange.Deleted, path: ch.path, oldPath: ch.path, oldHash: ch.oldHash}
		default: // M, T
			d = treeDiff{kind: filechange.Modified, path: ch.path, oldPath: ch.path, oldHash: ch.oldHash, newHash: ch.newHash}
		}
		all = append(all, d)
		if !watch.covers(ch.path) {
			continue
		}
		pc := PathChange{Kind: d.kind, Path: d.path, OldPath: d.oldPath}
		if !d.oldHash.IsZero() {
			pc.OldBlob = d.oldHash.String()
		}
		if !d.newHash.IsZero() {
			pc.NewBlob = d.newHash.String()
		}
		deleted = deleted || d.kind == filechange.Deleted
		out.Changes = append(out.Changes, pc)
	}
	if !deleted {
		return out, nil
	}
	s.mu.Lock()
	paired, err := s.pairRenames(all)
	s.mu.Unlock()
	if err != nil {
		return PathCommit{}, err
	}
	for i, ch := range out.Changes {
		if ch.Kind != filechange.Deleted {
			continue
		}
		for _, a := range paired {
			if a.kind == filechange.Renamed && a.oldPath == ch.Path {
				out.Changes[i].Kind, out.Changes[i].Path, out.Changes[i].NewBlob = filechange.Renamed, a.path, a.newHash.String()
				break
			}
		}
	}
	return out, nil
}

// covers reports whether path is under a watched path.
func (n *watchNode) covers(path string) bool {
	for {
		if n.whole {
			return true
		}
		comp, rest, more := strings.Cut(path, "/")
		c, ok := n.children[comp]
		if !ok {
			return false
		}
		n, path = c, rest
		if !more {
			return n.whole
		}
	}
}
