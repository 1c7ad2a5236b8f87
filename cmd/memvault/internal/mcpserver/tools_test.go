package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/digest"
)

// t0 is the tests' usual clock.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// ids lists the ids of recall or list results.
func ids(rs []view.RecallResult) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// refIDs lists the ids of references.
func refIDs(rs []view.Ref) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestRecallStaysWithinItsBudget(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	long := strings.Repeat("部署流程需要先运行全部测试然后再发布。", 200)
	for i := range 40 {
		ts.project.add(t, vault.NewMemory{Title: fmt.Sprintf("部署规则 %d", i), Content: long})
	}
	res, text := callTool(t, ts.c, "recall", map[string]any{"query": "部署", "limit": 40})
	if res.IsError {
		t.Fatalf("recall: %s", text)
	}
	var out view.Recall
	decodeStructured(t, res, &out)
	if n := len(out.Results); n == 0 || n >= 40 {
		t.Errorf("results: got %d, want some but fewer than 40 under the budget", n)
	}
	if len(text) > resultsBudgetBytes+1000 {
		t.Errorf("text: %d bytes, want at most about %d", len(text), resultsBudgetBytes)
	}
	if !strings.Contains(text, "more results left out") {
		t.Errorf("text does not say results were left out:\n%s", text[max(0, len(text)-300):])
	}
}

func TestRecallFilters(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	a := ts.project.add(t, vault.NewMemory{Title: "Tests use pytest", Content: "Run pytest -q.", Tags: []string{"testing"}})
	b := ts.project.add(t, vault.NewMemory{Title: "Prefer tabs", Content: "Indent with tabs.", Layer: vault.Preference, Tags: []string{"style"}})
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"empty query lists recent", map[string]any{}, []string{a, b}},
		{"tags", map[string]any{"tags": []any{"style", "nothing"}}, []string{b}},
		{"layers", map[string]any{"layers": []any{"project"}}, []string{a}},
		{"layers by number", map[string]any{"layers": []any{"L4"}}, []string{b}},
		{"since after both", map[string]any{"since": "2026-12-01"}, nil},
		{"aliases", map[string]any{"q": "tabs", "k": 2, "tags": []any{}, "since": "2026-01-01"}, []string{b}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(mustCall[view.Recall](t, ts.c, "recall", tc.args).Results)
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestWritesRecordTheClientName(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	w := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "t", "content": "c", "layer": "short-term"})
	m, err := ts.project.v.Get(w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source.Client != "unit" || m.Layer != vault.ShortTerm {
		t.Errorf("source.client = %q, layer = %s; want unit, short-term", m.Source.Client, m.Layer)
	}
	if msg := ts.project.commits.last(); !strings.Contains(msg, "Memory-Client: unit") {
		t.Errorf("commit message lacks Memory-Client: unit:\n%s", msg)
	}
}

