package teamsync

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memvault/memvault/vault/resolve"
)

// gitIn runs git in dir for a test.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := CLI{Dir: dir}.Run(t.Context(), nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// clones makes a bare origin with one commit and n clones of it, each
// with its own identity.
func clones(t *testing.T, n int) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	origin := filepath.Join(root, "origin.git")
	gitIn(t, root, "init", "-q", "--bare", "-b", "main", origin)
	var out []string
	for i := range n {
		dir := filepath.Join(root, string(rune('a'+i)))
		gitIn(t, root, "clone", "-q", origin, dir)
		gitIn(t, dir, "config", "user.name", "Test")
		gitIn(t, dir, "config", "user.email", "test@example.com")
		if i == 0 {
			commitFile(t, dir, "README", "start\n")
			gitIn(t, dir, "push", "-q", "origin", "main")
		} else {
			gitIn(t, dir, "pull", "-q", "origin", "main")
		}
		out = append(out, dir)
	}
	return out
}

func commitFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", name)
	gitIn(t, dir, "commit", "-q", "-m", "change "+name)
}

// racingGit is the git command, with another clone pushing a commit just
// before each of the first races pushes: the remote moved meanwhile.
type racingGit struct {
	CLI
	races  int
	before func(n int)
	pushes int
}

func (g *racingGit) Run(ctx context.Context, env []string, args ...string) (string, error) {
	if slices.Contains(args, "push") {
		g.pushes++
		if g.pushes <= g.races {
			g.before(g.pushes)
		}
	}
	return g.CLI.Run(ctx, env, args...)
}

// syncer is a Syncer over real git with the vault's steps stubbed: no
// memory file is involved.
func syncer(t *testing.T, git Git) *Syncer {
	return &Syncer{
		Git:     git,
		Driver:  "false",
		Commit:  func(context.Context) (string, error) { return "", nil },
		Resolve: func(context.Context) ([]resolve.Resolved, error) { t.Error("resolve called"); return nil, nil },
		Lint:    func(context.Context) (Lint, error) { return Lint{}, nil },
	}
}

// TestSyncRetriesWhenTheRemoteMoves: a push refused because another clone
// pushed meanwhile is retried after a new fetch and merge, at most
// Attempts rounds; then the error names the push step.
func TestSyncRetriesWhenTheRemoteMoves(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	for _, tc := range []struct {
		races, attempts int
		pushed          bool
	}{
		{races: 1, attempts: 2, pushed: true},
		{races: 3, attempts: 3, pushed: false},
	} {
		dirs := clones(t, 2)
		a, b := dirs[0], dirs[1]
		commitFile(t, a, "a.txt", "a\n")
		g := &racingGit{CLI: CLI{Dir: a}, races: tc.races, before: func(n int) {
			commitFile(t, b, "b.txt", strings.Repeat("b\n", n))
			gitIn(t, b, "push", "-q", "origin", "main")
		}}
		s := syncer(t, g)
		s.Rebase = tc.races == 1
		rep, err := s.Run(t.Context())
		if rep.Attempts != tc.attempts || rep.Pushed != tc.pushed {
			t.Errorf("races %d: attempts %d pushed %v, want %d %v (err %v)", tc.races, rep.Attempts, rep.Pushed, tc.attempts, tc.pushed, err)
		}
		var se *StepError
		if tc.pushed && err != nil || !tc.pushed && (!errors.As(err, &se) || se.Step != StepPush || !strings.Contains(err.Error(), "the remote moved again at each of 3 attempts")) {
			t.Errorf("races %d: err = %v", tc.races, err)
		}
		if tc.pushed {
			gitIn(t, b, "fetch", "-q")
			if log := gitIn(t, b, "log", "--format=%s", "origin/main"); !strings.Contains(log, "change a.txt") || !strings.Contains(log, "change b.txt") {
				t.Errorf("origin after the sync:\n%s", log)
			}
		}
	}
}

// TestSyncNamesTheStepThatFailed: a remote that is not there fails the
// fetch step; nothing is pushed.
func TestSyncNamesTheStepThatFailed(t *testing.T) {
	a := clones(t, 1)[0]
	s := syncer(t, CLI{Dir: a})
	s.Remote = "nowhere"
	_, err := s.Run(t.Context())
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepFetch || !strings.HasPrefix(err.Error(), "fetch: git fetch") {
		t.Errorf("err = %v, want a fetch step error", err)
	}
}

// watchedGit is the git command, recording for each command whether the
// write lock was held.
type watchedGit struct {
	CLI
	held *bool
	ran  []string
}

func (g *watchedGit) Run(ctx context.Context, env []string, args ...string) (string, error) {
	verb := args[0]
	for i := 0; i+1 < len(args) && args[i] == "-c"; i += 2 {
		verb = args[i+2]
	}
	if *g.held {
		verb += " (locked)"
	}
	g.ran = append(g.ran, verb)
	return g.CLI.Run(ctx, env, args...)
}

