package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// These tests drive the real Claude Code CLI (npm @anthropic-ai/claude-code)
// with the real memvault binary. Without a login `claude -p` still starts
// the session, runs the SessionStart and UserPromptSubmit hooks and records
// what they injected in the session's transcript, then fails at the API
// call (exit status 1, "Not logged in"): what reached the model is read
// from the transcript, as Claude Code recorded it, not from the hooks'
// own output.

// claudeCodeVersion is the release .ci/run installs; the transcript and
// stream formats these tests read are that release's.
const claudeCodeVersion = "2.1.332"

// claudeCLI returns the path of the claude command, or skips the test
// saying what is missing. In CI (.ci/run installs it) a missing CLI fails.
func claudeCLI(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("claude")
	if err == nil {
		return path
	}
	missing := "the claude command"
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = tool + " (needed to install the Claude Code CLI)"
		}
	}
	msg := "skipping the end-to-end tests through the Claude Code CLI: " + missing + " is not installed; " +
		"run: npm install -g @anthropic-ai/claude-code@" + claudeCodeVersion
	if os.Getenv("CI") != "" {
		t.Fatal(msg + " (.ci/run installs it)")
	}
	t.Skip(msg)
	return ""
}

// The design's three scenarios, in Chinese and English, and a rule the
// Python one supersedes.
const (
	pytestTitle = "Tests use pytest: tests/ folder, files named test_*.py"
	deployTitle = "部署脚本是 ops/deploy.sh"
	py38Title   = "Python 3.8 is the minimum version"
	py38Content = "The project runs on Python 3.8 and newer."
	py311Title  = "Python 3.11 or newer is required"
)

// pythonProject is a git repository holding a small Python project and
// a vault (memvault init, no client) with one memory per scenario: the
// pytest rule, the deploy script, and the Python 3.11 rule that
// supersedes the 3.8 one.
type pythonProject struct {
	*hookRepo
	py38ID string // the superseded rule
}

func newPythonProject(t *testing.T, bin string) *pythonProject {
	t.Helper()
	p := newHookRepo(t, bin)
	p.write("pyproject.toml", "[project]\nname = \"shop\"\nrequires-python = \">=3.11\"\n")
	p.write("src/shop/__init__.py", "")
	p.write("tests/test_shop.py", "def test_import():\n    import shop\n")
	p.write("ops/deploy.sh", "#!/bin/sh\nset -e\nrsync -a src/ deploy@shop:/srv/shop/\n")
	if out, ok := p.commit("shop: first version", "."); !ok {
		t.Fatalf("git commit: %s", out)
	}
	p.memvault("init")
	p.memvault("add", pytestTitle, "--importance", "9", "--tags", "testing,pytest", "--reason", "the team's test layout",
		"--content", "新模块的测试文件放在 `tests/` 目录下,用 pytest 写,文件名是 `test_*.py`。"+
			"Put a module's tests under `tests/`, written for pytest, in files named `test_*.py`; unittest is not used.")
	p.memvault("add", deployTitle, "--importance", "7", "--tags", "deploy", "--refs", "ops/deploy.sh", "--reason", "how we deploy",
		"--content", "部署时运行 `ops/deploy.sh`。Deploys run the script `ops/deploy.sh`; there is no other deploy script.")
	var old struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(p.memvault("add", py38Title, "--importance", "8", "--tags", "python", "--json",
		"--reason", "the first supported version", "--content", "项目支持 Python 3.8 及以上版本。"+py38Content)), &old); err != nil {
		t.Fatal(err)
	}
	p.memvault("add", py311Title, "--importance", "8", "--tags", "python", "--supersedes", old.ID, "--reason", "we moved to 3.11",
		"--content", "项目的 Python 版本要求是 3.11 及以上(pyproject.toml: requires-python >=3.11)。"+
			"The project requires Python 3.11 or newer; the older minimum was dropped.")
	return &pythonProject{hookRepo: p, py38ID: old.ID}
}

// claudeEnv is a Claude Code installation of the test's own: its HOME and
// CLAUDE_CONFIG_DIR are temporary folders, so no test shares sessions,
// settings or plugins with another or with the developer's, and no login
// or API key reaches it.
type claudeEnv struct {
	claude string
	home   string
	config string
	path   string // the PATH claude and its hooks see
}

func newClaudeEnv(t *testing.T, claude string) *claudeEnv {
	t.Helper()
	home := t.TempDir()
	return &claudeEnv{claude: claude, home: home, config: filepath.Join(home, ".claude"), path: pathWithoutMemvault()}
}

