package mcpserver

import (
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	catchup "github.com/memvault/memvault/vault/since"
	"github.com/memvault/memvault/vault/staleness"
)

// legacyProtocol is a protocol version before 2026-07-28: the client
// answers roots/list requests and sends resources/subscribe, as Claude
// Code and Cursor do today.
const legacyProtocol = "2025-06-18"

// testClock is a clock the test moves; calls read it concurrently.
type testClock struct{ unixNano atomic.Int64 }

func newClock(t time.Time) *testClock {
	c := &testClock{}
	c.set(t)
	return c
}

func (c *testClock) Now() time.Time  { return time.Unix(0, c.unixNano.Load()).UTC() }
func (c *testClock) set(t time.Time) { c.unixNano.Store(t.UnixNano()) }

// commits records what a vault committed, as a repository would: one
// message per commit, newest last, under a fake hash.
type commits struct {
	mu   sync.Mutex
	msgs []string
}

func (c *commits) Lock(context.Context) (func(), error) { c.mu.Lock(); return c.mu.Unlock, nil }

// Commit records message; the caller holds the lock.
func (c *commits) Commit(_ context.Context, _ []string, message string) (string, error) {
	c.msgs = append(c.msgs, message)
	sum := sha1.Sum(fmt.Appendf(nil, "%d %s", len(c.msgs), message))
	return hex.EncodeToString(sum[:]), nil
}

// count is how many commits were made.
func (c *commits) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.msgs)
}

// last is the newest commit's message.
func (c *commits) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.msgs) == 0 {
		return ""
	}
	return c.msgs[len(c.msgs)-1]
}

// loaded serves a vault that is open already.
type loaded struct{ v *vault.Vault }

func (l loaded) Ready(context.Context) (*vault.Vault, error) { return l.v, nil }
func (l loaded) Loaded() (*vault.Vault, bool, error)         { return l.v, true, nil }
func (l loaded) NoteOwnCommit(string)                        {}

// fakeRepo is the repository of a test vault: a fixed HEAD, each
// memory's story as given, the vault itself for any as-of.
type fakeRepo struct {
	v       *vault.Vault
	stories map[string]*history.Story
	// tv, when set, is the test vault whose news CatchUp reports.
	tv *testVault
}

func (r fakeRepo) Head(context.Context) (string, error) { return strings.Repeat("ab", 20), nil }

func (r fakeRepo) History(_ context.Context, id string, cur *vault.Memory) (*history.Story, error) {
	if s, ok := r.stories[id]; ok {
		s.Current = cur
		return s, nil
	}
	if cur != nil {
		return &history.Story{ID: id, Title: cur.Title, Path: cur.Path, Current: cur}, nil
	}
	return nil, fmt.Errorf("%w: %s", vault.ErrNotFound, id)
}

func (r fakeRepo) AsOf(context.Context, time.Time) (*vault.Vault, error) { return r.v, nil }

// Staleness reports no refs checked: the fake has no code history.
func (r fakeRepo) Staleness(ctx context.Context, ms []*vault.Memory) (map[string]staleness.Staleness, error) {
	if r.tv != nil && r.tv.staleness != nil {
		return r.tv.staleness(ctx, ms)
	}
	return nil, nil
}

// CatchUp reports news when the test gave some, else a first session.
func (r fakeRepo) CatchUp(_ context.Context, client string) (catchup.Report, error) {
	if r.tv != nil {
		r.tv.asked = append(r.tv.asked, client)
		if r.tv.news != nil {
			return *r.tv.news, nil
		}
	}
	return catchup.Report{First: true}, nil
}

// PassOwnWrite has no point to move: the fake has no history.
func (r fakeRepo) PassOwnWrite(context.Context, string, string) error { return nil }

// testVault is one vault of a test server.
type testVault struct {
	v       *vault.Vault
	commits *commits
	// stories are the histories its fake repository tells.
	stories map[string]*history.Story
	// news is what its fake repository's CatchUp reports; asked, who
	// asked.
	news  *catchup.Report
	asked []string
	// staleness, when set, answers its fake repository's Staleness.
	staleness func(ctx context.Context, ms []*vault.Memory) (map[string]staleness.Staleness, error)
}

