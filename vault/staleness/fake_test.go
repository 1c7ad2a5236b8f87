package staleness

import (
	"context"
	"crypto/sha1"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/memvault/memvault/filechange"
)

// fakeGit is a linear history of whole trees, with exact-content rename
// detection, and a work tree.
type fakeGit struct {
	commits []fakeCommit // oldest first
	work    map[string]string
	blobs   map[string]string
	walks   int // Walk calls
	visited int // commits visited by Walk
}

type fakeCommit struct {
	id, subject string
	time        time.Time
	files       map[string]string
}

// fakeT0 is the time of a fake history's first commit; each next commit
// is a minute later.
var fakeT0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// memorySince is the time of the last commit whose subject starts with
// "memory:", as a memory's updated_at or verified_at would say.
func (g *fakeGit) memorySince() time.Time {
	for i := len(g.commits) - 1; i >= 0; i-- {
		if strings.HasPrefix(g.commits[i].subject, "memory:") {
			return g.commits[i].time
		}
	}
	return time.Time{}
}

func newFakeGit() *fakeGit { return &fakeGit{work: map[string]string{}, blobs: map[string]string{}} }

func (g *fakeGit) blobID(content string) string {
	id := fmt.Sprintf("%x", sha1.Sum([]byte(content)))
	g.blobs[id] = content
	return id
}

// commit applies edits (content "" deletes) to the last tree, as a new
// commit, and makes the work tree match it.
func (g *fakeGit) commit(subject string, edits map[string]string) string {
	files := map[string]string{}
	if n := len(g.commits); n > 0 {
		files = maps.Clone(g.commits[n-1].files)
	}
	for p, c := range edits {
		if c == "" {
			delete(files, p)
		} else {
			files[p] = c
		}
	}
	id := fmt.Sprintf("%x", sha1.Sum([]byte(fmt.Sprint(len(g.commits), subject))))
	g.commits = append(g.commits, fakeCommit{id, subject, fakeT0.Add(time.Duration(len(g.commits)) * time.Minute), files})
	g.work = maps.Clone(files)
	return id
}

// rename moves a file in a new commit.
func (g *fakeGit) rename(subject, from, to string) string {
	c := g.commits[len(g.commits)-1].files[from]
	return g.commit(subject, map[string]string{from: "", to: c})
}

func under(p string, prefixes []string) bool {
	for _, x := range prefixes {
		if x == "" || p == x || strings.HasPrefix(p, x+"/") {
			return true
		}
	}
	return false
}

func (g *fakeGit) diff(a, b map[string]string, prefixes []string) []Change {
	var out []Change
	added := map[string]string{} // content -> path
	for p, c := range b {
		if _, ok := a[p]; !ok {
			added[c] = p
		}
	}
	for _, p := range slices.Sorted(maps.Keys(a)) {
		old := a[p]
		cur, ok := b[p]
		switch {
		case !ok:
			if to, ok := added[old]; ok && under(p, prefixes) {
				out = append(out, Change{Kind: filechange.Renamed, Path: to, OldPath: p, OldBlob: g.blobID(old), NewBlob: g.blobID(old)})
				delete(added, old)
			} else if under(p, prefixes) {
				out = append(out, Change{Kind: filechange.Deleted, Path: p, OldPath: p, OldBlob: g.blobID(old)})
			}
		case cur != old && under(p, prefixes):
			out = append(out, Change{Kind: filechange.Modified, Path: p, OldPath: p, OldBlob: g.blobID(old), NewBlob: g.blobID(cur)})
		}
	}
	for c, p := range added {
		if under(p, prefixes) {
			out = append(out, Change{Kind: filechange.Added, Path: p, NewBlob: g.blobID(c)})
		}
	}
	return out
}

func (g *fakeGit) index(id string) int {
	for i, c := range g.commits {
		if c.id == id {
			return i
		}
	}
	return -1
}

func (g *fakeGit) Head(context.Context) (string, error) {
	if len(g.commits) == 0 {
		return "", nil
	}
	return g.commits[len(g.commits)-1].id, nil
}

func (g *fakeGit) Walk(_ context.Context, head, stop string, prefixes []string, fn func(Commit) error) error {
	g.walks++
	for i := g.index(head); i >= 0; i-- {
		c := g.commits[i]
		if c.id == stop {
			return nil
		}
		g.visited++
		var parent map[string]string
		if i > 0 {
			parent = g.commits[i-1].files
		}
		if err := fn(Commit{ID: c.id, Subject: c.subject, Time: c.time, Changes: g.diff(parent, c.files, prefixes)}); err != nil {
			return err
		}
	}
	if stop != "" {
		return ErrNotAncestor
	}
	return nil
}

func (g *fakeGit) Uncommitted(_ context.Context, prefixes []string) ([]Change, error) {
	var head map[string]string
	if len(g.commits) > 0 {
		head = g.commits[len(g.commits)-1].files
	}
	var out []Change
	for _, p := range slices.Sorted(maps.Keys(head)) {
		if !under(p, prefixes) {
			continue
		}
		w, ok := g.work[p]
		switch {
		case !ok:
			out = append(out, Change{Kind: filechange.Deleted, Path: p, OldPath: p, OldBlob: g.blobID(head[p])})
		case w != head[p]:
			out = append(out, Change{Kind: filechange.Modified, Path: p, OldPath: p, OldBlob: g.blobID(head[p])})
		}
	}
	for p := range g.work {
		if _, ok := head[p]; !ok && under(p, prefixes) {
			out = append(out, Change{Kind: filechange.Added, Path: p})
		}
	}
	return out, nil
}

func (g *fakeGit) Exists(_ context.Context, rev string, paths []string) (map[string]bool, error) {
	files := g.commits[g.index(rev)].files
	out := map[string]bool{}
	for _, p := range paths {
		for f := range files {
			if f == p || strings.HasPrefix(f, p+"/") {
				out[p] = true
			}
		}
	}
	return out, nil
}

func (g *fakeGit) Blob(_ context.Context, id string) ([]byte, error) {
	if id == "" {
		return nil, nil
	}
	c, ok := g.blobs[id]
	if !ok {
		return nil, fmt.Errorf("no blob %s", id)
	}
	return []byte(c), nil
}

func (g *fakeGit) WorkFile(_ context.Context, p string) ([]byte, error) {
	c, ok := g.work[p]
	if !ok {
		return nil, fmt.Errorf("%s: no such file", p)
	}
	return []byte(c), nil
}
