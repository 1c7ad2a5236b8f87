package gitstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/memvault/memvault/filechange"
)

// The three implementations of each read path compared in
// readpaths_test.go and readpaths_bench_test.go: gitstore's own code, the
// same answer through go-git's public API, and through the git CLI. Each
// returns records whose canonical form (rec.line) is compared; contents
// are kept as bytes and hashed only for the comparison, outside the timing.

// rec is one line of an answer: a key and the contents it carries (a nil
// entry is "no content", e.g. the old side of an added file).
type rec struct {
	key   string
	datas [][]byte
}

func (r rec) line() string {
	var b strings.Builder
	b.WriteString(r.key)
	for _, d := range r.datas {
		if d == nil {
			b.WriteString(" -")
		} else {
			b.WriteString(" " + plumbing.ComputeHash(plumbing.BlobObject, d).String()[:12])
		}
	}
	return b.String()
}

func lines(rs []rec) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.line()
	}
	return out
}

func historyRec(hash, path, oldPath string, deleted bool) rec {
	k := hash + " " + path
	if oldPath != "" {
		k += " <- " + oldPath
	}
	if deleted {
		k += " (deleted)"
	}
	return rec{key: k}
}

func sortRecs(rs []rec) []rec {
	sort.Slice(rs, func(i, j int) bool { return rs[i].key < rs[j].key })
	return rs
}

// ---- gitstore ----

func storeHistory(ctx context.Context, s *Store, path string, opts HistoryOptions) ([]rec, error) {
	cs, err := s.History(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	out := make([]rec, len(cs))
	for i, c := range cs {
		out[i] = historyRec(c.Hash, c.Path, c.OldPath, c.Deleted)
	}
	return out, nil
}

func storeDiff(ctx context.Context, s *Store, base, head, dir string) ([]rec, error) {
	fcs, err := s.DiffTrees(ctx, base, head, dir)
	if err != nil {
		return nil, err
	}
	out := make([]rec, len(fcs))
	for i, fc := range fcs {
		out[i] = diffRec(fc.Kind, fc.Path, fc.OldPath, fc.Old, fc.New)
	}
	return sortRecs(out), nil
}

func diffRec(kind filechange.Kind, path, oldPath string, old, new []byte) rec {
	k := kind.String() + " " + path
	if kind == filechange.Renamed {
		k += " <- " + oldPath
	}
	return rec{key: k, datas: [][]byte{old, new}}
}

func storeDirty(ctx context.Context, s *Store, dir string) ([]rec, error) {
	paths, err := s.Dirty(ctx, filepath.Join(s.Root(), dir))
	if err != nil {
		return nil, err
	}
	out := make([]rec, len(paths))
	for i, p := range paths {
		rel, _ := filepath.Rel(s.Root(), p)
		out[i] = rec{key: filepath.ToSlash(rel)}
	}
	return sortRecs(out), nil
}

// storeConfig resolves what gitstore reads from the configuration: the
// author identity (Commit), core.fsync (Open) and core.excludesFile
// (Dirty), each through the include-aware stack.
func storeConfig(ctx context.Context, s *Store) ([]rec, error) {
	id, err := s.Identity(ctx)
	if err != nil {
		return nil, err
	}
	user, err := loadUserConfig(s.gitDir)
	if err != nil {
		return nil, err
	}
	repo, err := loadRepoConfig(s.commonDir, s.gitDir)
	if err != nil {
		return nil, err
	}
	all := &gitConfig{files: append(user.files, repo.files...)}
	return configRecs(id.Name, id.Email, all.get("core", "", "fsync"), all.get("core", "", "excludesfile")), nil
}

func configRecs(name, email, fsync, excludes string) []rec {
	return []rec{
		{key: "user " + name + " <" + email + ">"},
		{key: "core.fsync " + fsync},
		{key: "core.excludesfile " + excludes},
	}
}

func storeReadFile(ctx context.Context, s *Store, rev, path string) ([]rec, error) {
	b, err := s.ReadFile(ctx, rev, path)
	if err != nil {
		return nil, err
	}
	return []rec{{key: path, datas: [][]byte{b}}}, nil
}

func storeWalkTree(ctx context.Context, s *Store, rev, dir string) ([]rec, error) {
	var out []rec
	err := s.WalkTree(ctx, rev, dir, func(p string, data []byte) error {
		out = append(out, rec{key: p, datas: [][]byte{data}})
		return nil
	})
	return sortRecs(out), err
}

func storeWalkStaged(ctx context.Context, s *Store, dir string) ([]rec, error) {
	var out []rec
	err := s.WalkStaged(ctx, "", dir, func(p string, data []byte) error {
		out = append(out, rec{key: p, datas: [][]byte{data}})
		return nil
	})
	return sortRecs(out), err
}

func storeResolveTime(ctx context.Context, s *Store, t time.Time) ([]rec, error) {
	h, err := s.ResolveTime(ctx, t)
	return []rec{{key: h}}, err
}

// ---- go-git ----

func gogitHead(r *git.Repository) (*object.Commit, error) {
	ref, err := r.Head()
	if err != nil {
		return nil, err
	}
	return r.CommitObject(ref.Hash())
}

// gogitEntry returns the entry at path in c's tree, or nil.
func gogitEntry(c *object.Commit, path string) (*object.TreeEntry, error) {
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	e, err := t.FindEntry(path)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, nil
	}
	return e, err
}

