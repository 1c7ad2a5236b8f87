package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault/load"
)

// TestCLIAndMCPAgree runs one table of operations through both doors on
// identical vaults (a project vault and a user vault, each in its own
// repository): the CLI in process, and `memvault serve` in process driven
// by mcp-go's client over pipes, both at the same clock. After every
// operation the CLI's answer must use the field names of the MCP tool's
// declared output schema, and the answers must be the same JSON, or the
// same refusal; at the end the two sides must hold the same files and the
// same commits.
//
// What differs by design is normalised away: the ids (random ULIDs),
// commit hashes and etags (which hash the ids) become labels in the order
// they appear, the temporary
// folders become placeholders, and the index's age is dropped. The MCP
// client calls itself "cli", the name the CLI writes as the client, so
// the commits and the files can be compared byte for byte.
func TestCLIAndMCPAgree(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	t0 := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	clock := &testClock{now: t0}
	cli := newParitySide(t, "cli")
	mcpSide := newParitySide(t, "mcp")
	mcpSide.client = serveParity(t, clock.Now, mcpSide)
	schemas := outputSchemas(t, mcpSide.client)

	ops := []parityOp{
		{name: "remember a project rule",
			cli: []string{"add", "Checkout uses the strategy pattern", "--content", "Each promotion is a strategy. Rejected: an if/else chain and Drools.",
				"--tags", "checkout,architecture", "--importance", "8", "--reason", "design review"},
			tool: "remember", args: map[string]any{"title": "Checkout uses the strategy pattern",
				"content": "Each promotion is a strategy. Rejected: an if/else chain and Drools.",
				"tags":    []any{"checkout", "architecture"}, "importance": 8, "reason": "design review"},
			label: "A"},
		{name: "remember a preference: it goes to the user vault",
			cli:  []string{"add", "Tabs, not spaces, in Go files", "--layer", "preference", "--content", "gofmt decides; never argue about it.", "--tags", "style"},
			tool: "remember", args: map[string]any{"title": "Tabs, not spaces, in Go files", "layer": "preference",
				"content": "gofmt decides; never argue about it.", "tags": []any{"style"}},
			label: "P"},
		{name: "remember task state",
			cli:  []string{"add", "Refund flow half done", "--layer", "short-term", "--content", "Refund API done; the admin page is next.", "--tags", "refunds"},
			tool: "remember", args: map[string]any{"title": "Refund flow half done", "layer": "short-term",
				"content": "Refund API done; the admin page is next.", "tags": []any{"refunds"}},
			label: "T"},
		{name: "remember a rule to delete later",
			cli:  []string{"add", "Old deploy script", "--content", "Deploy with ops/old-deploy.sh.", "--tags", "deploy"},
			tool: "remember", args: map[string]any{"title": "Old deploy script", "content": "Deploy with ops/old-deploy.sh.", "tags": []any{"deploy"}},
			label: "D"},
		{name: "remember with refs to code",
			cli:  []string{"add", "Cache layout", "--content", "Keys are plain strings.", "--refs", "internal/cache.go,docs/", "--tags", "cache"},
			tool: "remember", args: map[string]any{"title": "Cache layout", "content": "Keys are plain strings.", "refs": []any{"internal/cache.go", "docs/"}, "tags": []any{"cache"}},
			label: "R"},
		{name: "a same-title write is refused",
			cli:  []string{"add", "Checkout uses the strategy pattern!", "--content", "Replaced body."},
			tool: "remember", args: map[string]any{"title": "Checkout uses the strategy pattern!", "content": "Replaced body."},
			refused: true},
		{name: "update the title", cli: []string{"update", "{A}", "--expected-version", "1", "--title", "Checkout: one strategy per promotion", "--reason", "clearer"},
			tool: "update_memory", args: map[string]any{"id": "{A}", "expected_version": 1, "title": "Checkout: one strategy per promotion", "reason": "clearer"}},
		{name: "update the content", cli: []string{"update", "{A}", "--expected-version", "2", "--content", "Each promotion is a strategy; stacking order by Priority().", "--reason", "stacking"},
			tool: "update_memory", args: map[string]any{"id": "{A}", "expected_version": 2, "content": "Each promotion is a strategy; stacking order by Priority().", "reason": "stacking"}},
		{name: "update the tags", cli: []string{"update", "{A}", "--expected-version", "3", "--tags", "checkout,promotions", "--reason", "retag"},
			tool: "update_memory", args: map[string]any{"id": "{A}", "expected_version": 3, "tags": []any{"checkout", "promotions"}, "reason": "retag"}},
		{name: "update the importance", cli: []string{"update", "{A}", "--expected-version", "4", "--importance", "9", "--reason", "bit us twice"},
			tool: "update_memory", args: map[string]any{"id": "{A}", "expected_version": 4, "importance": 9, "reason": "bit us twice"}},
		{name: "update effective_at", cli: []string{"update", "{A}", "--expected-version", "5", "--effective-at", "2026-09-01", "--reason", "in force since September"},
			tool: "update_memory", args: map[string]any{"id": "{A}", "expected_version": 5, "effective_at": "2026-09-01", "reason": "in force since September"}},
		{name: "update expires_at", cli: []string{"update", "{T}", "--expected-version", "1", "--expires-at", "2026-10-20", "--reason", "due date"},
			tool: "update_memory", args: map[string]any{"id": "{T}", "expected_version": 1, "expires_at": "2026-10-20", "reason": "due date"}},
		{name: "update links", cli: []string{"update", "{A}", "--expected-version", "6", "--links", "{T}", "--reason", "related work"},
			tool: "update_memory", args: map[string]any{"id": "{A}", "expected_version": 6, "links": []any{"{T}"}, "reason": "related work"}},
		{name: "update the layer", cli: []string{"update", "{T}", "--expected-version", "2", "--layer", "project", "--reason", "keep it"},
			tool: "update_memory", args: map[string]any{"id": "{T}", "expected_version": 2, "layer": "project", "reason": "keep it"}},
		{name: "update with a stale version is refused", cli: []string{"update", "{A}", "--expected-version", "1", "--importance", "3", "--reason", "stale"},
			tool: "update_memory", args: map[string]any{"id": "{A}", "expected_version": 1, "importance": 3, "reason": "stale"}, refused: true},
		{name: "supersede across vaults: a project rule replaces the user preference",
			cli: []string{"add", "Formatting is gofmt's, project-wide", "--content", "CI runs gofmt -l; the preference is now a project rule.",
				"--supersedes", "{P}", "--scope", "project", "--reason", "make it a team rule"},
			tool: "remember", args: map[string]any{"title": "Formatting is gofmt's, project-wide",
				"content": "CI runs gofmt -l; the preference is now a project rule.", "supersedes": []any{"{P}"}, "scope": "project", "reason": "make it a team rule"},
			label: "S"},
		{name: "update supersedes", cli: []string{"update", "{S}", "--expected-version", "1", "--supersedes", "{P},{D}", "--reason", "the old script rule too"},
			tool: "update_memory", args: map[string]any{"id": "{S}", "expected_version": 1, "supersedes": []any{"{P}", "{D}"}, "reason": "the old script rule too"}},
		{name: "forget (archive)", cli: []string{"forget", "{T}", "--reason", "done"},
			tool: "forget", args: map[string]any{"id": "{T}", "reason": "done"}},
		{name: "forget (delete)", cli: []string{"forget", "{D}", "--delete", "--reason", "script removed"},
			tool: "forget", args: map[string]any{"id": "{D}", "delete": true, "reason": "script removed"}},
		{name: "recall by query", cli: []string{"recall", "strategy pattern promotions"},
			tool: "recall", args: map[string]any{"query": "strategy pattern promotions"}},
		{name: "recall in Chinese", cli: []string{"recall", "结算 策略模式"},
			tool: "recall", args: map[string]any{"query": "结算 策略模式"}},
		{name: "recall with a limit", cli: []string{"recall", "gofmt", "--limit", "1"},
			tool: "recall", args: map[string]any{"query": "gofmt", "limit": 1}},
		{name: "recall by layer", cli: []string{"recall", "", "--layers", "preference"},
			tool: "recall", args: map[string]any{"query": "", "layers": []any{"preference"}}},
		{name: "recall by tag", cli: []string{"recall", "", "--tags", "checkout"},
			tool: "recall", args: map[string]any{"tags": []any{"checkout"}}},
		{name: "recall since", cli: []string{"recall", "", "--since", "2026-10-01T09:10:00Z"},
			tool: "recall", args: map[string]any{"since": "2026-10-01T09:10:00Z"}},
		{name: "recall as of the past (git)", cli: []string{"recall", "deploy script", "--as-of", "2026-10-01T09:05:00Z"},
			tool: "recall", args: map[string]any{"query": "deploy script", "as_of": "2026-10-01T09:05:00Z"}},
		{name: "recall as of the future", cli: []string{"recall", "refund", "--as-of", "2026-12-01", "--include-inactive"},
			tool: "recall", args: map[string]any{"query": "refund", "as_of": "2026-12-01", "include_inactive": true}},
		{name: "recall including inactive", cli: []string{"recall", "gofmt tabs", "--include-inactive"},
			tool: "recall", args: map[string]any{"query": "gofmt tabs", "include_inactive": true}},
		{name: "list by layer and status", cli: []string{"list", "--layer", "project", "--status", "active"},
			tool: "list_memories", args: map[string]any{"layers": []any{"project"}, "statuses": []any{"active"}}},
		{name: "list everything", cli: []string{"list"}, tool: "list_memories", args: map[string]any{}},
		{name: "show / get_memory", cli: []string{"show", "{A}"}, tool: "get_memory", args: map[string]any{"id": "{A}"}},
		{name: "update refs", cli: []string{"update", "{R}", "--expected-version", "1", "--refs", "internal/cache.go", "--reason", "narrower"},
			tool: "update_memory", args: map[string]any{"id": "{R}", "expected_version": 1, "refs": []any{"internal/cache.go"}, "reason": "narrower"}},
		{name: "show a memory with refs: its staleness", cli: []string{"show", "{R}"}, tool: "get_memory", args: map[string]any{"id": "{R}"}},
		{name: "show a superseded preference", cli: []string{"show", "{P}"}, tool: "get_memory", args: map[string]any{"id": "{P}"}},
		{name: "history", cli: []string{"history", "{A}"}, tool: "memory_history", args: map[string]any{"id": "{A}"}},
		{name: "history of a deleted memory", cli: []string{"history", "{D}"}, tool: "memory_history", args: map[string]any{"id": "{D}"}},
		{name: "stats / memory_stats", cli: []string{"stats"}, tool: "memory_stats", args: map[string]any{}},
	}
	for i, op := range ops {
		clock.set(t0.Add(time.Duration(i+1) * time.Minute))
		cliOut, cliErr := cli.runCLI(t, clock.Now(), op)
		mcpOut, mcpErr := mcpSide.callMCP(t, op)
		if op.refused {
			if cliErr == "" || mcpErr == "" {
				t.Errorf("%s: want both doors to refuse; CLI: %q, MCP: %q", op.name, cliErr, mcpErr)
			}
			continue
		}
		if cliErr != "" || mcpErr != "" {
			t.Fatalf("%s: CLI error %q, MCP error %q", op.name, cliErr, mcpErr)
		}
		// Names first: the CLI's --json must use the MCP output's field
		// names, including the fields this scenario leaves out.
		var cliAnswer any
		if err := json.Unmarshal(cliOut, &cliAnswer); err != nil {
			t.Fatalf("%s: CLI: not JSON: %v", op.name, err)
		}
		if schema, ok := schemas[op.tool]; !ok {
			t.Errorf("%s: tool %s declares no output schema", op.name, op.tool)
		} else {
			for _, e := range schemaNameErrors(schema, cliAnswer) {
				t.Errorf("%s: CLI --json field %s", op.name, e)
			}
		}
		if op.label != "" {
			cli.learn(t, op.label, cliOut)
			mcpSide.learn(t, op.label, mcpOut)
		}
		got, want := mcpSide.normalise(t, mcpOut), cli.normalise(t, cliOut)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the doors answer differently (-CLI +MCP):\n%s", op.name, diff)
		}
	}

	cliLogs := map[string][]string{}
	for _, vaultName := range []string{"project", "user"} {
		cliFiles, mcpFiles := cli.files(t, vaultName), mcpSide.files(t, vaultName)
		if len(cliFiles) == 0 {
			t.Errorf("%s vault: no files written", vaultName)
		}
		if diff := cmp.Diff(cliFiles, mcpFiles); diff != "" {
			t.Errorf("%s vault files differ (-CLI +MCP):\n%s", vaultName, diff)
		}
		cliLog, mcpLog := cli.log(t, vaultName), mcpSide.log(t, vaultName)
		cliLogs[vaultName] = cliLog
		if diff := cmp.Diff(cliLog, mcpLog); diff != "" {
			t.Errorf("%s repository commits differ (-CLI +MCP):\n%s", vaultName, diff)
		}
	}
	// One commit per write, in the repository of the vault written: the
	// cross-vault supersede is one commit in the project repository and
	// none in the user's.
	writes := 0
	for _, op := range ops {
		if !op.refused && (op.tool == "remember" || op.tool == "update_memory" || op.tool == "forget") {
			writes++
		}
	}
	if n := len(cliLogs["project"]); n != writes-1 {
		t.Errorf("project repository: %d commits, want %d (one per write but the preference's)", n, writes-1)
	}
	if n := len(cliLogs["user"]); n != 1 {
		t.Errorf("user repository: %d commits, want 1 (the preference)", n)
	}
	t.Logf("%d operations through both doors; %d writes, %d commits in the project repository", len(ops), writes, len(cliLogs["project"]))
}

