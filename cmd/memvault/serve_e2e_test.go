package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
)

// e2eClientName is the clientInfo.name the end-to-end client reports; the
// server must record it in each commit's Memory-Client trailer.
const e2eClientName = "e2e-client"

// mcpSession is a running `memvault serve` driven by mcp-go's stdio client.
type mcpSession struct {
	t    *testing.T
	c    *client.Client
	bin  string // the memvault binary
	root string // repository root
}

func startServe(t *testing.T) *mcpSession {
	t.Helper()
	bin := buildMemvault(t)
	root := newRepo(t)
	sess := &mcpSession{t: t, bin: bin, root: root}
	sess.connect()
	return sess
}

// connect spawns a new server process on the repository and initializes
// it; restart closes the current one first.
func (s *mcpSession) connect() {
	t := s.t
	t.Helper()
	// The real binary checks each answer against its output schema here
	// (off in production): a tool answering outside it fails the call.
	c, err := newStdioClient(s.bin, []string{"MEMVAULT_CHECK_OUTPUT=1"}, "serve", "--vault", filepath.Join(s.root, ".memory"))
	if err != nil {
		t.Fatalf("start memvault serve: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if res := initClient(t, c, "", e2eClientName, false); res.ServerInfo.Name != "memvault" {
		t.Errorf("serverInfo.name = %q, want memvault", res.ServerInfo.Name)
	}
	s.c = c
}

// restart ends the server process and starts a fresh one: nothing but
// the repository carries over.
func (s *mcpSession) restart() {
	s.t.Helper()
	s.c.Close()
	s.connect()
}

// call invokes a tool and returns the result; protocol errors fail the test.
func (s *mcpSession) call(name string, args map[string]any) *mcp.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		s.t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structuredContent
// into out.
func (s *mcpSession) ok(name string, args map[string]any, out any) string {
	s.t.Helper()
	res := s.call(name, args)
	text := resultText(res)
	if res.IsError {
		s.t.Fatalf("%s(%v): isError: %s", name, args, text)
	}
	if res.StructuredContent == nil {
		s.t.Fatalf("%s: no structuredContent", name)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		s.t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatalf("%s: structuredContent %s: %v", name, b, err)
		}
	}
	if strings.TrimSpace(text) == "" {
		s.t.Errorf("%s: no readable text block", name)
	}
	return text
}