func renameOptions(score uint) *object.DiffTreeOptions {
	return &object.DiffTreeOptions{DetectRenames: true, RenameScore: score}
}

// gogitRenameSource finds the file that c renamed to path, by go-git's
// rename detection at git's 50% (any similarity when anySimilarity).
func gogitRenameSource(ctx context.Context, parent, c *object.Commit, path string, anySimilarity bool) (string, error) {
	pt, err := parent.Tree()
	if err != nil {
		return "", err
	}
	ct, err := c.Tree()
	if err != nil {
		return "", err
	}
	score := uint(renameThreshold * 100)
	if anySimilarity {
		score = 0
	}
	changes, err := object.DiffTreeWithOptions(ctx, pt, ct, renameOptions(score))
	if err != nil {
		return "", err
	}
	for _, ch := range changes {
		if ch.To.Name == path && ch.From.Name != "" && ch.From.Name != path {
			return ch.From.Name, nil
		}
	}
	return "", nil
}

// gogitHistoryLog is the history of path as go-git's API offers it:
// repo.Log with FileName (`git log -- path`), and where the oldest commit
// found added the file, go-git's rename detection on that commit, then
// Log again from its parent with the old name.
func gogitHistoryLog(ctx context.Context, r *git.Repository, path string) ([]rec, error) {
	ref, err := r.Head()
	if err != nil {
		return nil, err
	}
	from := ref.Hash()
	var out []rec
	for {
		p := path
		it, err := r.Log(&git.LogOptions{From: from, FileName: &p})
		if err != nil {
			return nil, err
		}
		var oldest *object.Commit
		err = it.ForEach(func(c *object.Commit) error {
			e, err := gogitEntry(c, p)
			if err != nil {
				return err
			}
			out = append(out, historyRec(c.Hash.String(), p, "", e == nil))
			oldest = c
			return ctx.Err()
		})
		if err != nil {
			return nil, err
		}
		if oldest == nil || oldest.NumParents() == 0 {
			return out, nil
		}
		parent, err := oldest.Parent(0)
		if err != nil {
			return nil, err
		}
		if e, err := gogitEntry(parent, p); err != nil || e != nil {
			return out, err
		}
		src, err := gogitRenameSource(ctx, parent, oldest, p, false)
		if err != nil || src == "" {
			return out, err
		}
		out[len(out)-1] = historyRec(oldest.Hash.String(), p, src, false)
		from, path = parent.Hash, src
	}
}