// parityOp is one operation, as a CLI command line (without --json and
// the vault flags) and as an MCP tool call. "{X}" in either stands for the
// id of the memory the operation labelled X created.
type parityOp struct {
	name    string
	cli     []string
	tool    string
	args    map[string]any
	label   string // the id the operation creates is known as {label}
	refused bool   // both doors must refuse it
}

// paritySide is one door's repositories and what it learned of ids.
type paritySide struct {
	name                  string
	projectRoot, userRoot string
	ids                   map[string]string // label -> id
	home                  string
	client                *client.Client
	// hashes is hashLabels' answer, kept until the side next runs an
	// operation: canon needs it for every answer, file and commit it
	// reads, and each costs four git processes.
	hashes map[string]string
	// etags labels each etag the side has answered with by its order of
	// first appearance: the two sides' etags differ (they hash ids), but
	// the same operations must give equal etags at the same places.
	etags map[string]string
}

func newParitySide(t *testing.T, name string) *paritySide {
	t.Helper()
	return &paritySide{name: name, projectRoot: newRepo(t), userRoot: newRepo(t), ids: map[string]string{}, etags: map[string]string{}, home: t.TempDir()}
}

func (s *paritySide) projectVault() string { return filepath.Join(s.projectRoot, ".memory") }
func (s *paritySide) userVault() string    { return filepath.Join(s.userRoot, ".memvault") }