// pathWithoutMemvault is this process's PATH without the folders holding
// a memvault command, so a developer's installed memvault never stands in
// for the binary under test.
func pathWithoutMemvault() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "memvault")); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// environ is claude's whole environment: nothing of the developer's but
// the git configuration the tests run with (withIsolatedGit).
func (c *claudeEnv) environ() []string {
	env := []string{
		"HOME=" + c.home,
		"CLAUDE_CONFIG_DIR=" + c.config,
		"PATH=" + c.path,
		"LANG=C.UTF-8",
		// The network is closed in CI: nothing should try it but the API
		// call, which fails at once without a login.
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		// MCP servers connect before the prompt is read: otherwise a
		// slash command of a server still starting (under load, a second
		// or more) is taken for plain text.
		"MCP_CONNECTION_NONBLOCKING=0",
		// And they get two minutes to start, not Claude Code's default:
		// on a machine under a load of 40 the server once missed it and
		// the plugin's server read as not connected.
		"MCP_TIMEOUT=120000",
	}
	for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// claudeTimeout bounds every claude run: a run takes 1 to 3 s here.
const claudeTimeout = 2 * time.Minute

// command runs claude with args in dir and returns its stdout; it fails
// the test unless claude exits 0.
func (c *claudeEnv) command(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := c.run(t, dir, args...)
	if err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (c *claudeEnv) run(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), claudeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.claude, args...)
	cmd.Dir = dir
	cmd.Env = c.environ()
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("claude %s: no answer within %v:\n%s", strings.Join(args, " "), claudeTimeout, out.String())
	}
	return out.String(), err
}

// session is what one `claude -p` run left: the stream of events it
// printed and the transcript it recorded.
type session struct {
	t          *testing.T
	prompt     string
	events     []map[string]any
	transcript []map[string]any
}