// gogitHistoryWalk is gitstore's walk (compare the entry at the path in
// each commit and its parent, rename detection where the path appears,
// the Follow trailer) written against go-git's object API, on first-parent
// history.
func gogitHistoryWalk(ctx context.Context, r *git.Repository, path, follow string, limit int, noRenames bool) ([]rec, error) {
	key, val, _ := strings.Cut(follow, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	c, err := gogitHead(r)
	if err != nil {
		return nil, err
	}
	cur, err := gogitEntry(c, path)
	if err != nil {
		return nil, err
	}
	var out []rec
	for limit == 0 || len(out) < limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		matched := follow != "" && hasTrailer(c.Message, key, val)
		if c.NumParents() == 0 {
			if cur != nil || matched {
				out = append(out, historyRec(c.Hash.String(), path, "", false))
			}
			break
		}
		p, err := c.Parent(0)
		if err != nil {
			return nil, err
		}
		pe, err := gogitEntry(p, path)
		if err != nil {
			return nil, err
		}
		same := (cur == nil) == (pe == nil) && (cur == nil || (cur.Hash == pe.Hash && cur.Mode == pe.Mode))
		if same && !matched {
			c, cur = p, pe
			continue
		}
		newPath, oldPath := path, ""
		switch {
		case cur != nil && pe == nil && !noRenames:
			if oldPath, err = gogitRenameSource(ctx, p, c, path, matched); err != nil {
				return nil, err
			}
		case cur == nil && pe == nil && matched:
			pt, err := p.Tree()
			if err != nil {
				return nil, err
			}
			ct, err := c.Tree()
			if err != nil {
				return nil, err
			}
			changes, err := object.DiffTreeWithOptions(ctx, pt, ct, &object.DiffTreeOptions{})
			if err != nil {
				return nil, err
			}
			if len(changes) == 1 && changes[0].To.Name != "" {
				newPath = changes[0].To.Name
			}
		}
		out = append(out, historyRec(c.Hash.String(), newPath, oldPath, cur == nil && pe != nil))
		next := newPath
		if oldPath != "" {
			next = oldPath
		}
		if next != path {
			path = next
			if pe, err = gogitEntry(p, path); err != nil {
				return nil, err
			}
		}
		c, cur = p, pe
	}
	return out, nil
}

