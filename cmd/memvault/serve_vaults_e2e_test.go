package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
)

// legacyProtocol is a protocol version before 2026-07-28: the client
// answers roots/list requests and sends resources/subscribe, as Claude
// Code and Cursor do today.
const legacyProtocol = "2025-06-18"

// spawnOptions says how to start one `memvault serve` for a test.
type spawnOptions struct {
	dir      string   // working directory of the server process
	args     []string // after "serve"
	roots    []string // folders the client reports as roots; nil: no roots capability
	protocol string   // "" is the newest
	// env is added to the test process's environment, e.g. HOME=dir
	// for a server with a user vault of its own: the process's HOME is
	// shared by the tests running in parallel and stays empty.
	env []string
}

// rootsList answers roots/list with fixed folders.
type rootsList []string

func (r rootsList) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	out := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range r {
		out.Roots = append(out.Roots, mcp.Root{URI: "file://" + filepath.ToSlash(d), Name: filepath.Base(d)})
	}
	return out, nil
}

// notifications collects what the server pushes.
type notifications struct {
	mu     sync.Mutex
	got    []mcp.JSONRPCNotification
	more   chan struct{} // holds a value after a notification no waiter has seen
	stderr func() string // the server's log so far, for failures
}

func newNotifications() *notifications { return &notifications{more: make(chan struct{}, 1)} }

func (n *notifications) add(x mcp.JSONRPCNotification) {
	n.mu.Lock()
	n.got = append(n.got, x)
	n.mu.Unlock()
	select {
	case n.more <- struct{}{}:
	default:
	}
}

// waitFor waits until a notification matches, woken by each one that
// arrives (on the transport's goroutine). The deadline only ends the wait
// for a server that never sends it.
func (n *notifications) waitFor(t *testing.T, what string, match func(mcp.JSONRPCNotification) bool) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		n.mu.Lock()
		var methods []string
		for _, x := range n.got {
			if match(x) {
				n.mu.Unlock()
				return
			}
			methods = append(methods, x.Method+" "+asString(x.Params.AdditionalFields["uri"]))
		}
		n.mu.Unlock()
		select {
		case <-n.more:
		case <-deadline.C:
			if n.stderr != nil {
				t.Logf("server log:\n%s", n.stderr())
			}
			t.Fatalf("no %s notification; got %v", what, methods)
		}
	}
}

// count says how many notifications of a method arrived.
func (n *notifications) count(method string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.countLocked(method)
}

func (n *notifications) countLocked(method string) int {
	k := 0
	for _, x := range n.got {
		if x.Method == method {
			k++
		}
	}
	return k
}

// none fails t with what for each notification received so far that
// matches.
func (n *notifications) none(t *testing.T, what string, match func(mcp.JSONRPCNotification) bool) {
	t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.got {
		if match(x) {
			t.Error(what)
		}
	}
}

func (n *notifications) reset() {
	n.mu.Lock()
	n.got = nil
	n.mu.Unlock()
}

