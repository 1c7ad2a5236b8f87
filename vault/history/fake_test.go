package history

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/filechange"
	"github.com/memvault/memvault/vault"
)

// fakeRepo is an in-memory Repo with a linear history, for testing the
// package's logic without git; cmd/memvault tests the gitstore adapter
// against real repositories. It follows a path the way gitstore.History
// does on a linear history: a commit is listed when the file changed or
// when its message has the Follow trailer line, and an added file is
// followed to the deleted file it was renamed from (see renameSource).
type fakeRepo struct {
	commits []fakeCommit // oldest first
}

type fakeCommit struct {
	Commit
	files map[string]string // the whole vault at this commit
}

// commit records a commit at when with message msg that writes files
// (path -> content; "" deletes) and returns its id.
func (f *fakeRepo) commit(when time.Time, msg string, files map[string]string) string {
	tree := map[string]string{}
	if n := len(f.commits); n > 0 {
		tree = maps.Clone(f.commits[n-1].files)
	}
	for p, data := range files {
		if data == "" {
			delete(tree, p)
		} else {
			tree[p] = data
		}
	}
	sum := sha1.Sum(fmt.Appendf(nil, "%d\x00%s\x00%v", len(f.commits), msg, when))
	c := fakeCommit{Commit: Commit{Hash: hex.EncodeToString(sum[:]), Author: Signature{"Ada", "ada@example.com"},
		When: when, CommitTime: when, Message: msg}, files: tree}
	f.commits = append(f.commits, c)
	return c.Hash
}

// head returns the files at HEAD.
func (f *fakeRepo) head() map[string]string {
	if len(f.commits) == 0 {
		return nil
	}
	return f.commits[len(f.commits)-1].files
}

// index resolves rev to a position in commits: "", "HEAD" or an id prefix
// of at least 4 characters, then any number of "^" and "~N".
func (f *fakeRepo) index(rev string) (int, error) {
	base, ops := rev, ""
	if i := strings.IndexAny(rev, "^~"); i >= 0 {
		base, ops = rev[:i], rev[i:]
	}
	i := -1
	switch {
	case base == "" || base == "HEAD":
		i = len(f.commits) - 1
	case len(base) >= 4:
		for j, c := range f.commits {
			if strings.HasPrefix(c.Hash, base) {
				i = j
			}
		}
	}
	for ops != "" && i >= 0 {
		n := 1
		op := ops[0]
		ops = ops[1:]
		digits := len(ops) - len(strings.TrimLeft(ops, "0123456789"))
		if op == '~' && digits > 0 {
			n, _ = strconv.Atoi(ops[:digits])
		}
		ops = ops[digits:]
		i -= n
	}
	if i < 0 {
		return 0, fmt.Errorf("resolve %q: %w", rev, ErrNotFound)
	}
	return i, nil
}

func (f *fakeRepo) parentFiles(i int) map[string]string {
	if i == 0 {
		return map[string]string{}
	}
	return f.commits[i-1].files
}

func (f *fakeRepo) Log(ctx context.Context, path string, opts LogOptions) ([]LogEntry, error) {
	i, err := f.index(opts.Rev)
	if err != nil {
		return nil, err
	}
	var out []LogEntry
	for cur := path; i >= 0 && (opts.Limit == 0 || len(out) < opts.Limit); i-- {
		c, parent := f.commits[i], f.parentFiles(i)
		matched := opts.Follow != "" && hasLine(c.Message, opts.Follow)
		now, inNow := c.files[cur]
		was, inWas := parent[cur]
		e := LogEntry{Commit: c.Commit, Path: cur}
		switch {
		case inNow && !inWas:
			if !opts.NoRenames {
				e.OldPath = renameSource(c.files, parent, now, matched)
			}
		case !inNow && inWas:
			e.Deleted = true
		case inNow == inWas && now == was && !matched:
			continue // untouched
		case !inNow && !inWas && !matched:
			continue
		}
		out = append(out, e)
		if e.OldPath != "" {
			cur = e.OldPath
		}
	}
	return out, nil
}