// TestToolSchemasAreStrict checks every declared schema has no type unions
// or anyOf/oneOf, which OpenAI-compatible strict clients refuse, and that
// every input schema refuses unknown properties.
func TestToolSchemasAreStrict(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	listed := listedTools(t, ts.c)
	for name, b := range listed {
		var decoded map[string]any
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatal(err)
		}
		if decoded["outputSchema"] == nil {
			t.Errorf("%s: no outputSchema", name)
		}
		if in, _ := decoded["inputSchema"].(map[string]any); in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: input schema %v, want an object without additional properties", name, in)
		}
		var walk func(path string, n any)
		walk = func(path string, n any) {
			switch x := n.(type) {
			case map[string]any:
				if _, ok := x["type"].([]any); ok {
					t.Errorf("%s: %s has a type union %v", name, path, x["type"])
				}
				for _, k := range []string{"anyOf", "oneOf"} {
					if _, ok := x[k]; ok {
						t.Errorf("%s: %s uses %s", name, path, k)
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
	names := slices.Sorted(maps.Keys(listed))
	want := []string{"confirm_memory", "forget", "get_memory", "list_memories", "memory_history", "memory_stats", "recall", "remember", "update_memory"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// TestEveryToolAnswersWithinItsOutputSchema drives each tool through the
// test server, which validates structured results against the declared
// schema (Config.CheckOutput; the served binary skips the check). A tool
// answering outside its schema shows that the check is on.
func TestEveryToolAnswersWithinItsOutputSchema(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{user: true})
	ts.mcp.AddTool(mcp.NewTool("off_schema", strictOutputSchema[view.Confirm]()),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultStructured(map[string]any{"id": 1}, "off schema"), nil
		})
	if res, text := callTool(t, ts.c, "off_schema", nil); !res.IsError {
		t.Errorf("a result outside its schema was sent (%q): the test server does not check output", text)
	}
	w := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Prefer tabs", "content": "Indent with tabs.", "layer": "preference", "tags": []any{"style"}})
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"recall", map[string]any{"query": "tabs"}},
		{"recall", map[string]any{}},
		{"get_memory", map[string]any{"id": w.ID}},
		{"update_memory", map[string]any{"id": w.ID, "expected_version": 1, "importance": 9, "reason": "r"}},
		{"list_memories", map[string]any{}},
		{"memory_stats", map[string]any{}},
		{"memory_history", map[string]any{"id": w.ID}},
		{"confirm_memory", map[string]any{"id": w.ID, "reason": "checked"}},
		{"forget", map[string]any{"id": w.ID, "reason": "r", "delete": true}},
	} {
		res, text := callTool(t, ts.c, tc.tool, tc.args)
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
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	v := ts.project.v
	first := mustCall[view.Write](t, ts.c, "remember", map[string]any{"title": "Tests use pytest", "content": "Run pytest.", "tags": []any{"testing"}})
	tests := []struct {
		name    string
		args    map[string]any
		refused bool
	}{
		{"same title, other case and punctuation", map[string]any{"title": "tests use pytest!", "content": "Run pytest -q.", "tags": []any{"python"}}, true},
		{"same again", map[string]any{"title": "Tests use pytest", "content": "Run pytest -q.", "tags": []any{"python"}}, true},
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
			res, text := callTool(t, ts.c, "remember", tc.args)
			if !tc.refused {
				var w view.Write
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

// TestToolAnnotationsAreTruthful: remember only adds, so it is not
// destructive, and calling it twice does not give the same result, so it
// is not idempotent; its description says a same title is refused.
// update_memory needs the version read and overwrites nothing else;
// forget loses what it deletes; the readers change nothing.
func TestToolAnnotationsAreTruthful(t *testing.T) {
	t.Parallel()
	type hints struct{ readOnly, destructive, idempotent bool }
	for _, tc := range []struct {
		tool mcp.Tool
		want hints
	}{
		{rememberTool(), hints{false, false, false}},
		{updateMemoryTool(), hints{false, false, false}},
		{forgetTool(), hints{false, true, false}},
		{confirmMemoryTool(), hints{false, false, false}},
		{recallTool(), hints{true, false, true}},
		{getMemoryTool(), hints{true, false, true}},
		{listMemoriesTool(), hints{true, false, true}},
		{memoryStatsTool(), hints{true, false, true}},
		{memoryHistoryTool(), hints{true, false, true}},
	} {
		a := tc.tool.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v incomplete", tc.tool.Name, a)
			continue
		}
		if got := (hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint}); got != tc.want || *a.OpenWorldHint {
			t.Errorf("%s: hints %+v, open world %v; want %+v, closed world", tc.tool.Name, got, *a.OpenWorldHint, tc.want)
		}
	}
	remember := rememberTool()
	for _, want := range []string{"never changes an existing memory", "near-identical title", "update_memory", "supersedes"} {
		if !strings.Contains(remember.Description, want) {
			t.Errorf("remember's description lacks %q", want)
		}
	}
	for _, stale := range []string{"merged_into", "updated instead"} {
		if strings.Contains(remember.Description, stale) {
			t.Errorf("remember's description still says %q", stale)
		}
	}
	if d := updateMemoryTool().Description; !strings.Contains(d, "expected_version") {
		t.Errorf("update_memory's description does not ask for expected_version: %s", d)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(t0), serverOptions{})
	pref := ts.project.add(t, vault.NewMemory{Title: "Answer in Chinese", Content: "用中文回答。", Layer: vault.Preference})
	rule := ts.project.add(t, vault.NewMemory{Title: "Never force-push main", Content: "Protected branch.", Importance: 9})
	ts.project.add(t, vault.NewMemory{Title: "Minor naming habit", Content: "Prefer short names.", Importance: 5})
	ts.project.add(t, vault.NewMemory{Title: "Migrating auth to OIDC", Content: "Half done: login works, logout pending.", Layer: vault.ShortTerm})

	read := func(uri string) string {
		t.Helper()
		text, err := readResource(t, ts.c, uri)
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		return text
	}
	text := read(contextURI)
	for _, want := range []string{"Answer in Chinese", "Never force-push main", "Migrating auth to OIDC"} {
		if !strings.Contains(text, want) {
			t.Errorf("context digest lacks %q:\n%s", want, text)
		}
	}
	// An importance-5 rule is no key rule; written this week, it is one
	// of the week's decisions.
	rules, recent, _ := strings.Cut(text, "## "+digest.Recent)
	if strings.Contains(rules, "Minor naming habit") || !strings.Contains(recent, "Minor naming habit") {
		t.Errorf("context digest lists an importance-5 rule of this week elsewhere than under %q:\n%s", digest.Recent, text)
	}
	if got := read(memoryURIPrefix + pref); !strings.Contains(got, "用中文回答。") {
		t.Errorf("memory resource lacks the body:\n%s", got)
	}

	prompt := func(name string, args map[string]string) string {
		t.Helper()
		req := mcp.GetPromptRequest{}
		req.Params.Name = name
		req.Params.Arguments = args
		res, err := ts.c.GetPrompt(t.Context(), req)
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

// TestReadingAnUnknownMemory checks that memory://memories/{id} of an id
// no vault holds fails with the protocol's resource-not-found error: -32002
// before protocol 2026-07-28, invalid params (-32602) from it (SEP-2164),
// not an internal error.
func TestReadingAnUnknownMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		protocol string
		want     error
	}{
		{legacyProtocol, mcp.ErrResourceNotFound},
		{mcp.LATEST_PROTOCOL_VERSION, mcp.ErrInvalidParams},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			t.Parallel()
			ts := newTestServer(t, newClock(t0), serverOptions{user: true, protocol: tc.protocol})
			id := ts.user.add(t, vault.NewMemory{Title: "Prefer tabs", Content: "Tabs.", Layer: vault.Preference})
			if text, err := readResource(t, ts.c, memoryURIPrefix+id); err != nil || !strings.Contains(text, "vault: user") {
				t.Fatalf("read of a user vault memory = %q, %v", text, err)
			}
			_, err := readResource(t, ts.c, memoryURIPrefix+"01NOSUCHMEMORY0000000000000")
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "01NOSUCHMEMORY0000000000000") {
				t.Errorf("read of an unknown memory: %v, want %v naming the id", err, tc.want)
			}
		})
	}
}