// resolve replaces {X} by the id labelled X.
func (s *paritySide) resolve(v string) string {
	for label, id := range s.ids {
		v = strings.ReplaceAll(v, "{"+label+"}", id)
	}
	return v
}

func (s *paritySide) resolveAny(v any) any {
	switch x := v.(type) {
	case string:
		return s.resolve(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.resolveAny(e)
		}
		return out
	}
	return v
}

// runCLI runs the operation through the CLI in process; it returns the
// JSON printed, or the error when the command failed.
func (s *paritySide) runCLI(t *testing.T, now time.Time, op parityOp) (out json.RawMessage, errText string) {
	t.Helper()
	args := []string{"--vault", s.projectVault()}
	for _, a := range op.cli {
		args = append(args, s.resolve(a))
	}
	args = append(args, "--json", "--user-vault", s.userVault())
	s.hashes = nil
	var stdout, stderr bytes.Buffer
	m := NewMain(strings.NewReader(""), &stdout, &stderr)
	m.Now = func() time.Time { return now }
	m.Getenv = func(k string) string {
		if k == "HOME" {
			return s.home
		}
		return os.Getenv(k)
	}
	if code := m.Run(context.Background(), args); code != 0 {
		if stderr.Len() == 0 {
			return nil, "exit " + strconv.Itoa(code)
		}
		return nil, stderr.String()
	}
	return json.RawMessage(stdout.Bytes()), ""
}