// TestSyncHoldsTheWriteLockAroundTheMerge: the commit step and the
// merge's publication run under the write lock a server's writes take,
// the commit step with the holder's context (doctor --fix takes the lock
// again with it); fetch, push and the merge itself (git merge-tree, where
// the merge driver runs: issue 27 finding 2) do not.
func TestSyncHoldsTheWriteLockAroundTheMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs git, 0.3 s or more alone: runs without -short, as CI does")
	}
	dirs := clones(t, 2)
	a, b := dirs[0], dirs[1]
	commitFile(t, a, "a.txt", "a\n")
	commitFile(t, b, "b.txt", "b\n")
	gitIn(t, b, "push", "-q", "origin", "main")
	held, locks := false, 0
	g := &watchedGit{CLI: CLI{Dir: a}, held: &held}
	s := syncer(t, g)
	type mark struct{}
	s.Commit = func(ctx context.Context) (string, error) {
		if !held || ctx.Value(mark{}) == nil {
			t.Error("commit step outside the sync's lock, or without the holder's context")
		}
		return "", nil
	}
	s.Lock = func(ctx context.Context) (context.Context, func(), error) {
		if held {
			t.Error("lock taken twice")
		}
		held = true
		locks++
		return context.WithValue(ctx, mark{}, true), func() { held = false }, nil
	}
	rep, err := s.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Merged || !rep.Pushed || !rep.PushedNew {
		t.Errorf("merged %v pushed %v pushed new commits %v, want all", rep.Merged, rep.Pushed, rep.PushedNew)
	}
	want := map[string]bool{"fetch": true, "merge-tree": true, "merge (locked)": true, "push": true}
	for _, c := range g.ran {
		delete(want, c)
		if c == "fetch (locked)" || c == "push (locked)" || c == "merge-tree (locked)" {
			t.Errorf("%s: the step holds the write lock", c)
		}
	}
	if len(want) > 0 || locks != 2 || held {
		t.Errorf("commands %v (missing %v), %d lock(s), held at the end %v", g.ran, want, locks, held)
	}
	// Nothing new on either side: no merge, so the lock for the commit
	// step only, and a push that brings nothing.
	if rep, err = s.Run(t.Context()); err != nil || rep.Merged || !rep.Pushed || rep.PushedNew || locks != 3 {
		t.Errorf("second sync: merged %v pushed %v new %v, %d lock(s), err %v", rep.Merged, rep.Pushed, rep.PushedNew, locks, err)
	}
}

// silentRemote listens on a local TCP port, accepts every connection and
// never answers; it returns a git:// URL to it.
func silentRemote(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no local TCP listener:", err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read nor written
			mu.Unlock()
		}
	}()
	return "git://" + ln.Addr().String() + "/team.git"
}

// TestSyncGivesUpOnASilentRemote (issue 27 finding 8): a remote that
// accepts the connection and never answers fails the fetch, and the
// push, once NetworkTimeout passes, with an error that says so; it no
// longer hangs the sync.
func TestSyncGivesUpOnASilentRemote(t *testing.T) {
	t.Parallel()
	for _, step := range []string{StepFetch, StepPush} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			a := clones(t, 1)[0]
			url := silentRemote(t)
			if step == StepFetch {
				gitIn(t, a, "remote", "set-url", "origin", url)
			} else {
				gitIn(t, a, "remote", "set-url", "--push", "origin", url)
			}
			commitFile(t, a, "a.txt", "a\n")
			var g Git = CLI{Dir: a}
			if step == StepPush {
				// No fetch from the real origin: its time on a loaded
				// machine is not what the timeout is about.
				g = noBranchYet{CLI{Dir: a}}
			}
			s := syncer(t, g)
			s.NetworkTimeout = 300 * time.Millisecond
			_, err := s.Run(t.Context())
			var se *StepError
			if !errors.As(err, &se) || se.Step != step || !errors.Is(err, ErrNetworkTimeout) ||
				!strings.Contains(err.Error(), "no answer from the remote within 300ms (--network-timeout, $MEMVAULT_NETWORK_TIMEOUT)") {
				t.Errorf("err = %v, want the %s step to time out", err, step)
			}
		})
	}
}

// noBranchYet is the git command with a remote that has no branch yet:
// every fetch finds no remote ref, at once.
type noBranchYet struct{ CLI }

func (g noBranchYet) Run(ctx context.Context, env []string, args ...string) (string, error) {
	if args[0] == "fetch" {
		return "", &GitError{Args: args, Code: 128, Stderr: "fatal: couldn't find remote ref main"}
	}
	return g.CLI.Run(ctx, env, args...)
}
