package gitrepo

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/since"
	"github.com/memvault/memvault/vault/staleness"
)

var _ since.Git = (*Repo)(nil)

// Commits implements since.Git with gitstore.CommitsBetween over the
// vault's folder.
func (g *Repo) Commits(ctx context.Context, base, head string, limit int) ([]since.Commit, bool, error) {
	rcs, more, err := g.store.CommitsBetween(ctx, base, head, g.repoRel(""), limit)
	if err != nil {
		return nil, false, notFound(err)
	}
	out := make([]since.Commit, len(rcs))
	for i, rc := range rcs {
		c := since.Commit{Hash: rc.Hash, Author: rc.Author.Name, Email: rc.Author.Email, When: rc.When, Message: rc.Message,
			Merge: rc.Parents > 1}
		for _, fc := range rc.Changes {
			if rel, ok := g.vaultRel(fc.Path); ok {
				c.Files = append(c.Files, since.File{Path: rel, Old: fc.Old, New: fc.New})
			}
		}
		out[i] = c
	}
	return out, more, nil
}

// SinceLast names the point a client's last session left: what
// `memvault digest` compares from by default.
const SinceLast = "LAST"

// maxSinceCommits bounds the commits a catch-up reads; a longer range is
// reported as More (memvault diff has the rest).
const maxSinceCommits = 500

// CatchUp is one "what changed since" question about a vault.
type CatchUp struct {
	// Client names who asks (an MCP client's clientInfo.name, "cli"):
	// each client has its own last-seen point per clone.
	Client string
	// Since is SinceLast or "" (the client's last session), a date
	// (2006-01-02, or RFC 3339) or a commit.
	Since string
	// Now is when the question is asked: the time of the new point.
	Now time.Time
	// Advance moves the client's point to HEAD and now (the start of a
	// session); only a question about the last session does.
	Advance bool
	// Checker, when set, tells which memories went stale since the last
	// session; nil leaves staleness out.
	Checker *Checker
	// All returns the vault's memories (for staleness and titles).
	All func() []*vault.Memory
}

// ErrBadSince reports a --since that is neither LAST, a date nor a
// commit of the repository.
var ErrBadSince = fault.New(fault.Invalid, "not LAST, a date or a commit")

// CatchUp tells what changed in the vault since q.Since; for the last
// session it also moves the client's point when q.Advance is set. The
// first question of a client in a clone has no point to compare with:
// its report is First and lists nothing.
func (g *Repo) CatchUp(ctx context.Context, q CatchUp) (since.Report, error) {
	head, err := g.Code().Head(ctx)
	if err != nil {
		return since.Report{}, err
	}
	rep := since.Report{Head: head, Changes: []since.Change{}, Stale: []since.WentStale{}}
	last := q.Since == "" || strings.EqualFold(q.Since, SinceLast)
	var prev since.Point
	switch {
	case last:
		p, ok, err := g.LastSeen(q.Client)
		if err != nil {
			return since.Report{}, err
		}
		if !ok {
			rep.First = true
		}
		prev, rep.Base, rep.Since = p, p.Head, p.Seen
	default:
		if rep.Base, err = g.sinceBase(ctx, q.Since); err != nil {
			return since.Report{}, err
		}
	}
	if head != "" && !rep.First && rep.Base != head {
		if _, err := g.store.ReadCommit(ctx, rep.Base); rep.Base != "" && errors.Is(err, gitstore.ErrNotFound) {
			// The point's commit is gone (a rebase and gc): fall back
			// to the commit of that time on HEAD's line.
			switch rep.Base, err = g.store.ResolveTime(ctx, prev.Seen); {
			case errors.Is(err, gitstore.ErrNotFound):
				rep.Base = ""
			case err != nil:
				return since.Report{}, err
			}
		}
		rep.Changes, rep.Commits, rep.More, err = since.Changes(ctx, g, rep.Base, head, maxSinceCommits)
		if err != nil {
			return since.Report{}, err
		}
		if rep.Changes == nil {
			rep.Changes = []since.Change{}
		}
	}
	if !last || q.Checker == nil || q.All == nil {
		return rep, g.advance(q, last, head, nil)
	}
	all := q.All()
	states, err := q.Checker.Check(ctx, q.All, all)
	if err != nil {
		// Staleness is advice: the changes are still told, and the point
		// keeps the old states so the next session tells them.
		return rep, g.advance(q, last, head, prev.NotFresh)
	}
	titles := make(map[string]string, len(all))
	for _, m := range all {
		titles[m.ID] = m.Title
	}
	if !rep.First {
		if w := since.Worse(prev.NotFresh, states, func(id string) string { return titles[id] }); w != nil {
			rep.Stale = w
		}
	}
	return rep, g.advance(q, last, head, since.NotFresh(states))
}