// callMCP runs the operation through the MCP client.
func (s *paritySide) callMCP(t *testing.T, op parityOp) (json.RawMessage, string) {
	t.Helper()
	args := map[string]any{}
	for k, v := range op.args {
		args[k] = s.resolveAny(v)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = op.tool, args
	s.hashes = nil
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.client.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %s: protocol error %v", op.name, op.tool, err)
	}
	if res.IsError {
		return nil, resultText(res)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return b, ""
}

// learn records the id a write answered with under label.
func (s *paritySide) learn(t *testing.T, label string, out json.RawMessage) {
	t.Helper()
	var w view.Write
	if err := json.Unmarshal(out, &w); err != nil || w.ID == "" {
		t.Fatalf("%s: %s: no id in %s (%v)", s.name, label, out, err)
	}
	s.ids[label] = w.ID
}

// ulidOrHash matches what differs between the sides by chance: ids and
// commit hashes (full or abbreviated in text).
var ulidOrHash = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b|\b[0-9a-f]{40}\b`)

// etagPattern matches a memory's etag (vault.Memory.ETag).
var etagPattern = regexp.MustCompile(`\b([0-9]+)-[0-9a-f]{12}\b`)

// normalise decodes a JSON answer into plain values with ids, hashes and
// folders replaced by stable names and wall-clock fields dropped.
func (s *paritySide) normalise(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	text := s.canon(t, string(raw))
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", s.name, err, raw)
	}
	dropWallClock(v)
	return v
}

// canon replaces ids by their labels, commit hashes by their place in the
// repositories' logs, etags by their order of appearance, and the side's
// folders by placeholders.
func (s *paritySide) canon(t *testing.T, text string) string {
	t.Helper()
	byID := map[string]string{}
	for label, id := range s.ids {
		byID[id] = "{" + label + "}"
	}
	text = ulidOrHash.ReplaceAllStringFunc(text, func(m string) string {
		if l, ok := byID[m]; ok {
			return l
		}
		if s.hashes == nil {
			s.hashes = s.hashLabels(t)
		}
		if l, ok := s.hashes[m]; ok {
			return l
		}
		return "{unknown:" + m + "}"
	})
	text = etagPattern.ReplaceAllStringFunc(text, func(m string) string {
		l, ok := s.etags[m]
		if !ok {
			l = etagPattern.ReplaceAllString(m, "$1-{etag"+strconv.Itoa(len(s.etags)+1)+"}")
			s.etags[m] = l
		}
		return l
	})
	for _, r := range []struct{ dir, name string }{{s.userRoot, "{user-repo}"}, {s.projectRoot, "{project-repo}"}} {
		real, _ := filepath.EvalSymlinks(r.dir)
		for _, d := range []string{r.dir, real} {
			if d != "" {
				text = strings.ReplaceAll(text, d, r.name)
			}
		}
	}
	return text
}

// hashLabels names every commit of the side's repositories by repository
// and position ("{project@3}"), oldest first.
func (s *paritySide) hashLabels(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range []struct{ root, name string }{{s.projectRoot, "project"}, {s.userRoot, "user"}} {
		// rev-list --all, unlike log, lists nothing in a repository
		// without commits yet: one process, no HEAD check first. The
		// histories are linear, one branch.
		hashes := gitLines(t, r.root, "rev-list", "--reverse", "--all")
		for i, h := range hashes {
			out[h] = "{" + r.name + "@" + strconv.Itoa(i+1) + "}"
		}
	}
	return out
}

// dropWallClock removes the fields that measure this process, not the
// vault: the index's age and when it was loaded.
func dropWallClock(v any) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "index_age_seconds")
		delete(x, "loaded_at")
		// Object sizes are zlib sizes of objects that differ in their
		// times and ids; their counts are compared.
		delete(x, "loose_bytes")
		delete(x, "pack_bytes")
		for _, e := range x {
			dropWallClock(e)
		}
	case []any:
		for _, e := range x {
			dropWallClock(e)
		}
	}
}

// files reads every file of a vault, ids replaced by labels.
func (s *paritySide) files(t *testing.T, vaultName string) map[string]string {
	t.Helper()
	dir := s.projectVault()
	if vaultName == "user" {
		dir = s.userVault()
	}
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == load.CacheDirName {
			// The index cache is derived state any load may write, as
			// git status refreshes git's index.
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = s.canon(t, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// log lists a repository's commits, oldest first: author, dates, message
// and the files changed, ids and hashes replaced by labels.
func (s *paritySide) log(t *testing.T, vaultName string) []string {
	t.Helper()
	root := s.projectRoot
	if vaultName == "user" {
		root = s.userRoot
	}
	// One git log for the whole history, each commit starting with a NUL
	// byte (no commit message holds one), rather than a git show per
	// commit: the same fields, one process instead of one per commit.
	lines := gitLog(t, root, "--name-status", "--format=%x00%H%n%an <%ae> %at%n%cn <%ce> %ct%n%P%n%B")
	var commits []string
	for _, c := range strings.Split(strings.Join(lines, "\n"), "\x00")[1:] {
		commits = append(commits, s.canon(t, strings.TrimRight(c, "\n")))
	}
	return commits
}

// gitLog lists a repository's history, oldest first, in format args;
// nothing before the first commit.
func gitLog(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	if err := exec.Command("git", "-C", dir, "rev-parse", "--verify", "-q", "HEAD").Run(); err != nil {
		return nil
	}
	return gitLines(t, dir, append([]string{"log", "--reverse"}, args...)...)
}

// gitLines runs git in dir and returns its output lines.
func gitLines(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	s := strings.TrimRight(string(out), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// serveParity runs `memvault serve` for the side in process at now's
// time and connects mcp-go's client as "cli".
func serveParity(t *testing.T, now func() time.Time, s *paritySide) *client.Client {
	t.Helper()
	return serveAs(t, now, s.home, "cli", "--vault", s.projectVault(), "--user-vault", s.userVault())
}

// outputSchemas lists the MCP tools' output schemas, by tool name, as the
// server declares them to a client.
func outputSchemas(t *testing.T, c *client.Client) map[string]map[string]any {
	t.Helper()
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]map[string]any{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var decl struct {
			OutputSchema map[string]any `json:"outputSchema"`
		}
		if err := json.Unmarshal(b, &decl); err != nil {
			t.Fatal(err)
		}
		if decl.OutputSchema != nil {
			out[tool.Name] = decl.OutputSchema
		}
	}
	return out
}

// schemaNameErrors checks the field names of a JSON answer against a
// JSON schema: every object field must be a property the schema declares
// (or the object a map), and every required property must be there. It
// returns one line per field out of place, named by its path. Values are
// not checked: the doors' names must agree even where a scenario leaves a
// field empty, or where only one door writes it.
func schemaNameErrors(root map[string]any, v any) []string {
	var errs []string
	var walk func(path string, schema map[string]any, v any)
	walk = func(path string, schema map[string]any, v any) {
		for i := 0; schema != nil && i < 8; i++ {
			ref, ok := schema["$ref"].(string)
			if !ok {
				break
			}
			defs, _ := root["$defs"].(map[string]any)
			if defs == nil {
				defs, _ = root["definitions"].(map[string]any)
			}
			name := ref[strings.LastIndex(ref, "/")+1:]
			schema, _ = defs[name].(map[string]any)
		}
		if schema == nil {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			props, _ := schema["properties"].(map[string]any)
			extra, _ := schema["additionalProperties"].(map[string]any)
			for k, e := range x {
				switch sub, ok := props[k].(map[string]any); {
				case ok:
					walk(path+"."+k, sub, e)
				case extra != nil:
					walk(path+"."+k, extra, e)
				default:
					errs = append(errs, fmt.Sprintf("%s.%s: not a field of the MCP output", path, k))
				}
			}
			req, _ := schema["required"].([]any)
			for _, r := range req {
				if k, _ := r.(string); k != "" {
					if _, ok := x[k]; !ok {
						errs = append(errs, fmt.Sprintf("%s.%s: a field the MCP output always has, missing", path, k))
					}
				}
			}
		case []any:
			items, _ := schema["items"].(map[string]any)
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), items, e)
			}
		}
	}
	walk("", root, v)
	slices.Sort(errs)
	return slices.Compact(errs)
}

// TestSchemaNameErrors checks the field-name check with answers that
// disagree with a schema in name only.
func TestSchemaNameErrors(t *testing.T) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"parse_errors": map[string]any{"type": "integer"},
			"by_layer":     map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}},
			"results":      map[string]any{"type": "array", "items": map[string]any{"$ref": "#/$defs/Result"}},
		},
		"required": []any{"parse_errors"},
		"$defs": map[string]any{"Result": map[string]any{"type": "object",
			"properties": map[string]any{"id": map[string]any{"type": "string"}}}},
	}
	tests := []struct {
		name   string
		answer string
		want   []string
	}{
		{"the same names", `{"parse_errors": 0, "by_layer": {"project": 2}, "results": [{"id": "a"}]}`, nil},
		{"a renamed field", `{"errors": 0}`, []string{".errors: not a field of the MCP output", ".parse_errors: a field the MCP output always has, missing"}},
		{"a renamed nested field", `{"parse_errors": 1, "results": [{"id": "a"}, {"ident": "b"}]}`, []string{".results[1].ident: not a field of the MCP output"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.answer), &v); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, schemaNameErrors(schema, v)); diff != "" {
				t.Errorf("schemaNameErrors (-want +got):\n%s", diff)
			}
		})
	}
}