// testServer is a Server over vaults in temporary folders, at clock's
// time, with its in-process client (named "unit").
type testServer struct {
	*Server
	c             *client.Client
	clock         *testClock
	project, user *testVault // user is nil without a user vault
}

// serverOptions say how to build a test server.
type serverOptions struct {
	user          bool          // serve a user vault too
	protocol      string        // "" is the newest
	recallTimeout time.Duration // Config.RecallTimeout
}

func newTestServer(t *testing.T, clock *testClock, o serverOptions) *testServer {
	t.Helper()
	ts := &testServer{clock: clock, project: openTestVault(t, clock)}
	cfg := Config{Version: "test", Now: clock.Now, ProjectDir: ts.project.v.Dir(), RecallTimeout: o.recallTimeout, CheckOutput: true}
	if o.user {
		ts.user = openTestVault(t, clock)
		cfg.UserDir = ts.user.v.Dir()
	}
	cfg.Open = func(name, dir string, changed func(vault.Change)) Served {
		tv := ts.project
		if name == vault.UserVault {
			tv = ts.user
		}
		t.Cleanup(tv.v.Subscribe(changed))
		return Served{Vault: loaded{tv.v}, Git: fakeRepo{v: tv.v, stories: tv.stories, tv: tv}}
	}
	ts.Server = New(cfg)
	ts.c = connect(t, ts.Server, o.protocol, nil)
	return ts
}

func openTestVault(t *testing.T, clock *testClock) *testVault {
	t.Helper()
	c := &commits{}
	v, err := vault.Open(t.Context(), filepath.Join(t.TempDir(), ".memory"), vault.Options{Now: clock.Now, Committer: c, Client: "mcp"})
	if err != nil {
		t.Fatal(err)
	}
	return &testVault{v: v, commits: c, stories: map[string]*history.Story{}}
}

// connect connects mcp-go's in-process client (named "unit") to s and
// initializes it with the given protocol version ("" is the newest). With
// roots, the client declares the roots capability and answers with it.
func connect(t *testing.T, s *Server, protocol string, roots client.RootsHandler) *client.Client {
	t.Helper()
	var opts []client.ClientOption
	if roots != nil {
		opts = append(opts, client.WithRootsHandler(roots))
	}
	c, err := client.NewInProcessClientWithOptions(s.mcp, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c, "unit", protocol, roots != nil)
	return c
}

// initialize initializes c as the client called name, of protocol ("" is
// the newest), declaring the roots capability when asked to.
func initialize(t *testing.T, c *client.Client, name, protocol string, roots bool) {
	t.Helper()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = cmp.Or(protocol, mcp.LATEST_PROTOCOL_VERSION)
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if roots {
		init.Params.Capabilities.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
	}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// callTool calls a tool; a protocol error fails the test.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return res, b.String()
}

// mustCall calls a tool that must succeed and decodes its structured
// answer into a T.
func mustCall[T any](t *testing.T, c *client.Client, name string, args map[string]any) T {
	t.Helper()
	res, text := callTool(t, c, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): %s", name, args, text)
	}
	var out T
	decodeStructured(t, res, &out)
	return out
}

// decodeStructured decodes a tool result's structuredContent into out.
func decodeStructured(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
}

// readResource reads a resource's text.
func readResource(t *testing.T, c *client.Client, uri string) (string, error) {
	t.Helper()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.ReadResource(t.Context(), req)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, rc := range res.Contents {
		if tc, ok := rc.(mcp.TextResourceContents); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), nil
}

// add writes a memory straight into a vault.
func (tv *testVault) add(t *testing.T, n vault.NewMemory) string {
	t.Helper()
	res, err := tv.v.Create(t.Context(), n, vault.Author{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory.ID
}

// listedTools returns each tool as tools/list shows it to c, as JSON.
func listedTools(t *testing.T, c *client.Client) map[string]json.RawMessage {
	t.Helper()
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = b
	}
	return out
}
