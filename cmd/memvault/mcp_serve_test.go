package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/vault"
)

// testClock is a clock the test moves; tool calls read it concurrently.
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

// gitServer serves git-backed project (and, with user, user) vaults
// through the same wiring as memvault serve, in process, at clock's time.
type gitServer struct {
	c            *client.Client
	project      string // repository root of the project vault
	user         string // the user vault's folder (a repository root); "" without one
	callT        *testing.T
	clock        *testClock
	projectSlot  *vaultSlot
	userSlotSeen *vaultSlot
}

func newGitServer(t *testing.T, clock *testClock, withUser bool) *gitServer {
	t.Helper()
	isolateGit(t)
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	m := NewMain(strings.NewReader(""), io.Discard, io.Discard)
	m.Now = clock.Now
	m.logger = logger
	g := &gitServer{project: newRepo(t), callT: t, clock: clock}
	notify := newNotifier(logger)
	open := func(name, dir string) *vaultSlot {
		o := m.openServedVault(ctx, name, dir, logger, notify)
		t.Cleanup(o.close)
		return o.slot
	}
	tools := &mcpTools{logger: logger, notify: notify, now: clock.Now, project: fixedDiscovery(open(projectScope, filepath.Join(g.project, ".memory")))}
	if withUser {
		g.user = newRepo(t)
		tools.user = open(userScope, g.user)
	}
	hooks := &server.Hooks{}
	notify.hook(hooks)
	s := server.NewMCPServer("memvault", serverVersion, server.WithToolCapabilities(false), server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(false), server.WithHooks(hooks), server.WithOutputSchemaValidation())
	notify.srv = s
	tools.register(s)
	c := connectInProcess(t, s, legacyProtocol)
	g.c = c
	return g
}

// ok calls a tool that must succeed and decodes its structured result.
func (g *gitServer) ok(name string, args map[string]any, out any) string {
	t := g.callT
	t.Helper()
	res, text := callTool(t, g.c, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): %s", name, args, text)
	}
	if out != nil {
		decodeStructured(t, res, out)
	}
	return text
}

func TestRecallAsOfReadsTheVaultFromGit(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &testClock{now: t0}
	g := newGitServer(t, clock, false)

	var w writeOutput
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
			var out recallOutput
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
}

func TestRememberScope(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	g := newGitServer(t, clock, true)
	tests := []struct {
		name      string
		args      map[string]any
		wantVault string
	}{
		{"preference goes to the user vault", map[string]any{"layer": "preference"}, userScope},
		{"preference with scope project", map[string]any{"layer": "preference", "scope": "project"}, projectScope},
		{"project rule", map[string]any{}, projectScope},
		{"project rule with scope user", map[string]any{"scope": "USER"}, userScope},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g.callT = t
			args := map[string]any{"title": "Rule " + string(rune('A'+i)), "content": "Body " + tc.name}
			for k, v := range tc.args {
				args[k] = v
			}
			var w writeOutput
			g.ok("remember", args, &w)
			if w.Vault != tc.wantVault {
				t.Errorf("vault = %q, want %q", w.Vault, tc.wantVault)
			}
			root := g.project
			if tc.wantVault == userScope {
				root = g.user
			}
			if cs := repoCommits(t, root); len(cs) == 0 || cs[0].Hash != w.Commit {
				t.Errorf("commit %s is not HEAD of the %s repository", w.Commit, tc.wantVault)
			}
		})
	}
	t.Run("near-duplicates are refused within the target vault only", func(t *testing.T) {
		g.callT = t
		var a, b writeOutput
		g.ok("remember", map[string]any{"title": "Prefer short answers", "content": "Keep answers short.", "layer": "preference"}, &a)
		g.ok("remember", map[string]any{"title": "Prefer short answers!", "content": "Keep answers short here.", "layer": "preference", "scope": "project"}, &b)
		if b.ID == a.ID || b.Vault != projectScope {
			t.Errorf("remember in the project vault = %+v, want a new project memory, not a refusal because of the user vault's %s", b, a.ID)
		}
	})
}