// advance records the new point of q's client when asked to.
func (g *Repo) advance(q CatchUp, last bool, head string, notFresh map[string]staleness.State) error {
	if !last || !q.Advance {
		return nil
	}
	return g.SetLastSeen(q.Client, since.Point{Head: head, Seen: q.Now.UTC(), NotFresh: notFresh})
}

// sinceBase resolves a date or a commit: for a date, the newest commit on
// HEAD's first-parent line at or before it ("" when the history starts
// after it).
func (g *Repo) sinceBase(ctx context.Context, s string) (string, error) {
	for _, layout := range []string{time.DateOnly, time.RFC3339, "2006-01-02T15:04", "2006-01-02 15:04"} {
		t, err := time.ParseInLocation(layout, s, time.Local)
		if err != nil {
			continue
		}
		h, err := g.store.ResolveTime(ctx, t)
		if errors.Is(err, gitstore.ErrNotFound) {
			return "", nil
		}
		return h, err
	}
	h, err := g.store.Resolve(ctx, s)
	if errors.Is(err, gitstore.ErrNotFound) {
		return "", fmt.Errorf("--since %q: %w", s, ErrBadSince)
	}
	return h, err
}

// sessionsFile holds a client's last-seen points, one per vault folder of
// the repository, keyed by the folder relative to the root.
type sessionsFile struct {
	Version int                    `json:"version"`
	Client  string                 `json:"client"`
	Points  map[string]since.Point `json:"points"`
}

// sessionPath is where client's points are kept: in this work tree's own
// git folder (.git/memvault/, or .git/worktrees/NAME/memvault/), so each
// clone and each work tree has its own, and git never sees them.
func (g *Repo) sessionPath(client string) string {
	return filepath.Join(g.store.GitDir(), "memvault", "session-"+ClientFile(client)+".json")
}

// ClientFile turns a client name into a safe file-name component:
// letters, digits, '.', '_' and '-' are kept, anything else becomes '_',
// cut to 48 bytes; a name that changed on the way gets a short hash of
// the original so that two names do not share a file. "" is "mcp".
func ClientFile(client string) string {
	if client == "" {
		client = "mcp"
	}
	var b strings.Builder
	for _, r := range client {
		switch {
		case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 48 {
			break
		}
	}
	out := b.String()
	if out != client || strings.HasPrefix(out, ".") {
		sum := sha256.Sum256([]byte(client))
		out = strings.TrimLeft(out, ".") + fmt.Sprintf("-%x", sum[:4])
	}
	return out
}

// readSessions reads client's points; a missing or damaged file is none.
func (g *Repo) readSessions(client string) sessionsFile {
	f := sessionsFile{Version: 1, Client: client, Points: map[string]since.Point{}}
	data, err := os.ReadFile(g.sessionPath(client))
	if err != nil {
		return f
	}
	var got sessionsFile
	if json.Unmarshal(data, &got) != nil || got.Version != 1 || got.Points == nil {
		return f
	}
	return got
}

// LastSeen returns client's point for this vault; ok is false when the
// client never read the vault in this clone.
func (g *Repo) LastSeen(client string) (p since.Point, ok bool, err error) {
	p, ok = g.readSessions(client).Points[g.prefix]
	return p, ok, nil
}

// SetLastSeen records client's point for this vault, atomically
// (temporary file, rename).
func (g *Repo) SetLastSeen(client string, p since.Point) error {
	f := g.readSessions(client)
	f.Points[g.prefix] = p
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	path := g.sessionPath(client)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("last-seen point: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".session-*")
	if err != nil {
		return fmt.Errorf("last-seen point: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("last-seen point: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("last-seen point: %w", err)
	}
	return nil
}

// PassOwnWrite moves client's point over commit, a write the client's
// session has just made, when no other commit changed the vault between
// the point and it: a session's own writes are not news to its next
// session. A client without a point (it never read memory://context)
// has nothing to move.
func (g *Repo) PassOwnWrite(ctx context.Context, client, commit string) error {
	p, ok, err := g.LastSeen(client)
	if err != nil || !ok || p.Head == "" || p.Head == commit {
		return err
	}
	cs, more, err := g.store.CommitsBetween(ctx, p.Head, commit, g.repoRel(""), 2)
	if err != nil {
		return err
	}
	if more || len(cs) != 1 || cs[0].Hash != commit {
		return nil
	}
	p.Head = commit
	return g.SetLastSeen(client, p)
}