// renameSource is the file of parent a commit renamed to content: a
// deleted file with the same content, else the most similar deleted file
// with at least half its lines in common (git's default threshold), or in
// a commit with the Follow trailer, any deleted file.
func renameSource(files, parent map[string]string, content string, matched bool) string {
	best, bestScore := "", -1.0
	for _, p := range slices.Sorted(maps.Keys(parent)) {
		if _, ok := files[p]; ok {
			continue
		}
		if parent[p] == content {
			return p
		}
		if s := similarity(parent[p], content); s > bestScore {
			best, bestScore = p, s
		}
	}
	if bestScore >= 0.5 || (matched && best != "") {
		return best
	}
	return ""
}

// similarity is the share of lines two texts have in common.
func similarity(a, b string) float64 {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	common := 0
	for _, l := range lb {
		if i := slices.Index(la, l); i >= 0 {
			la = slices.Delete(la, i, i+1)
			common++
		}
	}
	return float64(common) / float64(max(len(strings.Split(a, "\n")), len(lb)))
}

func hasLine(msg, line string) bool {
	return slices.Contains(strings.Split(msg, "\n"), line)
}

func (f *fakeRepo) ReadFile(ctx context.Context, rev, path string) ([]byte, error) {
	i, err := f.index(rev)
	if err != nil {
		return nil, err
	}
	data, ok := f.commits[i].files[path]
	if !ok {
		return nil, fmt.Errorf("%s at %s: %w", path, rev, ErrNotFound)
	}
	return []byte(data), nil
}

func (f *fakeRepo) Walk(ctx context.Context, rev string, fn func(path string, data []byte) error) error {
	i, err := f.index(rev)
	if err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(f.commits[i].files)) {
		if err := fn(p, []byte(f.commits[i].files[p])); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeRepo) Diff(ctx context.Context, base, head string) ([]FileChange, error) {
	a := map[string]string{}
	if base != "" {
		i, err := f.index(base)
		if err != nil {
			return nil, err
		}
		a = f.commits[i].files
	}
	j, err := f.index(head)
	if err != nil {
		return nil, err
	}
	b := f.commits[j].files
	var out []FileChange
	renamed := map[string]bool{} // old paths taken by a rename
	for _, p := range slices.Sorted(maps.Keys(b)) {
		old, ok := a[p]
		switch {
		case !ok:
			c := FileChange{Path: p, Kind: filechange.Added, New: []byte(b[p])}
			if src := renameSource(b, a, b[p], false); src != "" && !renamed[src] {
				renamed[src] = true
				c = FileChange{Path: p, OldPath: src, Kind: filechange.Renamed, Old: []byte(a[src]), New: []byte(b[p])}
			}
			out = append(out, c)
		case old != b[p]:
			out = append(out, FileChange{Path: p, OldPath: p, Kind: filechange.Modified, Old: []byte(old), New: []byte(b[p])})
		}
	}
	for _, p := range slices.Sorted(maps.Keys(a)) {
		if _, ok := b[p]; !ok && !renamed[p] {
			out = append(out, FileChange{Path: p, OldPath: p, Kind: filechange.Deleted, Old: []byte(a[p])})
		}
	}
	return out, nil
}

func (f *fakeRepo) Resolve(ctx context.Context, rev string) (Commit, error) {
	i, err := f.index(rev)
	if err != nil {
		return Commit{}, err
	}
	return f.commits[i].Commit, nil
}

func (f *fakeRepo) ResolveTime(ctx context.Context, t time.Time) (string, error) {
	for i := len(f.commits) - 1; i >= 0; i-- {
		if !f.commits[i].CommitTime.After(t) {
			return f.commits[i].Hash, nil
		}
	}
	return "", fmt.Errorf("no commit at or before %s: %w", t, ErrNotFound)
}

// MergeBase of two commits of a linear history is the older one.
func (f *fakeRepo) MergeBase(ctx context.Context, a, b string) (string, error) {
	i, err := f.index(a)
	if err != nil {
		return "", err
	}
	j, err := f.index(b)
	if err != nil {
		return "", err
	}
	return f.commits[min(i, j)].Hash, nil
}

var _ Repo = (*fakeRepo)(nil)

// checkout writes the files at HEAD into a new vault folder and opens it.
func (f *fakeRepo) checkout(t *testing.T, now time.Time) (string, *vault.Vault) {
	t.Helper()
	dir := t.TempDir()
	for p, data := range f.head() {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := vault.Open(t.Context(), dir, vault.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return dir, v
}