// TestToolErrorPaths checks each tool's refusals: an isError result whose
// text names the argument or the problem, never a protocol error.
func TestToolErrorPaths(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	g := newGitServer(t, clock, false)
	var w writeOutput
	g.ok("remember", map[string]any{"title": "Use tabs", "content": "Indent with tabs."}, &w)
	missing := "01NOSUCHMEMORY0000000000000"
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"recall", map[string]any{"bogus": 1}, "bogus: unknown argument"},
		{"recall", map[string]any{"query": 5}, "query: want a string"},
		{"recall", map[string]any{"query": "a", "q": "b"}, "given twice"},
		{"recall", map[string]any{"top_k": 0}, "top_k: 0 is outside 1..50"},
		{"recall", map[string]any{"layers": "L9"}, "layers:"},
		{"recall", map[string]any{"since": "soon"}, "since:"},
		{"recall", map[string]any{"include_inactive": "perhaps"}, "include_inactive"},
		{"remember", map[string]any{"title": "t", "content": "c", "bogus": true}, "bogus: unknown argument"},
		{"remember", map[string]any{"title": "t"}, "content: required"},
		{"remember", map[string]any{"title": " ", "content": "c"}, "title: must not be empty"},
		{"remember", map[string]any{"title": "t", "content": "c", "scope": "team"}, "scope: want project or user"},
		{"remember", map[string]any{"title": "t", "content": "c", "scope": "user"}, "scope: no user vault"},
		{"remember", map[string]any{"title": "t", "content": "c", "effective_at": "later"}, "effective_at:"},
		{"remember", map[string]any{"title": "t", "content": "c", "tags": []any{1}}, "tags[0]"},
		{"remember", map[string]any{"title": "AWS key", "content": "aws_access_key_id = AKIAUJZDEGXDNCF32EPF"}, "secret"},
		{"get_memory", map[string]any{}, "id: required"},
		{"get_memory", map[string]any{"id": missing}, "not found"},
		{"get_memory", map[string]any{"id": w.ID, "version": 1}, "version: unknown argument"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1}, "reason: required"},
		{"update_memory", map[string]any{"id": w.ID, "reason": "r"}, "expected_version: required"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 3, "content": "x", "reason": "r"}, "expected_version"},
		{"update_memory", map[string]any{"id": missing, "expected_version": 1, "content": "x", "reason": "r"}, "not found"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "colour": "red", "reason": "r"}, "colour: unknown argument"},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "importance": 0, "reason": "r"}, "importance"},
		{"forget", map[string]any{"id": w.ID}, "reason: required"},
		{"forget", map[string]any{"id": missing, "reason": "r"}, "not found"},
		{"forget", map[string]any{"id": w.ID, "reason": "r", "delete": "yes please"}, "delete: want true or false"},
		{"forget", map[string]any{"id": w.ID, "reason": "r", "purge": true}, "purge: unknown argument"},
		{"memory_history", map[string]any{}, "id: required"},
		{"memory_history", map[string]any{"id": missing}, "not found"},
		{"memory_history", map[string]any{"id": w.ID, "limit": 3}, "limit: unknown argument"},
		{"memory_stats", map[string]any{"verbose": true}, "verbose: unknown argument"},
	}
	before := len(repoCommits(t, g.project))
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.want, func(t *testing.T) {
			res, text := callTool(t, g.c, tc.tool, tc.args)
			if !res.IsError {
				t.Fatalf("%s(%v) = %q, want isError", tc.tool, tc.args, text)
			}
			if !strings.Contains(text, tc.want) {
				t.Errorf("%s(%v): error %q does not say %q", tc.tool, tc.args, text, tc.want)
			}
			if strings.Contains(text, "AKIAUJZDEGXDNCF32EPF") {
				t.Errorf("error %q repeats the secret", text)
			}
		})
	}
	if got := len(repoCommits(t, g.project)); got != before {
		t.Errorf("commits: %d after refused calls, want %d", got, before)
	}
	t.Run("accepted aliases", func(t *testing.T) {
		g.callT = t
		var out recallOutput
		g.ok("recall", map[string]any{"q": "tabs", "k": "2", "tags": "", "since": "2026-01-01"}, &out)
		if len(out.Results) != 1 || out.Results[0].ID != w.ID {
			t.Errorf("recall with aliases: %+v, want %s", out.Results, w.ID)
		}
	})
}