// fails calls a tool that must return a tool error and returns its text.
func (s *mcpSession) fails(name string, args map[string]any) string {
	s.t.Helper()
	res := s.call(name, args)
	if !res.IsError {
		s.t.Fatalf("%s(%v): got success %q, want isError", name, args, resultText(res))
	}
	return resultText(res)
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// commits lists the repository's commits, newest first.
func (s *mcpSession) commits() []gitstore.CommitInfo {
	s.t.Helper()
	st, err := gitstore.Open(context.Background(), s.root)
	if err != nil {
		s.t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Resolve(context.Background(), "HEAD"); err != nil {
		return nil
	}
	cs, err := st.History(context.Background(), s.root, gitstore.HistoryOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return cs
}

func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	s := startServe(t)

	t.Run("tools/list", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]mcp.Tool{}
		for _, tool := range res.Tools {
			byName[tool.Name] = tool
		}
		readOnly := map[string]bool{"recall": true, "get_memory": true, "memory_stats": true, "memory_history": true}
		for _, name := range []string{"recall", "remember", "get_memory", "update_memory", "forget", "memory_stats", "memory_history"} {
			tool, ok := byName[name]
			if !ok {
				t.Errorf("tool %s missing; got %v", name, slices.Collect(func(yield func(string) bool) {
					for n := range byName {
						if !yield(n) {
							return
						}
					}
				}))
				continue
			}
			if tool.Description == "" {
				t.Errorf("%s: no description", name)
			}
			if len(tool.RawOutputSchema) == 0 && tool.OutputSchema.Type == "" {
				t.Errorf("%s: no output schema", name)
			}
			if got := tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint; got != readOnly[name] {
				t.Errorf("%s: readOnlyHint = %v, want %v", name, got, readOnly[name])
			}
			wantDestructive := name == "forget"
			if got := tool.Annotations.DestructiveHint != nil && *tool.Annotations.DestructiveHint; got != wantDestructive {
				t.Errorf("%s: destructiveHint = %v, want %v", name, got, wantDestructive)
			}
		}
	})

	var w view.Write
	t.Run("remember commits once with the client trailer", func(t *testing.T) {
		before := len(s.commits())
		s.ok("remember", map[string]any{
			"title":   "部署脚本 deploy script",
			"content": "部署用 ops/deploy.sh 脚本，先跑测试。Deploy with ops/deploy.sh after the tests pass.",
			"tags":    []any{"ops", "deploy"}, "importance": 7, "reason": "agreed in review",
		}, &w)
		if w.ID == "" || w.Version != 1 || w.Commit == "" || !strings.HasPrefix(w.Path, "project/") {
			t.Fatalf("remember = %+v, want an id, version 1, a commit and a project/ path", w)
		}
		cs := s.commits()
		if len(cs) != before+1 {
			t.Fatalf("commits: got %d, want %d", len(cs), before+1)
		}
		if cs[0].Hash != w.Commit {
			t.Errorf("HEAD = %s, want the reported commit %s", cs[0].Hash, w.Commit)
		}
		if !strings.Contains(cs[0].Message, "Memory-Client: "+e2eClientName) {
			t.Errorf("commit message lacks Memory-Client: %s:\n%s", e2eClientName, cs[0].Message)
		}
	})

	for _, q := range []map[string]any{
		{"query": "部署脚本在哪里"},
		{"query": "where is the deploy script", "limit": 3},
		{"q": "deploy", "k": 2},
	} {
		t.Run("recall "+asString(q["query"])+asString(q["q"]), func(t *testing.T) {
			var got view.Recall
			s.ok("recall", q, &got)
			if len(got.Results) == 0 || got.Results[0].ID != w.ID {
				t.Fatalf("recall %v: got %+v, want %s first", q, got.Results, w.ID)
			}
			r := got.Results[0]
			if r.Layer != "project" || r.Status != "active" || r.Snippet == "" || r.Path != w.Path || !slices.Contains(r.Tags, "deploy") {
				t.Errorf("result = %+v, want project, active, a snippet, path %s, tag deploy", r, w.Path)
			}
		})
	}

	t.Run("update with a stale version changes nothing", func(t *testing.T) {
		file := filepath.Join(s.root, ".memory", filepath.FromSlash(w.Path))
		before := readFile(t, file)
		commits := len(s.commits())
		msg := s.fails("update_memory", map[string]any{"id": w.ID, "expected_version": 5, "content": "overwritten", "reason": "test"})
		if !strings.Contains(msg, "version 1") || !strings.Contains(msg, "expected_version") {
			t.Errorf("error %q should name expected_version and the current version 1", msg)
		}
		if after := readFile(t, file); after != before {
			t.Errorf("file changed by a refused update:\n%s", after)
		}
		if got := len(s.commits()); got != commits {
			t.Errorf("commits: got %d, want %d", got, commits)
		}
	})

	t.Run("update with the current version", func(t *testing.T) {
		var u view.Write
		s.ok("update_memory", map[string]any{"id": w.ID, "expected_version": 1, "importance": 8, "reason": "it matters"}, &u)
		if u.Version != 2 || u.Commit == "" {
			t.Errorf("update = %+v, want version 2 and a commit", u)
		}
	})

	t.Run("get_memory", func(t *testing.T) {
		var m view.Memory
		s.ok("get_memory", map[string]any{"id": w.ID}, &m)
		if m.ID != w.ID || m.Version != 2 || m.Importance != 8 || !strings.Contains(m.Body, "ops/deploy.sh") || m.Source.Client != e2eClientName {
			t.Errorf("get_memory = %+v, want version 2, importance 8, the body, client %s", m, e2eClientName)
		}
	})

	t.Run("memory_history", func(t *testing.T) {
		var h view.History
		s.ok("memory_history", map[string]any{"id": w.ID}, &h)
		if len(h.Revisions) != 2 {
			t.Fatalf("revisions: got %+v, want 2 (update, add)", h.Revisions)
		}
		for i, want := range []string{"it matters", "agreed in review"} {
			r := h.Revisions[i]
			if r.Reason != want || r.Client != e2eClientName || r.Commit == "" {
				t.Errorf("revision %d = %+v, want reason %q by client %s", i, r, want, e2eClientName)
			}
		}
	})

	t.Run("invalid arguments are tool errors and write nothing", func(t *testing.T) {
		commits := len(s.commits())
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"remember", map[string]any{"title": "x", "content": "y", "importance": 11}, "importance"},
			{"remember", map[string]any{"title": "x", "content": "y", "colour": "red"}, "colour"},
			{"remember", map[string]any{"content": "y"}, "title"},
			{"remember", map[string]any{"title": "x", "content": "y", "layer": "L9"}, "layer"},
			{"recall", map[string]any{"query": "x", "limit": "many"}, "limit"},
			{"recall", map[string]any{"query": "x", "as_of": "yesterday"}, "as_of"},
			{"get_memory", map[string]any{"id": "01NOSUCHMEMORY0000000000000"}, "not found"},
			{"forget", map[string]any{"id": w.ID}, "reason"},
		} {
			msg := s.fails(tc.tool, tc.args)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("%s(%v): error %q does not name %q", tc.tool, tc.args, msg, tc.want)
			}
		}
		if got := len(s.commits()); got != commits {
			t.Errorf("commits: got %d, want %d (invalid calls must not write)", got, commits)
		}
	})

	t.Run("forget archives with a commit", func(t *testing.T) {
		before := len(s.commits())
		var f view.Forget
		s.ok("forget", map[string]any{"id": w.ID, "reason": "script moved"}, &f)
		if f.Action != "archived" || f.Commit == "" {
			t.Errorf("forget = %+v, want archived with a commit", f)
		}
		if got := len(s.commits()); got != before+1 {
			t.Errorf("commits: got %d, want %d", got, before+1)
		}
		var got view.Recall
		s.ok("recall", map[string]any{"query": "deploy"}, &got)
		if len(got.Results) != 0 {
			t.Errorf("recall after forget: got %+v, want nothing active", got.Results)
		}
	})

	t.Run("memory_stats", func(t *testing.T) {
		var st view.Stats
		s.ok("memory_stats", map[string]any{}, &st)
		if st.Total != 1 || st.ByStatus["archived"] != 1 || st.Vault != filepath.Join(s.root, ".memory") {
			t.Errorf("stats = %+v, want 1 archived memory in %s", st, filepath.Join(s.root, ".memory"))
		}
	})

	t.Run("a commit by another process is seen by the next recall", func(t *testing.T) {
		cmd := exec.Command(s.bin, "add", "Releases are tagged vX.Y.Z", "--content", "发布时打 vX.Y.Z 标签。Tag releases as vX.Y.Z.", "--vault", filepath.Join(s.root, ".memory"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("memvault add: %v\n%s", err, out)
		}
		var got view.Recall
		s.ok("recall", map[string]any{"query": "发布 标签"}, &got)
		if len(got.Results) == 0 || got.Results[0].Title != "Releases are tagged vX.Y.Z" {
			t.Errorf("recall after a CLI add: got %+v, want the new memory first", got.Results)
		}
	})
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// rawSession runs cmd, a `memvault serve`, writes in to its standard
// input and returns what it wrote to standard output, one line a message:
// the first answers lines, then the rest once its input is closed (read
// before closing: the server drops calls still queued when its input
// ends). It fails t when the server does not exit 0.
func rawSession(t *testing.T, cmd *exec.Cmd, in string, answers int) []string {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(stdin, in); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var lines []string
	for len(lines) < answers && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	stdin.Close()
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%v", err, cmd.Stderr)
	}
	return lines
}