func TestRecallRanksTheVaultsTogether(t *testing.T) {
	t.Parallel()
	// A small user vault is not outranked because its own statistics make
	// every term look common: the preference that answers comes first.
	ts := newTestServer(t, newClock(t0), serverOptions{user: true})
	pref := ts.user.add(t, vault.NewMemory{Title: "测试用 pytest", Layer: vault.Preference, Content: "开发者要求测试一律用 pytest 编写和运行，不要用 unittest。"})
	for _, n := range []vault.NewMemory{
		{Title: "上线流程", Content: "上线部署：CI 通过后在仓库根目录运行 ops/deploy.sh。"},
		{Title: "代码格式用 black", Content: "提交前用 black 格式化 Python 代码。"},
		{Title: "数据库迁移", Content: "用 alembic 写迁移脚本，已执行的迁移不要修改。"},
		{Title: "分支命名", Content: "分支命名为 feature/<单号> 或 fix/<单号>。"},
		{Title: "预发环境", Content: "预发环境在 staging.internal，用 make reset-staging 重置。"},
	} {
		ts.project.add(t, n)
	}
	for _, q := range []string{"单元测试怎么写", "测试用什么框架"} {
		out := mustCall[view.Recall](t, ts.c, "recall", map[string]any{"query": q})
		if len(out.Results) == 0 || out.Results[0].ID != pref || out.Results[0].Vault != vault.UserVault {
			t.Errorf("recall %q = %+v, want the user vault's %s first", q, out.Results, pref)
		}
	}
}

// TestDocsNameEveryArgument keeps docs/mcp.md's reference true: every
// tool and each of its arguments is named there.
func TestDocsNameEveryArgument(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	ts := newTestServer(t, newClock(t0), serverOptions{})
	for name, spec := range ts.args {
		if !strings.Contains(doc, "| `"+name+"` |") {
			t.Errorf("docs/mcp.md has no row for %s", name)
		}
		for _, arg := range spec.names() {
			if !strings.Contains(doc, "`"+arg+"`") {
				t.Errorf("docs/mcp.md does not name %s's argument %s", name, arg)
			}
		}
	}
}

// TestPromptListing checks how the prompts read as Claude Code's slash
// commands (/mcp__memvault__<name>): a name of lower-case words and
// hyphens, a one-line description short enough for the command menu, and
// a description for each argument.
func TestPromptListing(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, newClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)), serverOptions{})
	res, err := ts.c.ListPrompts(t.Context(), mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range res.Prompts {
		names[p.Name] = true
		if strings.Trim(p.Name, "abcdefghijklmnopqrstuvwxyz-") != "" {
			t.Errorf("prompt name %q: want lower-case words and hyphens", p.Name)
		}
		if n := len([]rune(p.Description)); n == 0 || n > 100 || strings.ContainsAny(p.Description, "\n") || strings.HasSuffix(p.Description, ".") {
			t.Errorf("prompt %s: description %q (%d characters): want one line of at most 100, no final period", p.Name, p.Description, n)
		}
		for _, a := range p.Arguments {
			if a.Description == "" {
				t.Errorf("prompt %s: argument %s has no description", p.Name, a.Name)
			}
		}
	}
	if !names["recall"] || !names["remember-decision"] || len(names) != 2 {
		t.Errorf("prompts = %v, want recall and remember-decision", names)
	}
}