// TestRecallRanksTheVaultsTogether checks that a small user vault is not
// outranked because its own statistics make every term look common: the
// preference that answers the question comes first.
func TestRecallRanksTheVaultsTogether(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	open := func() *vault.Vault {
		v, err := vault.Open(ctx, t.TempDir(), vault.Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	project, user := open(), open()
	add := func(v *vault.Vault, n vault.NewMemory) string {
		t.Helper()
		res, err := v.Create(ctx, n, vault.Author{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	pref := add(user, vault.NewMemory{Title: "测试用 pytest", Layer: vault.Preference, Content: "开发者要求测试一律用 pytest 编写和运行，不要用 unittest。"})
	for _, n := range []vault.NewMemory{
		{Title: "上线流程", Content: "上线部署：CI 通过后在仓库根目录运行 ops/deploy.sh。"},
		{Title: "代码格式用 black", Content: "提交前用 black 格式化 Python 代码。"},
		{Title: "数据库迁移", Content: "用 alembic 写迁移脚本，已执行的迁移不要修改。"},
		{Title: "分支命名", Content: "分支命名为 feature/<单号> 或 fix/<单号>。"},
		{Title: "预发环境", Content: "预发环境在 staging.internal，用 make reset-staging 重置。"},
	} {
		add(project, n)
	}
	tools := testTools(project, user)
	tools.now = func() time.Time { return now }
	s := server.NewMCPServer("memvault", serverVersion, server.WithToolCapabilities(false))
	tools.register(s)
	c := connectInProcess(t, s, legacyProtocol)
	for _, q := range []string{"单元测试怎么写", "测试用什么框架"} {
		out := mustCall[recallOutput](t, c, "recall", map[string]any{"query": q})
		if len(out.Results) == 0 || out.Results[0].ID != pref || out.Results[0].Vault != userScope {
			t.Errorf("recall %q = %+v, want the user vault's %s first", q, out.Results, pref)
		}
	}
}

func TestRootDir(t *testing.T) {
	tests := []struct {
		uri, dir, why string
	}{
		{"file:///home/ann/shop", "/home/ann/shop", ""},
		{"file:///home/ann/my%20shop/", "/home/ann/my shop", ""},
		{"https://example.com/repo", "", "not a file:// URI"},
		{"file://", "", "not an absolute path"},
		{"::", "", "not a URI"},
	}
	for _, tc := range tests {
		dir, why := rootDir(tc.uri)
		if dir != filepath.FromSlash(tc.dir) || why != tc.why {
			t.Errorf("rootDir(%q) = %q, %q; want %q, %q", tc.uri, dir, why, tc.dir, tc.why)
		}
	}
}

// FuzzRootDir feeds rootDir what clients may report: it never panics and
// returns either an absolute folder or a reason.
func FuzzRootDir(f *testing.F) {
	for _, s := range []string{"file:///home/ann/shop", "file://", "https://x/y", "file:///a/../b", "file:///%zz", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		dir, why := rootDir(uri)
		if (dir == "") == (why == "") {
			t.Fatalf("rootDir(%q) = %q, %q: want exactly one of a folder and a reason", uri, dir, why)
		}
		if dir != "" && !filepath.IsAbs(dir) {
			t.Errorf("rootDir(%q) = %q, not absolute", uri, dir)
		}
	})
}