// statsCall is what a client's health check sends: initialize, then one
// memory_stats call, as client.
func statsCall(client string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"` + client + `","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_stats","arguments":{}}}
`
}

// TestServeStdoutIsProtocolOnly checks that nothing but JSON-RPC reaches
// standard output: logs go to standard error.
func TestServeStdoutIsProtocolOnly(t *testing.T) {
	t.Parallel()
	bin := buildMemvault(t)
	root := newRepo(t)
	cmd := exec.Command(bin, "serve", "--vault", filepath.Join(root, ".memory"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	lines := rawSession(t, cmd, statsCall("raw"), 2)
	for _, l := range lines {
		var msg map[string]any
		if err := json.Unmarshal([]byte(l), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", l)
		}
	}
	if len(lines) != 2 {
		t.Errorf("stdout: got %d lines, want 2 answers:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if !strings.Contains(stderr.String(), "tool=memory_stats") {
		t.Errorf("stderr lacks the tool call log line:\n%s", stderr.String())
	}
}

// TestServeCreatesNothingUntilTheFirstWrite runs what a client's health
// check does (claude mcp list: start serve in the project, initialize,
// ask, quit) in a repository without a vault: nothing is left behind.
// The first write then makes the vault, and the server follows files
// added to it by hand from then on.
func TestServeCreatesNothingUntilTheFirstWrite(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	bin := buildMemvault(t)
	root := newRepo(t)
	vaultDir := filepath.Join(root, ".memory")
	cmd := exec.Command(bin, "serve")
	cmd.Dir = root
	if out := rawSession(t, cmd, statsCall("health-check"), 2); !strings.Contains(strings.Join(out, "\n"), `"total":0`) {
		t.Errorf("memory_stats did not answer with an empty vault:\n%s", strings.Join(out, "\n"))
	}
	if _, err := os.Stat(vaultDir); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(vaultDir)
		t.Fatalf("serve left %s behind (stat: %v, entries %v)", vaultDir, err, entries)
	}

	s, n := spawn(t, bin, spawnOptions{dir: root, protocol: legacyProtocol})
	var st view.Stats
	s.ok("memory_stats", map[string]any{}, &st)
	if st.Total != 0 || st.Vault != vaultDir {
		t.Errorf("memory_stats = %+v, want the empty vault %s", st, vaultDir)
	}
	if _, err := os.Stat(vaultDir); !os.IsNotExist(err) {
		t.Fatalf("%s exists before the first write (stat: %v)", vaultDir, err)
	}
	var w view.Write
	s.ok("remember", map[string]any{"title": "Vaults appear on the first write", "content": "Nothing before."}, &w)
	if _, err := os.Stat(filepath.Join(vaultDir, filepath.FromSlash(w.Path))); err != nil {
		t.Fatalf("the first write did not make the vault: %v", err)
	}
	listChanged := func(x mcp.JSONRPCNotification) bool {
		return x.Method == mcp.MethodNotificationResourcesListChanged
	}
	// The write's own list_changed may still be on its way: wait for it
	// before counting the next one.
	n.waitFor(t, "list_changed after the first write", listChanged)
	n.reset()
	hand := "---\nid: hand-1\ntitle: Written by hand\n---\n\nEdited in the editor, never through memvault.\n"
	if err := os.WriteFile(filepath.Join(vaultDir, "project", "by-hand.md"), []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each list_changed is a moment the index changed; the hand-written
	// memory is there by the one the watcher sends for it. A late
	// notification of the first write is passed over.
	for try := 0; ; try++ {
		n.waitFor(t, "list_changed after a file was added by hand", listChanged)
		n.reset()
		if !s.call("get_memory", map[string]any{"id": "hand-1"}).IsError {
			break
		}
		if try == 3 {
			t.Fatal("hand-1 is still unknown after four list_changed notifications")
		}
	}
	var m view.Memory
	s.ok("get_memory", map[string]any{"id": "hand-1"}, &m)
	if m.Title != "Written by hand" {
		t.Errorf("get_memory hand-1 = %+v", m)
	}
}
