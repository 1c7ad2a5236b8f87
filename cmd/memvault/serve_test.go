package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
)

// Names of the served vaults, as results report them.
const (
	projectScope = vault.ProjectVault
	userScope    = vault.UserVault
)

// testClock is a clock the test moves; calls read it concurrently.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// serveInProcess runs `memvault serve --no-user-vault args...` in this
// process at now's time, with mcp-go's client on pipes where the client
// of a real server has the process's standard input and output: the
// whole command runs, git and the file watcher included. It returns the
// initialized client; the server ends with the test.
func serveInProcess(t *testing.T, now func() time.Time, args ...string) *client.Client {
	t.Helper()
	return serveAs(t, now, "", "unit", append([]string{"--no-user-vault"}, args...)...)
}

// serveAs runs `memvault serve args...` in this process at now's time,
// with HOME at home when it is set, and returns mcp-go's client
// initialised as clientName; the server ends with the test.
func serveAs(t *testing.T, now func() time.Time, home, clientName string, args ...string) *client.Client {
	t.Helper()
	holdStdio(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr lockedBuffer
	m := NewMain(inR, outW, &stderr)
	m.Now = now
	if home != "" {
		m.Getenv = func(k string) string {
			if k == "HOME" {
				return home
			}
			return os.Getenv(k)
		}
	}
	done := make(chan int, 1)
	go func() {
		done <- m.Run(context.Background(), append([]string{"serve"}, args...))
		outW.Close()
	}()
	c := client.NewClient(transport.NewIO(outR, inW, nil))
	t.Cleanup(func() {
		c.Close() // closes the server's standard input: it ends
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d:\n%s", code, stderr.String())
		}
	})
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initClient(t, c, "", clientName, false)
	return c
}

// gitServer is `memvault serve` on a fresh repository, in process.
type gitServer struct {
	c       *client.Client
	project string // repository root of the project vault
	callT   *testing.T
	clock   *testClock
}

func newGitServer(t *testing.T, clock *testClock) *gitServer {
	t.Helper()
	g := &gitServer{project: newRepo(t), callT: t, clock: clock}
	g.c = serveInProcess(t, clock.Now, "--vault", filepath.Join(g.project, ".memory"))
	return g
}

// ok calls a tool that must succeed and decodes its structured result.
func (g *gitServer) ok(name string, args map[string]any, out any) string {
	g.callT.Helper()
	return (&mcpSession{t: g.callT, c: g.c}).ok(name, args, out)
}

// TestRecallAsOfReadsTheVaultFromGit checks recall's as_of through the
// whole serve command: before now it reads the vault as git recorded it.
func TestRecallAsOfReadsTheVaultFromGit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &testClock{now: t0}
	g := newGitServer(t, clock)

	var w view.Write
	g.ok("remember", map[string]any{"title": "Deploy script", "content": "Deploy with ops/old-deploy.sh."}, &w)
	clock.set(t0.Add(30 * 24 * time.Hour))
	g.ok("update_memory", map[string]any{"id": w.ID, "expected_version": 1, "content": "Deploy with ops/deploy.sh.", "reason": "script renamed"}, nil)
	clock.set(t0.Add(60 * 24 * time.Hour))

	tests := []struct {
		name, asOf  string
		wantSnippet string // "" means no result
	}{
		{"now", "", "ops/deploy.sh"},
		{"between the commits: the text then", "2026-03-15", "ops/old-deploy.sh"},
		{"after the update", "2026-04-15", "ops/deploy.sh"},
		{"before the first commit: nothing yet", "2026-02-01", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"query": "deploy script"}
			if tc.asOf != "" {
				args["as_of"] = tc.asOf
			}
			var out view.Recall
			g.callT = t
			g.ok("recall", args, &out)
			if tc.wantSnippet == "" {
				if len(out.Results) != 0 {
					t.Errorf("as_of %s: got %+v, want nothing", tc.asOf, out.Results)
				}
				return
			}
			if len(out.Results) != 1 || !strings.Contains(out.Results[0].Snippet, tc.wantSnippet) {
				t.Fatalf("as_of %s: got %+v, want one result with %q", tc.asOf, out.Results, tc.wantSnippet)
			}
			if tc.wantSnippet == "ops/deploy.sh" && strings.Contains(out.Results[0].Snippet, "old-deploy") {
				t.Errorf("as_of %s: snippet %q is the old text", tc.asOf, out.Results[0].Snippet)
			}
		})
	}
	t.Run("memory_history tells it from git", func(t *testing.T) {
		var h view.History
		g.callT = t
		g.ok("memory_history", map[string]any{"id": w.ID}, &h)
		if len(h.Revisions) != 2 || h.Revisions[0].Reason != "script renamed" || h.Revisions[0].Client != "unit" || h.Vault != projectScope {
			t.Errorf("history = %+v, want the update by unit then the add", h)
		}
	})
}

func TestServeOutsideGitFailsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb strings.Builder
	m := NewMain(strings.NewReader(""), &out, &errb)
	code := m.Run(context.Background(), []string{"serve", "--vault", dir + "/.memory"})
	if code == 0 {
		t.Fatalf("exit 0, want a failure outside git")
	}
	if out.Len() != 0 {
		t.Errorf("stdout = %q, want nothing (it carries only protocol)", out.String())
	}
	if !strings.Contains(errb.String(), "not inside a git repository") {
		t.Errorf("stderr = %q, want it to say the folder is not in a git repository", errb.String())
	}
}

// Resources the server offers.
const (
	contextURI      = "memory://context"
	memoryURIPrefix = "memory://memories/"
)

// initClient initializes c as the client called name, of protocol
// ("" is the newest), declaring the roots capability when roots is set.
// newStdioClient spawns bin with args and returns an MCP client on its
// stdio. The server speaks the newest protocol, so the client's probe for
// it gets no bound of its own (mcp-go's default is 5 s): a race build
// starting on a loaded machine once answered later than that, the client
// fell back to the legacy handshake, and a test of the newest protocol
// failed at subscriptions/listen. initClient's 30 s context still bounds it.
func newStdioClient(bin string, env []string, args ...string) (*client.Client, error) {
	tr := transport.NewStdio(bin, env, args...)
	if err := tr.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	return client.NewClient(tr, client.WithDiscoverTimeout(-1)), nil
}

func initClient(tb testing.TB, c *client.Client, protocol, name string, roots bool) *mcp.InitializeResult {
	tb.Helper()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = cmp.Or(protocol, mcp.LATEST_PROTOCOL_VERSION)
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1.0"}
	if roots {
		init.Params.Capabilities.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Initialize(ctx, init)
	if err != nil {
		tb.Fatalf("initialize: %v", err)
	}
	return res
}

// stdioGate lets one test at a time run in-process stdio servers:
// mcp-go keeps the stdio session (client info, the notification channel,
// the writer for server requests) in a package variable, so two stdio
// servers in one process read each other's client and can take each
// other's notifications. A real server is one process per client; in
// tests, concurrent servers of one test share a client name and are
// allowed (the gate is held per top-level test, subtests included).
type stdioGate struct {
	mu    sync.Mutex
	free  *sync.Cond
	owner string
	held  int
}

var inProcessStdio = func() *stdioGate { g := &stdioGate{}; g.free = sync.NewCond(&g.mu); return g }()

// holdStdio waits until no other test runs an in-process stdio server,
// and lets the others wait until t's servers have stopped (cleanups run
// last-in first-out, so call it before starting the server).
func holdStdio(t *testing.T) {
	g := inProcessStdio
	top, _, _ := strings.Cut(t.Name(), "/")
	g.mu.Lock()
	for g.owner != "" && g.owner != top {
		g.free.Wait()
	}
	g.owner = top
	g.held++
	g.mu.Unlock()
	t.Cleanup(func() {
		g.mu.Lock()
		if g.held--; g.held == 0 {
			g.owner = ""
			g.free.Broadcast()
		}
		g.mu.Unlock()
	})
}