// spawn starts the binary as opts say and initializes a client on it.
func spawn(t *testing.T, bin string, opts spawnOptions) (*mcpSession, *notifications) {
	t.Helper()
	tr := transport.NewStdioWithOptions(bin, nil, append([]string{"serve"}, opts.args...),
		transport.WithCommandFunc(func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			// Not bound to the start context: the server outlives it.
			cmd := exec.Command(command, args...)
			cmd.Env = append(append(os.Environ(), env...), opts.env...)
			cmd.Dir = opts.dir
			return cmd, nil
		}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The transport answers server requests (roots/list) under the
	// context it starts with, so it must outlive this function.
	if err := tr.Start(context.Background()); err != nil {
		t.Fatalf("start memvault serve: %v", err)
	}
	var copts []client.ClientOption
	if opts.roots != nil {
		copts = append(copts, client.WithRootsHandler(rootsList(opts.roots)))
	}
	c := client.NewClient(tr, append(copts, client.WithDiscoverTimeout(-1))...) // see newStdioClient
	t.Cleanup(func() { c.Close() })
	n := newNotifications()
	c.OnNotification(n.add)
	if r, ok := client.GetStderr(c); ok {
		var mu sync.Mutex
		var log strings.Builder
		go func() {
			buf := make([]byte, 4096)
			for {
				k, err := r.Read(buf)
				mu.Lock()
				log.Write(buf[:k])
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
		n.stderr = func() string {
			mu.Lock()
			defer mu.Unlock()
			return log.String()
		}
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initClient(t, c, opts.protocol, e2eClientName, opts.roots != nil)
	return &mcpSession{t: t, c: c, bin: bin}, n
}

// newRepo makes an empty git repository.
func newRepo(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	s, err := gitstore.Init(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return root
}

// repoCommits lists a repository's commits, newest first.
func repoCommits(t *testing.T, root string) []gitstore.CommitInfo {
	t.Helper()
	return (&mcpSession{t: t, root: root}).commits()
}

func TestServeFindsTheVaultFromTheClientsRoots(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	bin := buildMemvault(t)
	for _, protocol := range []string{legacyProtocol, ""} {
		t.Run(protocolName(protocol), func(t *testing.T) {
			repo := newRepo(t)
			notRepo := t.TempDir()
			s, _ := spawn(t, bin, spawnOptions{dir: notRepo, roots: []string{notRepo, filepath.Join(repo, "src")}, protocol: protocol})
			if protocol == legacyProtocol {
				// Older clients are asked for their roots right after
				// initialize, so even a resource read (which cannot ask)
				// finds the vault without a tool call first: it waits
				// for that answer.
				readResource(t, s, contextURI)
			}
			var w view.Write
			s.ok("remember", map[string]any{"title": "Releases are cut on Mondays", "content": "每周一发版。Cut releases on Mondays."}, &w)
			cs := repoCommits(t, repo)
			if len(cs) != 1 || cs[0].Hash != w.Commit {
				t.Fatalf("commits in the root's repository: %+v, want the remember commit %s", cs, w.Commit)
			}
			if _, err := os.Stat(filepath.Join(repo, ".memory", filepath.FromSlash(w.Path))); err != nil {
				t.Errorf("memory file not in %s/.memory: %v", repo, err)
			}
			// The repository had no vault: the first write created it,
			// .gitignore and .gitattributes included, in its one commit.
			g, err := gitstore.Open(context.Background(), repo)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			for _, p := range []string{".memory/.gitignore", ".memory/.gitattributes", ".memory/" + w.Path} {
				if _, err := g.ReadFile(context.Background(), w.Commit, p); err != nil {
					t.Errorf("%s not in the remember commit: %v", p, err)
				}
			}
			// A prompt may be the first request: it asks for the roots too.
			fresh, _ := spawn(t, bin, spawnOptions{dir: notRepo, roots: []string{repo}, protocol: protocol})
			preq := mcp.GetPromptRequest{}
			preq.Params.Name = "recall"
			preq.Params.Arguments = map[string]string{"query": "发版 releases"}
			pres, err := fresh.c.GetPrompt(context.Background(), preq)
			if err != nil {
				t.Fatalf("recall prompt as the first request: %v", err)
			}
			if tc, ok := mcp.AsTextContent(pres.Messages[0].Content); !ok || !strings.Contains(tc.Text, w.ID) {
				t.Errorf("recall prompt = %+v, want %s", pres.Messages, w.ID)
			}
			var st view.Stats
			s.ok("memory_stats", map[string]any{}, &st)
			if want := filepath.Join(repo, ".memory"); st.Vault != want {
				t.Errorf("vault = %s, want %s", st.Vault, want)
			}
		})
	}
}

// readResource reads a resource's text; a protocol error fails the test.
func readResource(t *testing.T, s *mcpSession, uri string) string {
	t.Helper()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := s.c.ReadResource(ctx, req)
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	tc, ok := res.Contents[0].(mcp.TextResourceContents)
	if !ok {
		t.Fatalf("read %s: %+v", uri, res.Contents)
	}
	return tc.Text
}

func TestServeWithoutRepositoryOrRootsSaysWhatItTried(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)
	notRepo := t.TempDir()
	other := t.TempDir()
	for _, tc := range []struct {
		name  string
		roots []string
		want  []string
	}{
		{"no roots capability", nil, []string{"--vault was not given", notRepo, "reports no roots"}},
		{"roots outside git", []string{other}, []string{notRepo, other, "not in a git repository"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := spawn(t, bin, spawnOptions{dir: notRepo, roots: tc.roots, protocol: legacyProtocol})
			msg := s.fails("recall", map[string]any{"query": "x"})
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not name %q", msg, w)
				}
			}
		})
	}
}

func TestServeNotifiesOfChanges(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	bin := buildMemvault(t)
	for _, protocol := range []string{legacyProtocol, ""} {
		t.Run(protocolName(protocol), func(t *testing.T) { testNotifications(t, bin, protocol) })
	}
}

func testNotifications(t *testing.T, bin, protocol string) {
	repo := newRepo(t)
	vaultDir := filepath.Join(repo, ".memory")
	s, n := spawn(t, bin, spawnOptions{dir: repo, protocol: protocol})
	ctx := context.Background()
	var stopListen func()
	// Newer clients name their resources in a subscriptions/listen
	// stream, reopened with the new list after each change.
	listen := func() {
		t.Helper()
		if protocol == legacyProtocol {
			return
		}
		if stopListen != nil {
			stopListen()
		}
		acks := n.count(mcp.MethodNotificationSubscriptionsAcknowledged)
		stop, err := s.c.ListenAsync(ctx, s.c.PendingSubscriptionFilter(), func(err error) { t.Logf("listen: %v", err) })
		if err != nil {
			t.Fatalf("listen: %v", err)
		}
		stopListen = stop
		t.Cleanup(stop)
		// The stream is in place once the server acknowledges it.
		n.waitFor(t, "subscriptions/acknowledged", func(mcp.JSONRPCNotification) bool {
			return n.countLocked(mcp.MethodNotificationSubscriptionsAcknowledged) > acks
		})
	}
	subscribe := func(uri string) {
		t.Helper()
		req := mcp.SubscribeRequest{}
		req.Params.URI = uri
		//lint:ignore SA1019 clients before 2026-07-28 subscribe so; both eras are tested
		if err := s.c.Subscribe(ctx, req); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
		listen()
	}
	isMethod := func(m string) func(mcp.JSONRPCNotification) bool {
		return func(x mcp.JSONRPCNotification) bool { return x.Method == m }
	}
	updated := func(uri string) func(mcp.JSONRPCNotification) bool {
		return func(x mcp.JSONRPCNotification) bool {
			return x.Method == mcp.MethodNotificationResourceUpdated && x.Params.AdditionalFields["uri"] == uri
		}
	}
	subscribe(contextURI)
	subscribe("memory://review")

	var w view.Write
	s.ok("remember", map[string]any{"title": "Prefer small commits", "content": "One change per commit.", "importance": 9}, &w)
	n.waitFor(t, "list_changed after remember", isMethod(mcp.MethodNotificationResourcesListChanged))
	n.waitFor(t, "context updated after remember", updated(contextURI))
	n.waitFor(t, "review updated after remember", updated("memory://review"))

	memURI := memoryURIPrefix + w.ID
	subscribe(memURI)
	n.reset()
	s.ok("update_memory", map[string]any{"id": w.ID, "expected_version": 1, "content": "One logical change per commit.", "reason": "clearer"}, nil)
	n.waitFor(t, "memory updated after update_memory", updated(memURI))
	n.none(t, "list_changed after an update of an existing memory: the list did not change", isMethod(mcp.MethodNotificationResourcesListChanged))

	// Another process commits: the next call (or the watcher) reads the
	// new file, and that is announced; the memory it did not touch is not.
	n.reset()
	cmd := exec.Command(bin, "add", "Tag releases vX.Y.Z", "--content", "Tag releases as vX.Y.Z.", "--vault", vaultDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("memvault add: %v\n%s", err, out)
	}
	s.ok("recall", map[string]any{"query": "release tag"}, nil)
	n.waitFor(t, "list_changed after another process committed", isMethod(mcp.MethodNotificationResourcesListChanged))
	n.waitFor(t, "context updated after another process committed", updated(contextURI))
	n.none(t, memURI+" announced as updated, but the other process did not touch it", updated(memURI))

	// Unsubscribed resources are not announced.
	req := mcp.UnsubscribeRequest{}
	req.Params.URI = memURI
	//lint:ignore SA1019 clients before 2026-07-28 unsubscribe so; both eras are tested
	if err := s.c.Unsubscribe(ctx, req); err != nil {
		t.Fatal(err)
	}
	listen()
	n.reset()
	s.ok("forget", map[string]any{"id": w.ID, "reason": "done"}, nil)
	n.waitFor(t, "context updated after forget", updated(contextURI))
	n.none(t, "resources/updated for "+memURI+" after unsubscribe", updated(memURI))
}

// initUserVault makes home's user vault (~/.memvault), an empty git
// repository, and returns its folder.
func initUserVault(t *testing.T, home string) string {
	t.Helper()
	dir := filepath.Join(home, userVaultName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := gitstore.Init(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return dir
}

// protocolName names a subtest for an MCP protocol version ("" is the
// newest).
func protocolName(protocol string) string {
	if protocol == "" {
		return "newest"
	}
	return protocol
}

func TestServeUserVault(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	bin := buildMemvault(t)
	repo := newRepo(t)
	home := t.TempDir() // the server's HOME
	userRepo := initUserVault(t, home)
	// No --user-vault: ~/.memvault exists, so it is served.
	s, _ := spawn(t, bin, spawnOptions{dir: repo, env: []string{"HOME=" + home}})

	var pref, projPref, rule view.Write
	s.ok("remember", map[string]any{"title": "Answer in Chinese", "content": "The developer wants answers in Chinese. 用中文回答。", "layer": "preference"}, &pref)
	s.ok("remember", map[string]any{"title": "This repo uses tabs", "content": "Indent with tabs in this repository only.", "layer": "preference", "scope": "project"}, &projPref)
	s.ok("remember", map[string]any{"title": "Answers cite file paths", "content": "When answering, cite file paths. 回答时给出文件路径。"}, &rule)
	if pref.Vault != userScope || projPref.Vault != projectScope || rule.Vault != projectScope {
		t.Fatalf("vaults: preference %q, scoped preference %q, rule %q; want user, project, project", pref.Vault, projPref.Vault, rule.Vault)
	}
	if cs := repoCommits(t, userRepo); len(cs) != 1 || cs[0].Hash != pref.Commit {
		t.Errorf("user vault commits %+v, want the preference's %s", cs, pref.Commit)
	}
	if cs := repoCommits(t, repo); len(cs) != 2 {
		t.Errorf("project commits: %d, want 2", len(cs))
	}

	var got view.Recall
	s.ok("recall", map[string]any{"query": "回答 answers"}, &got)
	vaults := map[string]string{}
	for _, r := range got.Results {
		vaults[r.ID] = r.Vault
	}
	if vaults[pref.ID] != userScope || vaults[rule.ID] != projectScope {
		t.Errorf("recall: %+v, want %s from the user vault and %s from the project", got.Results, pref.ID, rule.ID)
	}

	var m view.Memory
	s.ok("get_memory", map[string]any{"id": pref.ID}, &m)
	if m.Vault != userScope || !strings.Contains(m.Body, "用中文回答") {
		t.Errorf("get_memory = %+v, want the user vault's memory", m)
	}
	var u view.Write
	s.ok("update_memory", map[string]any{"id": pref.ID, "expected_version": 1, "importance": 8, "reason": "firm"}, &u)
	if u.Vault != userScope || u.Version != 2 {
		t.Errorf("update_memory = %+v, want version 2 in the user vault", u)
	}
	var h view.History
	s.ok("memory_history", map[string]any{"id": pref.ID}, &h)
	if h.Vault != userScope || len(h.Revisions) != 2 {
		t.Errorf("memory_history = %+v, want 2 revisions in the user vault", h)
	}
	var stats view.Stats
	s.ok("memory_stats", map[string]any{}, &stats)
	if stats.UserVault == nil || stats.UserVault.Total != 1 || stats.UserVault.Vault != userRepo || stats.Total != 2 {
		t.Errorf("memory_stats = %+v (user %+v), want 2 project and 1 user memory", stats, stats.UserVault)
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = contextURI
	res, err := s.c.ReadResource(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Contents[0].(mcp.TextResourceContents); !ok || !strings.Contains(tc.Text, "Answer in Chinese") {
		t.Errorf("memory://context lacks the user vault's preference: %+v", res.Contents)
	}
	var f view.Forget
	s.ok("forget", map[string]any{"id": pref.ID, "reason": "changed my mind"}, &f)
	if f.Vault != userScope || f.Commit == "" {
		t.Errorf("forget = %+v, want a commit in the user vault", f)
	}
	if cs := repoCommits(t, userRepo); len(cs) != 3 {
		t.Errorf("user vault commits: %d, want 3", len(cs))
	}

	t.Run("--no-user-vault", func(t *testing.T) {
		s, _ := spawn(t, bin, spawnOptions{dir: repo, args: []string{"--no-user-vault"}, env: []string{"HOME=" + home}})
		msg := s.fails("remember", map[string]any{"title": "x", "content": "y", "scope": "user"})
		if !strings.Contains(msg, "scope") || !strings.Contains(msg, "user vault") {
			t.Errorf("error %q should say scope user needs a user vault", msg)
		}
	})
	t.Run("--user-vault DIR", func(t *testing.T) {
		other := newRepo(t)
		s, _ := spawn(t, bin, spawnOptions{dir: repo, args: []string{"--user-vault", other}, env: []string{"HOME=" + home}})
		var w view.Write
		s.ok("remember", map[string]any{"title": "Prefer early returns", "content": "Return early instead of nesting.", "layer": "preference"}, &w)
		if cs := repoCommits(t, other); w.Vault != userScope || len(cs) != 1 || cs[0].Hash != w.Commit {
			t.Errorf("remember = %+v; commits in --user-vault %s: %+v; want the preference there", w, other, cs)
		}
		var st view.Stats
		s.ok("memory_stats", map[string]any{}, &st)
		if st.UserVault == nil || st.UserVault.Vault != other {
			t.Errorf("memory_stats user_vault = %+v, want %s", st.UserVault, other)
		}
	})
	t.Run("--user-vault outside git fails at once", func(t *testing.T) {
		cmd := exec.Command(bin, "serve", "--user-vault", t.TempDir())
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "not inside a git repository") {
			t.Errorf("serve --user-vault outside git: err %v, output %q; want a usage error", err, out)
		}
	})
}