// gogitTrailerSearch finds the newest commit whose message has the
// trailer, as `memvault history` does for a deleted memory.
func gogitTrailerSearch(ctx context.Context, r *git.Repository, trailer string) ([]rec, error) {
	key, val, _ := strings.Cut(trailer, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	it, err := r.Log(&git.LogOptions{})
	if err != nil {
		return nil, err
	}
	var out []rec
	err = it.ForEach(func(c *object.Commit) error {
		if hasTrailer(c.Message, key, val) {
			out = append(out, rec{key: c.Hash.String()})
			return storer.ErrStop
		}
		return ctx.Err()
	})
	return out, err
}

func gogitSubtree(r *git.Repository, rev, dir string) (*object.Tree, error) {
	c, err := r.CommitObject(plumbing.NewHash(rev))
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	st, err := t.Tree(dir)
	if errors.Is(err, object.ErrDirectoryNotFound) {
		return &object.Tree{}, nil
	}
	return st, err
}

func gogitFileBytes(f *object.File) ([]byte, error) {
	if f == nil {
		return nil, nil
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if b == nil {
		b = []byte{}
	}
	return b, err
}

// gogitDiff is DiffTrees through object.DiffTreeWithOptions with rename
// detection at git's 50%, contents read from the changes' files.
func gogitDiff(ctx context.Context, r *git.Repository, base, head, dir string) ([]rec, error) {
	a, err := gogitSubtree(r, base, dir)
	if err != nil {
		return nil, err
	}
	b, err := gogitSubtree(r, head, dir)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTreeWithOptions(ctx, a, b, renameOptions(uint(renameThreshold*100)))
	if err != nil {
		return nil, err
	}
	out := make([]rec, 0, len(changes))
	for _, ch := range changes {
		from, to, err := ch.Files()
		if err != nil {
			return nil, err
		}
		old, err := gogitFileBytes(from)
		if err != nil {
			return nil, err
		}
		nw, err := gogitFileBytes(to)
		if err != nil {
			return nil, err
		}
		kind := filechange.Modified
		switch {
		case ch.From.Name == "":
			kind = filechange.Added
		case ch.To.Name == "":
			kind = filechange.Deleted
		case ch.From.Name != ch.To.Name:
			kind = filechange.Renamed
		}
		path := ch.To.Name
		if kind == filechange.Deleted {
			path = ch.From.Name
		}
		out = append(out, diffRec(kind, dir+"/"+path, dir+"/"+ch.From.Name, old, nw))
	}
	return sortRecs(out), nil
}

// gogitDirty is Dirty through Worktree.Status: untracked files, and
// changed files whose work-tree content differs from HEAD.
func gogitDirty(ctx context.Context, r *git.Repository, dir string) ([]rec, error) {
	wt, err := r.Worktree()
	if err != nil {
		return nil, err
	}
	st, err := wt.Status()
	if err != nil {
		return nil, err
	}
	head, err := gogitHead(r)
	if err != nil {
		return nil, err
	}
	var out []rec
	for p, fs := range st {
		if !strings.HasPrefix(p, dir+"/") {
			continue
		}
		if fs.Worktree == git.Untracked {
			out = append(out, rec{key: p})
			continue
		}
		e, err := gogitEntry(head, p)
		if err != nil {
			return nil, err
		}
		data, rerr := os.ReadFile(filepath.Join(wt.Filesystem.Root(), filepath.FromSlash(p)))
		switch {
		case e == nil || rerr != nil:
			out = append(out, rec{key: p})
		case plumbing.ComputeHash(plumbing.BlobObject, data) != e.Hash:
			out = append(out, rec{key: p})
		}
	}
	return sortRecs(out), ctx.Err()
}

// gogitConfig reads the same settings with Repository.ConfigScoped, which
// merges the system, global and repository files.
func gogitConfig(_ context.Context, r *git.Repository) ([]rec, error) {
	cfg, err := r.ConfigScoped(config.SystemScope)
	if err != nil {
		return nil, err
	}
	name := firstNonEmpty(os.Getenv("GIT_AUTHOR_NAME"), cfg.Author.Name, cfg.User.Name)
	email := firstNonEmpty(os.Getenv("GIT_AUTHOR_EMAIL"), cfg.Author.Email, cfg.User.Email, os.Getenv("EMAIL"))
	core := cfg.Raw.Section("core")
	return configRecs(name, email, core.Option("fsync"), core.Option("excludesfile")), nil
}

func gogitReadFile(_ context.Context, r *git.Repository, rev, path string) ([]rec, error) {
	c, err := r.CommitObject(plumbing.NewHash(rev))
	if err != nil {
		return nil, err
	}
	f, err := c.File(path)
	if err != nil {
		return nil, err
	}
	b, err := gogitFileBytes(f)
	return []rec{{key: path, datas: [][]byte{b}}}, err
}

func gogitWalkTree(ctx context.Context, r *git.Repository, rev, dir string) ([]rec, error) {
	t, err := gogitSubtree(r, rev, dir)
	if err != nil {
		return nil, err
	}
	var out []rec
	err = t.Files().ForEach(func(f *object.File) error {
		b, err := gogitFileBytes(f)
		if err != nil {
			return err
		}
		out = append(out, rec{key: dir + "/" + f.Name, datas: [][]byte{b}})
		return ctx.Err()
	})
	return sortRecs(out), err
}

func gogitWalkStaged(ctx context.Context, r *git.Repository, dir string) ([]rec, error) {
	idx, err := r.Storer.Index()
	if err != nil {
		return nil, err
	}
	var out []rec
	for _, e := range idx.Entries {
		if !strings.HasPrefix(e.Name, dir+"/") || !e.Mode.IsRegular() {
			continue
		}
		blob, err := r.BlobObject(e.Hash)
		if err != nil {
			return nil, err
		}
		rd, err := blob.Reader()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, rec{key: e.Name, datas: [][]byte{b}})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return sortRecs(out), nil
}

// gogitResolveTime walks first parents with the object API.
func gogitResolveTime(_ context.Context, r *git.Repository, t time.Time) ([]rec, error) {
	c, err := gogitHead(r)
	if err != nil {
		return nil, err
	}
	for c.Committer.When.After(t) {
		if c, err = c.Parent(0); err != nil {
			return nil, err
		}
	}
	return []rec{{key: c.Hash.String()}}, nil
}

// ---- git CLI ----

// cliGit runs git in dir and returns its stdout. GIT_OPTIONAL_LOCKS=0
// keeps `git status`-like commands from refreshing the index, so runs do
// not change what the next one sees.
func cliGit(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// cliCommit is one commit of `git log -z --name-status` output.
type cliCommit struct {
	hash, message string
	changes       []cliChange
}

type cliChange struct {
	status        byte // A, M, D, R, T, ...
	oldPath, path string
}

const cliLogFormat = "--format=%x1e%H%x1f%B%x1f"

// cliLog runs git log with cliLogFormat, -z and --name-status, and
// parses it.
func cliLog(ctx context.Context, dir string, args ...string) ([]cliCommit, error) {
	out, err := cliGit(ctx, dir, nil, append([]string{"log", "-z", "--name-status", cliLogFormat}, args...)...)
	if err != nil {
		return nil, err
	}
	var cs []cliCommit
	for _, chunk := range bytes.Split(out, []byte{0x1e})[1:] {
		parts := bytes.SplitN(chunk, []byte{0x1f}, 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("git log: malformed record %q", chunk)
		}
		c := cliCommit{hash: string(parts[0]), message: string(parts[1])}
		fields := strings.Split(strings.TrimLeft(string(parts[2]), "\x00\n"), "\x00")
		for i := 0; i < len(fields); i++ {
			st := fields[i]
			if st == "" {
				continue
			}
			ch := cliChange{status: st[0]}
			if ch.status == 'R' || ch.status == 'C' {
				if i+2 >= len(fields) {
					return nil, fmt.Errorf("git log: truncated rename in %s", c.hash)
				}
				ch.oldPath, ch.path = fields[i+1], fields[i+2]
				i += 2
			} else {
				if i+1 >= len(fields) {
					return nil, fmt.Errorf("git log: truncated change in %s", c.hash)
				}
				ch.path = fields[i+1]
				i++
			}
			c.changes = append(c.changes, ch)
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// cliHistory is `git log --follow -M --name-status -- path`.
func cliHistory(ctx context.Context, dir, path string) ([]rec, error) {
	cs, err := cliLog(ctx, dir, "--follow", "-M", "HEAD", "--", path)
	if err != nil {
		return nil, err
	}
	out := make([]rec, 0, len(cs))
	for _, c := range cs {
		if len(c.changes) != 1 {
			return nil, fmt.Errorf("git log --follow: %d changes in %s", len(c.changes), c.hash)
		}
		ch := c.changes[0]
		out = append(out, historyRec(c.hash, ch.path, ch.oldPath, ch.status == 'D'))
	}
	return out, nil
}

// cliHistoryFollow follows a memory by path and trailer: git log --follow
// cannot also follow a trailer, so it reads the whole log once with
// rename detection (`git log -M --name-status`) and applies History's
// rules in Go. Where a commit with the trailer adds the path and git
// found no rename at 50%, a single deletion in that commit is the source
// (History takes the most similar deletion, whatever the similarity);
// with several, `git diff-tree -M1%` is asked.
func cliHistoryFollow(ctx context.Context, dir, path, trailer string) ([]rec, error) {
	key, val, _ := strings.Cut(trailer, ":")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	cs, err := cliLog(ctx, dir, "-M", "HEAD")
	if err != nil {
		return nil, err
	}
	// Does the path exist at HEAD? Its newest change says.
	exists := false
	for _, c := range cs {
		if st, _ := touch(c, path); st != 0 {
			exists = st != 'D'
			break
		}
	}
	var out []rec
	for i, c := range cs {
		hasParent := i < len(cs)-1
		matched := hasTrailer(c.message, key, val)
		st, renamedFrom := touch(c, path)
		if st == 0 && !matched {
			continue
		}
		newPath, oldPath := path, ""
		switch {
		case st == 0 && !exists && hasParent:
			// The trailer names a commit that does not have the path:
			// follow the one file it changed.
			if len(c.changes) == 1 && c.changes[0].status != 'D' {
				newPath = c.changes[0].path
			}
		case st == 'R':
			oldPath = renamedFrom
		case st == 'A' && matched && hasParent:
			var dels []string
			for _, ch := range c.changes {
				if ch.status == 'D' {
					dels = append(dels, ch.path)
				}
			}
			switch len(dels) {
			case 0:
			case 1:
				oldPath = dels[0]
			default:
				pairs, err := cliLog(ctx, dir, "-1", "-M1%", c.hash)
				if err != nil {
					return nil, err
				}
				if pst, from := touch(pairs[0], path); pst == 'R' {
					oldPath = from
				}
			}
		}
		out = append(out, historyRec(c.hash, newPath, oldPath, st == 'D'))
		switch {
		case oldPath != "":
			path, exists = oldPath, true
		case newPath != path:
			path, exists = newPath, c.changes[0].status == 'M' || c.changes[0].status == 'T'
		case st == 'A':
			exists = false
		case st == 'D':
			exists = true
		}
	}
	return out, nil
}

// touch reports how commit c changed path: its status letter ('D' also
// when git shows the path renamed away), the path it was renamed from for
// 'R', or 0 if c did not change it.
func touch(c cliCommit, path string) (byte, string) {
	for _, ch := range c.changes {
		switch {
		case ch.path == path && ch.status == 'C':
			return 'A', ""
		case ch.path == path:
			return ch.status, ch.oldPath
		case ch.status == 'R' && ch.oldPath == path:
			return 'D', ""
		}
	}
	return 0, ""
}

func cliTrailerSearch(ctx context.Context, dir, trailer string) ([]rec, error) {
	out, err := cliGit(ctx, dir, nil, "log", "-1", "-E", "--grep=^"+trailer+"$", "--format=%H", "HEAD")
	if err != nil {
		return nil, err
	}
	return []rec{{key: strings.TrimSpace(string(out))}}, nil
}

// cliCatFile reads blobs with one `git cat-file --batch`.
func cliCatFile(ctx context.Context, dir string, hashes []string) ([][]byte, error) {
	in := strings.Join(hashes, "\n") + "\n"
	out, err := cliGit(ctx, dir, strings.NewReader(in), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(bytes.NewReader(out))
	datas := make([][]byte, len(hashes))
	for i := range hashes {
		hdr, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("cat-file: %w", err)
		}
		f := strings.Fields(hdr)
		if len(f) != 3 {
			return nil, fmt.Errorf("cat-file: %q", hdr)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, err
		}
		datas[i] = make([]byte, n)
		if _, err := io.ReadFull(br, datas[i]); err != nil {
			return nil, err
		}
		if _, err := br.Discard(1); err != nil {
			return nil, err
		}
	}
	return datas, nil
}

// cliDiff is `git diff-tree -r -M --raw` for the changes and one
// `git cat-file --batch` for both sides' contents.
func cliDiff(ctx context.Context, dir, base, head, sub string) ([]rec, error) {
	out, err := cliGit(ctx, dir, nil, "diff-tree", "-r", "-z", "-M", "--raw", "--no-abbrev", base, head, "--", sub)
	if err != nil {
		return nil, err
	}
	type raw struct {
		kind           filechange.Kind
		path, oldPath  string
		oldBlob, nBlob string
	}
	var rs []raw
	var hashes []string
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		meta := fields[i]
		if !strings.HasPrefix(meta, ":") {
			continue
		}
		m := strings.Fields(meta) // :old-mode new-mode old-hash new-hash status
		if len(m) != 5 {
			return nil, fmt.Errorf("diff-tree: %q", meta)
		}
		x := raw{oldBlob: m[2], nBlob: m[3]}
		switch m[4][0] {
		case 'A':
			x.kind = filechange.Added
		case 'D':
			x.kind = filechange.Deleted
		case 'R':
			x.kind = filechange.Renamed
		default:
			x.kind = filechange.Modified
		}
		x.oldPath = fields[i+1]
		x.path = x.oldPath
		i++
		if x.kind == filechange.Renamed {
			x.path = fields[i+1]
			i++
		}
		rs = append(rs, x)
		if x.kind != filechange.Added {
			hashes = append(hashes, x.oldBlob)
		}
		if x.kind != filechange.Deleted {
			hashes = append(hashes, x.nBlob)
		}
	}
	datas, err := cliCatFile(ctx, dir, hashes)
	if err != nil {
		return nil, err
	}
	recs := make([]rec, len(rs))
	for i, x := range rs {
		var old, nw []byte
		if x.kind != filechange.Added {
			old, datas = datas[0], datas[1:]
		}
		if x.kind != filechange.Deleted {
			nw, datas = datas[0], datas[1:]
		}
		recs[i] = diffRec(x.kind, x.path, x.oldPath, old, nw)
	}
	return sortRecs(recs), nil
}

// cliDirty is `git diff --name-only HEAD -- dir` (tracked files whose
// work-tree content differs from HEAD) plus `git ls-files -o
// --exclude-standard -- dir` (untracked, not ignored). `git status
// --porcelain` answers a different question (index vs HEAD and work tree
// vs index), so it is not used.
func cliDirty(ctx context.Context, repoDir, dir string) ([]rec, error) {
	changed, err := cliGit(ctx, repoDir, nil, "diff", "--name-only", "-z", "--no-renames", "HEAD", "--", dir)
	if err != nil {
		return nil, err
	}
	untracked, err := cliGit(ctx, repoDir, nil, "ls-files", "-z", "-o", "--exclude-standard", "--", dir)
	if err != nil {
		return nil, err
	}
	var out []rec
	for _, b := range [][]byte{changed, untracked} {
		for p := range strings.SplitSeq(string(b), "\x00") {
			if p != "" {
				out = append(out, rec{key: p})
			}
		}
	}
	return sortRecs(out), nil
}

// cliConfig reads every setting in one `git config --list -z` (includes
// and includeIf applied by git) and takes the last value of each key.
func cliConfig(ctx context.Context, dir string) ([]rec, error) {
	out, err := cliGit(ctx, dir, nil, "config", "--list", "-z")
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for kv := range strings.SplitSeq(string(out), "\x00") {
		k, v, _ := strings.Cut(kv, "\n")
		vals[strings.ToLower(k)] = v
	}
	name := firstNonEmpty(os.Getenv("GIT_AUTHOR_NAME"), vals["author.name"], vals["user.name"])
	email := firstNonEmpty(os.Getenv("GIT_AUTHOR_EMAIL"), vals["author.email"], vals["user.email"], os.Getenv("EMAIL"))
	return configRecs(name, email, vals["core.fsync"], vals["core.excludesfile"]), nil
}

func cliReadFile(ctx context.Context, dir, rev, path string) ([]rec, error) {
	b, err := cliGit(ctx, dir, nil, "cat-file", "blob", rev+":"+path)
	return []rec{{key: path, datas: [][]byte{b}}}, err
}

// cliBlobs lists "mode hash ... \tpath" records (ls-tree -r or
// ls-files -s output) and reads their blobs with one cat-file.
func cliBlobs(ctx context.Context, dir string, listing []byte, hashField int) ([]rec, error) {
	var paths, hashes []string
	for ent := range strings.SplitSeq(string(listing), "\x00") {
		meta, p, ok := strings.Cut(ent, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if f[0] != "100644" && f[0] != "100755" {
			continue
		}
		paths, hashes = append(paths, p), append(hashes, f[hashField])
	}
	datas, err := cliCatFile(ctx, dir, hashes)
	if err != nil {
		return nil, err
	}
	out := make([]rec, len(paths))
	for i := range paths {
		out[i] = rec{key: paths[i], datas: [][]byte{datas[i]}}
	}
	return sortRecs(out), nil
}

func cliWalkTree(ctx context.Context, dir, rev, sub string) ([]rec, error) {
	ls, err := cliGit(ctx, dir, nil, "ls-tree", "-r", "-z", "--full-tree", rev, "--", sub)
	if err != nil {
		return nil, err
	}
	return cliBlobs(ctx, dir, ls, 2)
}

func cliWalkStaged(ctx context.Context, dir, sub string) ([]rec, error) {
	ls, err := cliGit(ctx, dir, nil, "ls-files", "-s", "-z", "--", sub)
	if err != nil {
		return nil, err
	}
	return cliBlobs(ctx, dir, ls, 1)
}

func cliResolveTime(ctx context.Context, dir string, t time.Time) ([]rec, error) {
	out, err := cliGit(ctx, dir, nil, "rev-list", "-1", "--first-parent", "--before="+t.UTC().Format(time.RFC3339), "HEAD")
	return []rec{{key: strings.TrimSpace(string(out))}}, err
}