// prompt runs `claude -p prompt` in dir and reads its session.
func (c *claudeEnv) prompt(t *testing.T, dir, prompt string) *session {
	t.Helper()
	// The exit status is 1: the API call fails without a login. The
	// stream's result event says the session ran to that point.
	out, _ := c.run(t, dir, "-p", prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events")
	s := &session{t: t, prompt: prompt}
	id := ""
	for _, line := range strings.Split(out, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		s.events = append(s.events, ev)
		if ev["type"] == "result" {
			id, _ = ev["session_id"].(string)
		}
	}
	if id == "" {
		t.Fatalf("claude -p %q printed no result:\n%s", prompt, out)
	}
	files, _ := filepath.Glob(filepath.Join(c.config, "projects", "*", id+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("claude -p %q: want one transcript of session %s under %s, found %v", prompt, id, c.config, files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("transcript %s: %v", files[0], err)
		}
		s.transcript = append(s.transcript, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// hooksRan fails the test unless a hook ran for each event, and every
// hook that ran for it exited 0.
func (s *session) hooksRan(events ...string) {
	s.t.Helper()
	for _, event := range events {
		n := 0
		for _, ev := range s.events {
			if ev["subtype"] != "hook_response" || ev["hook_event"] != event {
				continue
			}
			n++
			if code, _ := ev["exit_code"].(float64); code != 0 || ev["outcome"] != "success" {
				s.t.Errorf("%q: the %s hook exited %v (%v): %v", s.prompt, event, ev["exit_code"], ev["outcome"], ev["stderr"])
			}
		}
		if n == 0 {
			s.t.Errorf("%q: no %s hook ran", s.prompt, event)
		}
	}
}

// attachments returns the transcript's attachments of the given type for
// a hook event.
func (s *session) attachments(typ, event string) []map[string]any {
	var out []map[string]any
	for _, e := range s.transcript {
		a, _ := e["attachment"].(map[string]any)
		if e["type"] == "attachment" && a["type"] == typ && a["hookEvent"] == event {
			out = append(out, a)
		}
	}
	return out
}

// injected is what the hooks of an event added to the model's context,
// as the transcript recorded it: additionalContext (a
// hook_additional_context attachment) and plain stdout (the content of a
// hook_success one).
func (s *session) injected(event string) string {
	var parts []string
	for _, a := range s.attachments("hook_additional_context", event) {
		list, _ := a["content"].([]any)
		for _, c := range list {
			if str, _ := c.(string); str != "" {
				parts = append(parts, str)
			}
		}
	}
	for _, a := range s.attachments("hook_success", event) {
		if str, _ := a["content"].(string); str != "" {
			parts = append(parts, str)
		}
	}
	return strings.Join(parts, "\n")
}

// userText is the text of the session's user messages: what a slash
// command expanded to.
func (s *session) userText() string {
	var b strings.Builder
	for _, e := range s.transcript {
		msg, _ := e["message"].(map[string]any)
		if e["type"] != "user" || msg == nil {
			continue
		}
		switch c := msg["content"].(type) {
		case string:
			b.WriteString(c + "\n")
		case []any:
			for _, part := range c {
				if p, _ := part.(map[string]any); p["type"] == "text" {
					text, _ := p["text"].(string)
					b.WriteString(text + "\n")
				}
			}
		}
	}
	return b.String()
}

// initEvent is the stream's init event: the tools, MCP servers and slash
// commands of the session.
func (s *session) initEvent() map[string]any {
	s.t.Helper()
	for _, ev := range s.events {
		if ev["type"] == "system" && ev["subtype"] == "init" {
			return ev
		}
	}
	s.t.Fatalf("%q: no init event", s.prompt)
	return nil
}

// checkInjected checks that text holds every want and, of the superseded
// Python 3.8 rule, not its content: at most its title or id, on the line
// of the rule that replaced it.
func checkInjected(t *testing.T, p *pythonProject, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s: want %q in what was injected, got:\n%s", what, w, text)
		}
	}
	if strings.Contains(text, py38Content) {
		t.Errorf("%s: the superseded rule %q was injected:\n%s", what, py38Title, text)
	}
	for _, line := range strings.Split(text, "\n") {
		l := strings.ToLower(line)
		if (strings.Contains(line, py38Title) || strings.Contains(line, p.py38ID)) &&
			!strings.Contains(l, "replaces") && !strings.Contains(l, "supersedes") {
			t.Errorf("%s: the superseded rule %q (%s) was injected as a rule of its own:\n%s", what, py38Title, p.py38ID, text)
		}
	}
}

// TestClaudeCodeHooksAfterInit is the acceptance test of the hooks that
// `memvault init --client claude-code` writes, through the real Claude
// Code CLI: the session start carries the project's rules, each of the
// design's three questions, in Chinese and in English, gets the memory
// that answers it (and the Python one not the rule its answer
// superseded), and a prompt no memory answers gets nothing.
func TestClaudeCodeHooksAfterInit(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	claude := claudeCLI(t)
	bin := buildMemvault(t)
	p := newPythonProject(t, bin)
	p.memvault("init", "--client", "claude-code", "--command", bin)
	settings, err := os.ReadFile(filepath.Join(p.root, ".claude", "settings.json"))
	if err != nil {
		t.Fatalf("init --client claude-code wrote no hooks: %v", err)
	}
	for _, sub := range []string{"session-start", "user-prompt-submit", "stop"} {
		if !strings.Contains(string(settings), bin+" hook "+sub) {
			t.Fatalf("init --client claude-code wrote no %q hook into .claude/settings.json:\n%s", sub, settings)
		}
	}
	// memvault is not on claude's PATH: the hooks run the binary init named.
	c := newClaudeEnv(t, claude)

	cases := []struct {
		name, prompt string
		want         []string
	}{
		{"pytest", "帮我在新模块里加个测试文件", []string{pytestTitle}},
		{"deploy", "部署那个脚本在哪", []string{"ops/deploy.sh"}},
		{"python", "当前项目的 Python 版本要求是什么", []string{py311Title}},
		{"pytest en", "Add a test file for the new module", []string{pytestTitle}},
		{"deploy en", "Where is the deploy script?", []string{"ops/deploy.sh"}},
		{"python en", "What Python version does this project require?", []string{py311Title}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := c.prompt(t, p.root, tc.prompt)
			s.hooksRan("SessionStart", "UserPromptSubmit")
			got := s.injected("UserPromptSubmit")
			t.Logf("%s: %d characters injected:\n%s", tc.prompt, utf8.RuneCountInString(got), got)
			checkInjected(t, p, tc.prompt, got, tc.want...)
			if i == 0 {
				start := s.injected("SessionStart")
				t.Logf("the session start: %d characters injected:\n%s", utf8.RuneCountInString(start), start)
				checkInjected(t, p, "the session start", start, pytestTitle, py311Title)
			}
		})
	}
	t.Run("unrelated", func(t *testing.T) {
		const prompt = "Make the login page's buttons round"
		s := c.prompt(t, p.root, prompt)
		s.hooksRan("UserPromptSubmit")
		if got := s.injected("UserPromptSubmit"); got != "" {
			t.Errorf("%q: want nothing injected, got:\n%s", prompt, got)
		}
	})
}

// TestClaudeCodePluginWithoutInit installs the plugin from this
// repository's marketplace into a Claude Code of its own and runs it in a
// project that has a vault but never ran init --client: its hooks inject,
// its MCP server serves the explicit pull, its commands are there, and
// without memvault on PATH its hooks say in one line how to install it.
func TestClaudeCodePluginWithoutInit(t *testing.T) {
	if testing.Short() {
		t.Skip("over 10 s on a 2-core machine; runs without -short, as CI does")
	}
	t.Parallel()
	claude := claudeCLI(t)
	bin := buildMemvault(t)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	p := newPythonProject(t, bin)
	if _, err := os.Stat(filepath.Join(p.root, ".claude")); !os.IsNotExist(err) {
		t.Fatalf("the project has a .claude folder (%v): the plugin's hooks must be the only ones", err)
	}
	c := newClaudeEnv(t, claude)
	withoutMemvault := c.path
	c.path = filepath.Dir(bin) + string(filepath.ListSeparator) + c.path
	c.command(t, p.root, "plugin", "marketplace", "add", repo)
	c.command(t, p.root, "plugin", "install", "memvault@memvault")

	t.Run("hooks", func(t *testing.T) {
		const prompt = "部署那个脚本在哪"
		s := c.prompt(t, p.root, prompt)
		s.hooksRan("SessionStart", "UserPromptSubmit")
		for _, a := range s.attachments("hook_success", "SessionStart") {
			if cmd, _ := a["command"].(string); !strings.Contains(cmd, "memvault-hook") {
				t.Errorf("a SessionStart hook that is not the plugin's ran: %q", cmd)
			}
		}
		got := s.injected("UserPromptSubmit")
		t.Logf("%s: %d characters injected:\n%s", prompt, utf8.RuneCountInString(got), got)
		checkInjected(t, p, "the session start", s.injected("SessionStart"), pytestTitle, py311Title)
		checkInjected(t, p, prompt, got, "ops/deploy.sh")
	})
	t.Run("mcp", func(t *testing.T) {
		// The server's recall prompt is a slash command that Claude Code
		// expands by itself, so the explicit pull needs no model.
		s := c.prompt(t, p.root, "/mcp__plugin_memvault_memvault__recall 部署脚本")
		ev := s.initEvent()
		connected := false
		servers, _ := ev["mcp_servers"].([]any)
		for _, srv := range servers {
			m, _ := srv.(map[string]any)
			connected = connected || m["name"] == "plugin:memvault:memvault" && m["status"] == "connected"
		}
		if !connected {
			t.Errorf("the plugin's MCP server is not connected: %v", servers)
		}
		tools, _ := ev["tools"].([]any)
		if !slices.Contains(tools, any("mcp__plugin_memvault_memvault__recall")) {
			t.Errorf("no recall tool from the plugin's MCP server in %v", tools)
		}
		if got := s.userText(); !strings.Contains(got, "ops/deploy.sh") {
			t.Errorf("the recall prompt brought no deploy script:\n%s", got)
		}
	})
	t.Run("commands", func(t *testing.T) {
		s := c.prompt(t, p.root, "/memvault:recall 部署脚本")
		commands, _ := s.initEvent()["slash_commands"].([]any)
		for _, name := range []string{"memvault:recall", "memvault:remember"} {
			if !slices.Contains(commands, any(name)) {
				t.Errorf("no /%s among the slash commands %v", name, commands)
			}
		}
		if got := s.userText(); !strings.Contains(got, "部署脚本") || !strings.Contains(got, "`recall` tool") {
			t.Errorf("/memvault:recall 部署脚本 expanded to:\n%s", got)
		}
	})
	t.Run("with init", func(t *testing.T) {
		// A project that ran init has the same hooks in its settings:
		// the plugin's step aside, and each memory comes once.
		withInit := newPythonProject(t, bin)
		withInit.memvault("init", "--client", "claude-code", "--command", bin)
		s := c.prompt(t, withInit.root, "部署那个脚本在哪")
		s.hooksRan("SessionStart", "UserPromptSubmit")
		for _, event := range []string{"SessionStart", "UserPromptSubmit"} {
			if n := len(s.attachments("hook_additional_context", event)); n != 1 {
				t.Errorf("%s injected %d times, want once:\n%s", event, n, s.injected(event))
			}
		}
	})
	// Last: a failed MCP server start is remembered for a while.
	t.Run("missing binary", func(t *testing.T) {
		c.path = withoutMemvault
		s := c.prompt(t, p.root, "部署那个脚本在哪")
		s.hooksRan("SessionStart", "UserPromptSubmit")
		starts := s.attachments("hook_success", "SessionStart")
		if len(starts) != 1 {
			t.Fatalf("want one SessionStart hook, got %v", starts)
		}
		const want = "go install github.com/memvault/memvault/cmd/memvault@latest"
		if stderr, _ := starts[0]["stderr"].(string); strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf("without memvault on PATH the hook said %q, want one line with %q", stderr, want)
		}
		for _, event := range []string{"SessionStart", "UserPromptSubmit"} {
			if got := s.injected(event); got != "" {
				t.Errorf("without memvault, the %s hook injected:\n%s", event, got)
			}
		}
	})
}
