package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/vault"
)

// inProcessTools serves the tools over a vault without git, through
// mcp-go's in-process client, at a fixed clock.
func inProcessTools(t *testing.T, now time.Time) (*vault.Vault, *client.Client) {
	t.Helper()
	clock := func() time.Time { return now }
	v, err := vault.Open(context.Background(), t.TempDir(), vault.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	s := server.NewMCPServer("memvault", serverVersion, server.WithToolCapabilities(false), server.WithResourceCapabilities(false, false), server.WithPromptCapabilities(false), server.WithOutputSchemaValidation())
	testTools(v, nil).register(s)
	c := connectInProcess(t, s, mcp.LATEST_PROTOCOL_VERSION)
	return v, c
}

// testTools serves project (and user, when not nil) without git.
func testTools(project, user *vault.Vault) *mcpTools {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	t := &mcpTools{logger: logger, project: fixedDiscovery(&vaultSlot{name: projectScope, dir: project.Dir(), loader: loadedVault(project), logger: logger})}
	if user != nil {
		t.user = &vaultSlot{name: userScope, dir: user.Dir(), loader: loadedVault(user), logger: logger}
	}
	return t
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, resultText(res)
}

func TestRecallStaysWithinItsBudget(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	v, c := inProcessTools(t, now)
	long := strings.Repeat("部署流程需要先运行全部测试然后再发布。", 200)
	for i := range 40 {
		if _, err := v.Create(context.Background(), vault.NewMemory{Title: fmt.Sprintf("部署规则 %d", i), Content: long}, vault.Author{}); err != nil {
			t.Fatal(err)
		}
	}
	res, text := callTool(t, c, "recall", map[string]any{"query": "部署", "limit": 40})
	if res.IsError {
		t.Fatalf("recall: %s", text)
	}
	var out recallOutput
	decodeStructured(t, res, &out)
	if n := len(out.Results); n == 0 || n >= 40 {
		t.Errorf("results: got %d, want some but fewer than 40 under the budget", n)
	}
	if len(text) > recallBudgetBytes+1000 {
		t.Errorf("text: %d bytes, want at most about %d", len(text), recallBudgetBytes)
	}
	if !strings.Contains(text, "more results left out") {
		t.Errorf("text does not say results were left out:\n%s", text[max(0, len(text)-300):])
	}
}

func TestRecallFilters(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	v, c := inProcessTools(t, now)
	ctx := context.Background()
	a, err := v.Create(ctx, vault.NewMemory{Title: "Tests use pytest", Content: "Run pytest -q.", Tags: []string{"testing"}}, vault.Author{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := v.Create(ctx, vault.NewMemory{Title: "Prefer tabs", Content: "Indent with tabs.", Layer: vault.Preference, Tags: []string{"style"}}, vault.Author{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"empty query lists recent", map[string]any{}, []string{a.Memory.ID, b.Memory.ID}},
		{"tags as string", map[string]any{"tags": "style, nothing"}, []string{b.Memory.ID}},
		{"layers", map[string]any{"layers": []any{"project"}}, []string{a.Memory.ID}},
		{"since after both", map[string]any{"since": "2026-12-01"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustCall[recallOutput](t, c, "recall", tc.args)
			got := map[string]bool{}
			for _, r := range out.Results {
				got[r.ID] = true
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %d results %v, want %v", len(got), got, tc.want)
			}
			for _, id := range tc.want {
				if !got[id] {
					t.Errorf("missing %s in %v", id, got)
				}
			}
		})
	}
}

func TestWritesRecordTheClientName(t *testing.T) {
	v, c := inProcessTools(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	w := mustCall[writeOutput](t, c, "remember", map[string]any{"title": "t", "content": "c", "layer": "short-term"})
	m, err := v.Get(w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source.Client != "unit" || m.Layer != vault.ShortTerm {
		t.Errorf("source.client = %q, layer = %s; want unit, short-term", m.Source.Client, m.Layer)
	}
}

func TestServeOutsideGitFailsAtOnce(t *testing.T) {
	isolateGit(t)
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

// TestToolSchemasAreStrict checks every declared schema has no type unions
// or anyOf/oneOf, which OpenAI-compatible strict clients refuse.
func TestToolSchemasAreStrict(t *testing.T) {
	_, c := inProcessTools(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 7 {
		t.Errorf("got %d tools, want 7", len(res.Tools))
	}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var decoded map[string]any
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatal(err)
		}
		if decoded["outputSchema"] == nil {
			t.Errorf("%s: no outputSchema", tool.Name)
		}
		var walk func(path string, n any)
		walk = func(path string, n any) {
			switch x := n.(type) {
			case map[string]any:
				if _, ok := x["type"].([]any); ok {
					t.Errorf("%s: %s has a type union %v", tool.Name, path, x["type"])
				}
				for _, k := range []string{"anyOf", "oneOf"} {
					if _, ok := x[k]; ok {
						t.Errorf("%s: %s uses %s", tool.Name, path, k)
					}
				}
				for k, v := range x {
					walk(path+"."+k, v)
				}
			case []any:
				for i, v := range x {
					walk(fmt.Sprintf("%s[%d]", path, i), v)
				}
			}
		}
		walk("", decoded)
	}
}

// TestEveryToolAnswersWithinItsOutputSchema drives each tool through a
// server that validates structured results against the declared schema.
func TestEveryToolAnswersWithinItsOutputSchema(t *testing.T) {
	_, c := inProcessTools(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	w := mustCall[writeOutput](t, c, "remember", map[string]any{"title": "Prefer tabs", "content": "Indent with tabs.", "layer": "preference", "tags": []any{"style"}})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"recall", map[string]any{"query": "tabs"}},
		{"recall", map[string]any{}},
		{"get_memory", map[string]any{"id": w.ID}},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "importance": 9, "reason": "r"}},
		{"memory_stats", map[string]any{}},
		{"forget", map[string]any{"id": w.ID, "reason": "r", "delete": true}},
	} {
		res, text := callTool(t, c, tc.tool, tc.args)
		if res.IsError {
			t.Errorf("%s(%v): %s", tc.tool, tc.args, text)
		}
	}
}

// TestRememberRefusesASameTitleMemory checks that remember never replaces
// a memory's body: a same or near-identical title in the same layer is a
// tool error naming the memory, its version and what to do, and nothing
// is written; another layer, a supersedes or another title is a new
// memory.
func TestRememberRefusesASameTitleMemory(t *testing.T) {
	v, c := inProcessTools(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	first := mustCall[writeOutput](t, c, "remember", map[string]any{"title": "Tests use pytest", "content": "Run pytest.", "tags": "testing"})
	tests := []struct {
		name    string
		args    map[string]any
		refused bool
	}{
		{"same title, other case and punctuation", map[string]any{"title": "tests use pytest!", "content": "Run pytest -q.", "tags": "python"}, true},
		{"same again", map[string]any{"title": "Tests use pytest", "content": "Run pytest -q.", "tags": "python"}, true},
		{"a stop word more", map[string]any{"title": "The tests use pytest.", "content": "Content for The tests use pytest."}, true},
		{"full-width", map[string]any{"title": "Ｔｅｓｔｓ ｕｓｅ ｐｙｔｅｓｔ", "content": "Content, full-width."}, true},
		{"narrower rule", map[string]any{"title": "Use pytest for integration tests", "content": "Content for integration tests."}, false},
		{"negation", map[string]any{"title": "Tests do not use pytest", "content": "Content for the negation."}, false},
		{"other layer is a new memory", map[string]any{"title": "Tests use pytest", "content": "I like pytest.", "layer": "preference"}, false},
		{"supersedes is a new memory", map[string]any{"title": "Tests use pytest", "content": "Run pytest -x.", "supersedes": []any{first.ID}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := v.Stats().Total
			res, text := callTool(t, c, "remember", tc.args)
			if !tc.refused {
				var w writeOutput
				if res.IsError {
					t.Fatalf("remember: %s", text)
				}
				decodeStructured(t, res, &w)
				if w.ID == first.ID || w.Version != 1 {
					t.Errorf("got %+v, want a new memory at version 1", w)
				}
				return
			}
			if !res.IsError {
				t.Fatalf("remember = %q, want a tool error", text)
			}
			for _, want := range []string{first.ID, "version 1", `"expected_version": 1`, "update_memory", "supersedes", "distinct title"} {
				if !strings.Contains(text, want) {
					t.Errorf("error %q lacks %q", text, want)
				}
			}
			if got := v.Stats().Total; got != before {
				t.Errorf("memories: %d, want %d (nothing written)", got, before)
			}
		})
	}
	m, err := v.Get(first.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Version 2: marked superseded by the last remember, nothing else.
	if m.Body != "Run pytest.\n" || m.Version != 2 || !slices.Equal(m.Tags, []string{"testing"}) || m.Status != vault.StatusSuperseded {
		t.Errorf("first memory: body %q, version %d, tags %v, status %s; want its own body, version 2, [testing], superseded by the last remember",
			m.Body, m.Version, m.Tags, m.Status)
	}
	if got := v.Stats().Total; got != 5 {
		t.Errorf("memories: got %d, want 5 (first, narrower, negation, preference, successor)", got)
	}
}

// TestRememberToolIsTruthfulAboutWhatItChanges: remember only adds, so it
// is not destructive; calling it twice does not give the same result, so
// it is not idempotent; its description says a same title is refused.
func TestRememberToolIsTruthfulAboutWhatItChanges(t *testing.T) {
	tool := rememberTool()
	a := tool.Annotations
	if a.DestructiveHint == nil || *a.DestructiveHint || a.IdempotentHint == nil || *a.IdempotentHint || a.ReadOnlyHint == nil || *a.ReadOnlyHint {
		t.Errorf("annotations %+v, want destructive false, idempotent false, read-only false", a)
	}
	for _, want := range []string{"never changes an existing memory", "near-identical title", "update_memory", "supersedes"} {
		if !strings.Contains(tool.Description, want) {
			t.Errorf("description lacks %q", want)
		}
	}
	for _, stale := range []string{"merged_into", "updated instead"} {
		if strings.Contains(tool.Description, stale) {
			t.Errorf("description still says %q", stale)
		}
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	v, c := inProcessTools(t, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	ctx := context.Background()
	add := func(n vault.NewMemory) string {
		t.Helper()
		res, err := v.Create(ctx, n, vault.Author{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	pref := add(vault.NewMemory{Title: "Answer in Chinese", Content: "用中文回答。", Layer: vault.Preference})
	rule := add(vault.NewMemory{Title: "Never force-push main", Content: "Protected branch.", Importance: 9})
	add(vault.NewMemory{Title: "Minor naming habit", Content: "Prefer short names.", Importance: 5})
	add(vault.NewMemory{Title: "Migrating auth to OIDC", Content: "Half done: login works, logout pending.", Layer: vault.ShortTerm})

	read := func(uri string) string {
		t.Helper()
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := c.ReadResource(ctx, req)
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		var b strings.Builder
		for _, rc := range res.Contents {
			if tc, ok := rc.(mcp.TextResourceContents); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	digest := read(contextURI)
	for _, want := range []string{"Answer in Chinese", "Never force-push main", "Migrating auth to OIDC"} {
		if !strings.Contains(digest, want) {
			t.Errorf("context digest lacks %q:\n%s", want, digest)
		}
	}
	if strings.Contains(digest, "Minor naming habit") {
		t.Errorf("context digest has an importance-5 rule:\n%s", digest)
	}
	if got := read(memoryURIPrefix + pref); !strings.Contains(got, "用中文回答。") {
		t.Errorf("memory resource lacks the body:\n%s", got)
	}

	prompt := func(name string, args map[string]string) string {
		t.Helper()
		req := mcp.GetPromptRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := c.GetPrompt(ctx, req)
		if err != nil {
			t.Fatalf("prompt %s: %v", name, err)
		}
		var b strings.Builder
		for _, m := range res.Messages {
			if tc, ok := mcp.AsTextContent(m.Content); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	if got := prompt("recall", map[string]string{"query": "force-push"}); !strings.Contains(got, rule) {
		t.Errorf("recall prompt lacks %s:\n%s", rule, got)
	}
	if got := prompt("remember-decision", map[string]string{"topic": "the database"}); !strings.Contains(got, "the database") || !strings.Contains(got, "supersedes") {
		t.Errorf("remember-decision prompt = %q, want the topic and supersedes guidance", got)
	}
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

// connectInProcess connects mcp-go's in-process client (named "unit") to s
// and initializes it with the given protocol version.
func connectInProcess(t *testing.T, s *server.MCPServer, protocol string) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = protocol
	init.Params.ClientInfo = mcp.Implementation{Name: "unit", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}
