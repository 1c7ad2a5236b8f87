package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
)

// The demo's script is written against the sample vault: these are the
// memories it expects to find, by title (ids are read from the answers).
const (
	demoCheckoutTitle = "结算模块设计"
	demoRival200Title = "API errors: always HTTP 200 with code=0 for success"
	demoRivalRealHTTP = "API 错误：使用真实 HTTP 状态码，成功响应带 success=true"
	demoNewRuleTitle  = "API errors: real HTTP status codes on every route"
	demoEnglishQuery  = "How should API errors be returned?"
	demoChineseQuery  = "结算模块怎么设计的"
	demoClientName    = "memvault-demo"
	demoAuthor        = "Demo Developer <demo@shopflow.example>"
	demoReason        = "API review: one error convention for /v1 and /v2, ending the HTTP-200 vs real-status rivalry."
	demoStepTimeout   = 30 * time.Second
	demoTextMaxLines  = 12
	demoTextMaxWidth  = 110 // terminal columns; CJK characters take two
	demoArgMaxRunes   = 80
)

// demoNewRuleContent is the body of the rule the demo records.
const demoNewRuleContent = "Every API route, /v1 and /v2, answers an error with its real HTTP status " +
	"(400, 401, 403, 404, 409, 500) and the body " +
	"`{\"success\": false, \"error\": {\"code\": \"OUT_OF_STOCK\", \"message\": \"...\", \"request_id\": \"...\"}}`; " +
	"success is `{\"success\": true, \"data\": {...}}`.\n\n" +
	"Why: with every answer on 200, the 5xx alerts stayed silent while payment callbacks failed. " +
	"The mobile apps' HTTP client reads the JSON body on any status, which answers the WebView concern behind the old rule.\n\n" +
	"Rejected: HTTP 200 with a numeric code (monitoring, CDN and retries cannot tell errors apart)."

// demoTools are the tools the server must offer.
var demoTools = []string{"recall", "remember", "get_memory", "update_memory", "forget", "memory_history", "memory_stats"}

func (m *Main) demoCommand() *cobra.Command {
	var sample string
	var keep, asJSON bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a scripted MCP session against a copy of the sample vault",
		Long: `demo shows memvault working end to end. It replays sample-vault/ and its
history into a temporary git repository, starts "memvault serve" there as a
child process (as Claude Code or Cursor would), and drives it over stdio with
an MCP client: tools/list, a recall in Chinese and one in English, a remember
that supersedes two rival rules (one git commit), memory_history explaining
why, and the memory://context digest. Each step checks its answer; the
command exits 0 only when every step behaved.`,
		Example: `  go run ./cmd/memvault demo
  memvault demo --keep      # keep the repository and print its path
  memvault demo --json      # one JSON object per step: request, response, check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := findSample(sample)
			if err != nil {
				return err
			}
			bin, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the memvault binary: %w", err)
			}
			tmp, err := os.MkdirTemp("", "memvault-demo-")
			if err != nil {
				return fmt.Errorf("temporary folder: %w", err)
			}
			if !keep {
				defer os.RemoveAll(tmp)
			}
			d := &demo{out: m.Stdout, json: asJSON, bin: bin, sample: dir, tmp: tmp, repo: filepath.Join(tmp, "shopflow")}
			runErr := d.run(ctx)
			if keep {
				d.printf("\nkept the demo repository: %s\n  cd %s && git log --stat -3 && %s why %q\n", d.repo, d.repo, bin, demoEnglishQuery)
			}
			return runErr
		},
	}
	cmd.Flags().StringVar(&sample, "sample", "", "the sample vault folder (default: sample-vault in the working directory or at its git root)")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary repository and print its path")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per step (request, response, check) instead of the readable transcript")
	return cmd
}

// findSample locates the sample vault: the flag, else sample-vault in the
// working directory, else at the enclosing git root (running the demo
// from a subfolder of the source tree).
func findSample(flag string) (string, error) {
	if flag != "" {
		if _, err := os.Stat(filepath.Join(flag, "history.json")); err != nil {
			return "", usagef("--sample %s: no history.json there (%v)", flag, err)
		}
		return filepath.Abs(flag)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	tried := []string{filepath.Join(wd, "sample-vault")}
	if root, ok := gitRoot(wd); ok && root != wd {
		tried = append(tried, filepath.Join(root, "sample-vault"))
	}
	for _, p := range tried {
		if _, err := os.Stat(filepath.Join(p, "history.json")); err == nil {
			return p, nil
		}
	}
	return "", usagef("no sample vault found (tried %s): run the demo from the memvault source tree, or pass --sample DIR", strings.Join(tried, ", "))
}

// demo is one run of the scripted session.
type demo struct {
	out    io.Writer
	json   bool
	bin    string // the memvault binary to start as the server
	sample string // the sample vault folder
	tmp    string // the temporary folder holding everything
	repo   string // the replayed repository, the server's working directory

	c      *client.Client
	stderr lockedBuffer // the server's log
	steps  int

	// Learned from the answers, used by later steps.
	rival200, rivalReal, newID, commit string
}

// demoStep is one exchange of the script and its verdict.
type demoStep struct {
	Step     int    `json:"step"`
	Title    string `json:"title"`
	Method   string `json:"method"`
	Request  any    `json:"request"`
	Response any    `json:"response"`
	// Shown is what the readable transcript prints of the response, at
	// most Lines lines (default demoTextMaxLines).
	Shown   string `json:"-"`
	Lines   int    `json:"-"`
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
	Millis  int64  `json:"ms"`
}

// demoFailed reports the step that did not behave; the step's own output
// already says what was expected.
type demoFailed struct {
	step  int
	title string
}

func (e demoFailed) Error() string {
	return fmt.Sprintf("demo step %d (%s) did not behave as expected", e.step, e.title)
}

func (d *demo) printf(format string, args ...any) {
	if !d.json {
		fmt.Fprintf(d.out, format, args...)
	}
}

func (d *demo) run(ctx context.Context) error {
	start := time.Now()
	d.printf("memvault demo: an MCP client session against a copy of the sample vault\n\n")
	if err := replaySample(ctx, d.sample, d.repo); err != nil {
		return fmt.Errorf("replay the sample history: %w", err)
	}
	commits, err := d.commitCount(ctx)
	if err != nil {
		return err
	}
	d.printf("  replayed %s and its history (%d commits) into %s\n", d.sample, commits, d.repo)
	d.printf("  starting %s serve   (working directory: the repository, as Claude Code or Cursor start it)\n", d.bin)
	if err := d.start(); err != nil {
		return err
	}
	defer d.c.Close()

	steps := []struct {
		title string
		fn    func(context.Context) (demoStep, error)
	}{
		{"initialize", d.initialize},
		{"tools/list", d.listTools},
		{"recall, asked in Chinese", d.recallChinese},
		{"recall, asked in English: two rival rules", d.recallEnglish},
		{"remember a decision that supersedes both rivals", d.remember},
		{"recall again: only the new rule is current", d.recallAgain},
		{"memory_history: why the HTTP-200 rule is gone", d.history},
		{"resources/read memory://context", d.context},
	}
	for _, s := range steps {
		d.steps++
		sctx, cancel := context.WithTimeout(ctx, demoStepTimeout)
		t0 := time.Now()
		st, err := s.fn(sctx)
		cancel()
		st.Step, st.Title, st.Millis = d.steps, s.title, time.Since(t0).Milliseconds()
		st.OK = err == nil
		if err != nil {
			st.Problem = err.Error()
		}
		d.report(st)
		if err != nil {
			d.printf("\nthe server's log:\n%s", indentLines(d.stderr.String(), "  ", 40, 200))
			return demoFailed{st.Step, st.Title}
		}
	}
	d.printf("\nall %d steps behaved as expected (%.1f s)\n", len(steps), time.Since(start).Seconds())
	return nil
}

// start spawns the server in the repository with a demo identity and a
// private HOME, so neither the developer's git identity nor their user
// vault is involved.
func (d *demo) start() error {
	home := filepath.Join(d.tmp, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	cmdFunc := func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Dir = d.repo
		cmd.Env = append(os.Environ(), env...)
		cmd.Stderr = &d.stderr
		return cmd, nil
	}
	env := []string{"HOME=" + home, "MEMVAULT_AUTHOR=" + demoAuthor, "MEMVAULT_TOKEN="}
	c, err := client.NewStdioMCPClientWithOptions(d.bin, env, []string{"serve"}, transport.WithCommandFunc(cmdFunc))
	if err != nil {
		return fmt.Errorf("start %s serve: %w", d.bin, err)
	}
	d.c = c
	return nil
}

func (d *demo) commitCount(ctx context.Context) (int, error) {
	s, err := gitstore.Open(ctx, d.repo)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	cs, err := s.History(ctx, d.repo, gitstore.HistoryOptions{})
	return len(cs), err
}

func (d *demo) initialize(ctx context.Context) (demoStep, error) {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: demoClientName, Version: serverVersion}
	st := demoStep{Method: "initialize", Request: req.Params, Check: "the server is memvault and offers tools and resources"}
	res, err := d.c.Initialize(ctx, req)
	if err != nil {
		return st, fmt.Errorf("initialize: %w", err)
	}
	st.Response = res
	var caps []string
	if res.Capabilities.Tools != nil {
		caps = append(caps, "tools")
	}
	if res.Capabilities.Resources != nil {
		caps = append(caps, "resources")
	}
	if res.Capabilities.Prompts != nil {
		caps = append(caps, "prompts")
	}
	st.Shown = fmt.Sprintf("%s %s, protocol %s, offers %s\ninstructions: %s", res.ServerInfo.Name, res.ServerInfo.Version,
		res.ProtocolVersion, strings.Join(caps, ", "), res.Instructions)
	if res.ServerInfo.Name != "memvault" || res.Capabilities.Tools == nil || res.Capabilities.Resources == nil {
		return st, fmt.Errorf("want serverInfo.name memvault with tools and resources; got %q offering %v", res.ServerInfo.Name, caps)
	}
	return st, nil
}

func (d *demo) listTools(ctx context.Context) (demoStep, error) {
	st := demoStep{Method: "tools/list", Request: struct{}{}, Check: "the seven memory tools are offered, each described for the model"}
	res, err := d.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return st, fmt.Errorf("tools/list: %w", err)
	}
	st.Response = res
	var b strings.Builder
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
		hint := ""
		if a := t.Annotations; a.ReadOnlyHint != nil && *a.ReadOnlyHint {
			hint = " (read-only)"
		} else if a.DestructiveHint != nil && *a.DestructiveHint {
			hint = " (destructive)"
		}
		fmt.Fprintf(&b, "%-15s%s %s\n", t.Name, hint, firstSentence(t.Description))
	}
	st.Shown = b.String()
	for _, want := range demoTools {
		i := slices.Index(names, want)
		if i < 0 {
			return st, fmt.Errorf("want tool %s; got %v", want, names)
		}
		if res.Tools[i].Description == "" {
			return st, fmt.Errorf("tool %s has no description", want)
		}
	}
	return st, nil
}

// demoRecallResult is the part of a recall answer the demo checks.
type demoRecallResult struct {
	ID               string   `json:"id"`
	Title            string   `json:"title"`
	Status           string   `json:"status"`
	Supersedes       []string `json:"supersedes"`
	PossibleConflict []string `json:"possible_conflict"`
}

func (d *demo) recall(ctx context.Context, query string, st *demoStep) ([]demoRecallResult, error) {
	var out struct {
		Results []demoRecallResult `json:"results"`
	}
	err := d.callTool(ctx, "recall", map[string]any{"query": query, "limit": 3}, st, &out)
	return out.Results, err
}

func (d *demo) recallChinese(ctx context.Context) (demoStep, error) {
	st := demoStep{Check: fmt.Sprintf("%q (a Chinese note) is result #1", demoCheckoutTitle)}
	rs, err := d.recall(ctx, demoChineseQuery, &st)
	if err != nil {
		return st, err
	}
	if len(rs) == 0 || rs[0].Title != demoCheckoutTitle {
		return st, fmt.Errorf("want %q first; got %v", demoCheckoutTitle, titles(rs))
	}
	return st, nil
}

func (d *demo) recallEnglish(ctx context.Context) (demoStep, error) {
	st := demoStep{Check: "both rival rules (one English, one Chinese) are in the top 3, each flagged as a possible conflict with the other"}
	rs, err := d.recall(ctx, demoEnglishQuery, &st)
	if err != nil {
		return st, err
	}
	for _, r := range rs {
		switch r.Title {
		case demoRival200Title:
			d.rival200 = r.ID
		case demoRivalRealHTTP:
			d.rivalReal = r.ID
		}
	}
	if d.rival200 == "" || d.rivalReal == "" {
		return st, fmt.Errorf("want %q and %q in the top 3; got %v", demoRival200Title, demoRivalRealHTTP, titles(rs))
	}
	for _, r := range rs {
		other := map[string]string{d.rival200: d.rivalReal, d.rivalReal: d.rival200}[r.ID]
		if other != "" && !slices.Contains(r.PossibleConflict, other) {
			return st, fmt.Errorf("want %q flagged as a possible conflict with %s; got possible_conflict %v", r.Title, other, r.PossibleConflict)
		}
	}
	return st, nil
}

func (d *demo) remember(ctx context.Context) (demoStep, error) {
	st := demoStep{Check: "one new commit in the repository holds the new rule and marks both rivals superseded", Lines: 40}
	var out struct {
		ID         string   `json:"id"`
		Path       string   `json:"path"`
		Commit     string   `json:"commit"`
		Superseded []string `json:"superseded"`
	}
	args := map[string]any{
		"title": demoNewRuleTitle, "content": demoNewRuleContent, "layer": "project",
		"tags": []string{"api", "errors", "http", "gateway", "mobile"}, "importance": 8,
		"supersedes": []string{d.rival200, d.rivalReal}, "reason": demoReason,
	}
	if err := d.callTool(ctx, "remember", args, &st, &out); err != nil {
		return st, err
	}
	d.newID, d.commit = out.ID, out.Commit
	if out.ID == "" || out.Commit == "" {
		return st, fmt.Errorf("want an id and a commit; got id %q, commit %q", out.ID, out.Commit)
	}
	for _, id := range []string{d.rival200, d.rivalReal} {
		if !slices.Contains(out.Superseded, id) {
			return st, fmt.Errorf("want %s in superseded; got %v", id, out.Superseded)
		}
	}
	// Read the commit back from the repository, not from the server.
	s, err := gitstore.Open(ctx, d.repo)
	if err != nil {
		return st, err
	}
	defer s.Close()
	head, err := s.Resolve(ctx, "HEAD")
	if err != nil {
		return st, err
	}
	if head != out.Commit {
		return st, fmt.Errorf("want HEAD at the reported commit %s; HEAD is %s", out.Commit, head)
	}
	cs, err := s.History(ctx, filepath.Join(d.repo, ".memory"), gitstore.HistoryOptions{})
	if err != nil || len(cs) == 0 {
		return st, fmt.Errorf("read the commit back: %v", err)
	}
	msg := cs[0].Message
	for _, want := range []string{"Memory-Id: " + out.ID, "Memory-Client: " + demoClientName, "Memory-Supersedes: " + d.rival200, demoReason} {
		if !strings.Contains(msg, want) {
			return st, fmt.Errorf("want the commit message to contain %q; got:\n%s", want, msg)
		}
	}
	changed, err := s.DiffTrees(ctx, head+"~1", head, ".memory")
	if err != nil {
		return st, fmt.Errorf("diff the commit: %w", err)
	}
	st.Shown += fmt.Sprintf("\n\n$ git show --stat %s   (read back from the repository)\n", shortHash(head))
	st.Shown += fmt.Sprintf("Author: %s <%s>\n\n", cs[0].Author.Name, cs[0].Author.Email)
	st.Shown += indentLines(strings.TrimRight(msg, "\n"), "    ", 20, demoTextMaxWidth) + "\n"
	for _, c := range changed {
		st.Shown += fmt.Sprintf("  %-8s %s\n", c.Kind, c.Path)
	}
	if len(changed) != 3 {
		return st, fmt.Errorf("want 3 files in the commit (the new rule and the two rivals); got %d", len(changed))
	}
	return st, nil
}

func (d *demo) recallAgain(ctx context.Context) (demoStep, error) {
	st := demoStep{Check: "the new rule is result #1 and names what it replaced; neither rival is returned as current"}
	rs, err := d.recall(ctx, demoEnglishQuery, &st)
	if err != nil {
		return st, err
	}
	if len(rs) == 0 || rs[0].ID != d.newID {
		return st, fmt.Errorf("want %q (%s) first; got %v", demoNewRuleTitle, d.newID, titles(rs))
	}
	if !slices.Contains(rs[0].Supersedes, d.rival200) || !slices.Contains(rs[0].Supersedes, d.rivalReal) {
		return st, fmt.Errorf("want the new rule to name both rivals in supersedes; got %v", rs[0].Supersedes)
	}
	for _, r := range rs {
		if (r.ID == d.rival200 || r.ID == d.rivalReal) && r.Status == "active" {
			return st, fmt.Errorf("want %q no longer active; it is returned with status %s", r.Title, r.Status)
		}
	}
	return st, nil
}

func (d *demo) history(ctx context.Context) (demoStep, error) {
	st := demoStep{Check: "the old rule's history names its successor and the commit with the reason"}
	var out struct {
		Title     string `json:"title"`
		Revisions []struct {
			Commit  string `json:"commit"`
			Date    string `json:"date"`
			Author  string `json:"author"`
			Reason  string `json:"reason"`
			Client  string `json:"client"`
			Summary string `json:"summary"`
		} `json:"revisions"`
		SupersededBy []string `json:"superseded_by"`
	}
	if err := d.callTool(ctx, "memory_history", map[string]any{"id": d.rival200}, &st, &out); err != nil {
		return st, err
	}
	// The text block puts each revision on one line; the transcript gives
	// the reason a line of its own, since the why is the point.
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", out.Title, d.rival200)
	for _, r := range out.Revisions {
		fmt.Fprintf(&b, "- %s %s by %s via %s: %s\n", r.Date, shortHash(r.Commit), r.Author, r.Client, r.Summary)
		if r.Reason != "" {
			fmt.Fprintf(&b, "    why: %s\n", oneLine(r.Reason))
		}
	}
	fmt.Fprintf(&b, "replaced by: %s", strings.Join(out.SupersededBy, ", "))
	st.Shown = b.String()
	if !slices.Contains(out.SupersededBy, d.newID) {
		return st, fmt.Errorf("want superseded_by to contain %s; got %v", d.newID, out.SupersededBy)
	}
	if len(out.Revisions) < 2 {
		return st, fmt.Errorf("want at least 2 revisions (written, superseded); got %d", len(out.Revisions))
	}
	if r := out.Revisions[0]; r.Commit != d.commit || !strings.Contains(r.Reason, "API review") || r.Client != demoClientName {
		return st, fmt.Errorf("want the newest revision to be %s by %s with the review's reason; got %s by %s: %q",
			shortHash(d.commit), demoClientName, shortHash(r.Commit), r.Client, r.Reason)
	}
	return st, nil
}

func (d *demo) context(ctx context.Context) (demoStep, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = contextURI
	st := demoStep{Method: "resources/read", Request: req.Params,
		Check: "the session-start digest carries the new rule and neither superseded rival", Lines: 30}
	res, err := d.c.ReadResource(ctx, req)
	if err != nil {
		return st, fmt.Errorf("resources/read %s: %w", contextURI, err)
	}
	st.Response = res
	var text string
	for _, c := range res.Contents {
		if tc, ok := mcp.AsTextResourceContents(c); ok {
			text += tc.Text
		}
	}
	st.Shown = digestOutline(text, demoNewRuleTitle)
	if !strings.Contains(text, demoNewRuleTitle) {
		return st, fmt.Errorf("want %q in the digest; it is not there", demoNewRuleTitle)
	}
	for _, old := range []string{demoRival200Title, demoRivalRealHTTP} {
		if strings.Contains(text, old) {
			return st, fmt.Errorf("want the superseded %q left out of the digest; it is there", old)
		}
	}
	return st, nil
}

// digestOutline keeps the digest's headings and the entries that mention
// want, and counts the entries left out under each heading.
func digestOutline(text, want string) string {
	var b strings.Builder
	skipped := 0
	flush := func() {
		if skipped > 0 {
			fmt.Fprintf(&b, "  … %d more\n", skipped)
			skipped = 0
		}
	}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			flush()
			b.WriteString(l + "\n")
		case strings.Contains(l, want):
			flush()
			b.WriteString(l + "\n")
		case strings.TrimSpace(l) != "":
			skipped++
		}
	}
	flush()
	return b.String()
}

// callTool calls a tool, records the exchange in st and decodes the
// answer's structuredContent into out.
func (d *demo) callTool(ctx context.Context, name string, args map[string]any, st *demoStep, out any) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	st.Method, st.Request = "tools/call", req.Params
	res, err := d.c.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	st.Response = res
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			text.WriteString(tc.Text)
		}
	}
	st.Shown = text.String()
	if res.IsError {
		return fmt.Errorf("%s answered with a tool error: %s", name, text.String())
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("%s: structuredContent: %w", name, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: structuredContent %s: %w", name, raw, err)
	}
	return nil
}

// report prints one step: the request, what came back, and the verdict.
func (d *demo) report(st demoStep) {
	if d.json {
		enc := json.NewEncoder(d.out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(st); err != nil {
			fmt.Fprintf(d.out, "{\"step\": %d, \"problem\": %q}\n", st.Step, err.Error())
		}
		return
	}
	d.printf("\n[%d] %s\n", st.Step, st.Title)
	if p, ok := st.Request.(mcp.CallToolParams); ok {
		d.printf("  → tools/call %s %s\n", p.Name, compactJSON(shortenStrings(p.Arguments, demoArgMaxRunes)))
	} else {
		d.printf("  → %s %s\n", st.Method, compactJSON(st.Request))
	}
	if st.Shown != "" {
		d.printf("  ←\n%s", indentLines(st.Shown, "    ", cmp.Or(st.Lines, demoTextMaxLines), demoTextMaxWidth))
	}
	if st.OK {
		d.printf("  ✓ %s  (%d ms)\n", st.Check, st.Millis)
	} else {
		d.printf("  ✗ expected: %s\n    %s\n", st.Check, strings.ReplaceAll(st.Problem, "\n", "\n    "))
	}
}

// shortenStrings returns v with every string longer than n characters
// cut, for display: a remember request's content is long, and the
// transcript needs only its start. v goes through JSON, so the result
// shows exactly the fields that are sent.
func shortenStrings(v any, n int) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		return v
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return truncateRunes(t, n)
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return x
	}
	return walk(x)
}

// compactJSON renders v on one line without escaping <, > and & (the
// transcript is for people).
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return truncateRunes(strings.TrimSpace(b.String()), 400)
}

// indentLines prefixes every line of s, keeping at most maxLines lines of
// at most maxWidth columns each, and says how much was left out.
func indentLines(s, prefix string, maxLines, maxWidth int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == maxLines {
			fmt.Fprintf(&b, "%s… (%d more lines)\n", prefix, len(lines)-i)
			break
		}
		b.WriteString(prefix + truncateWidth(l, maxWidth) + "\n")
	}
	return b.String()
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// truncateWidth cuts s to at most w terminal columns, counting the wide
// characters of Chinese, Japanese and Korean as two.
func truncateWidth(s string, w int) string {
	used := 0
	for i, r := range s {
		cw := runeWidth(r)
		if used+cw > w-1 {
			// Cut only if what is left does not fit either.
			if used+runesWidth(s[i:]) <= w {
				return s
			}
			return s[:i] + "…"
		}
		used += cw
	}
	return s
}

func runesWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth approximates East Asian Width: the CJK blocks and full-width
// forms take two columns, everything else one.
func runeWidth(r rune) int {
	switch {
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF, r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE4F, r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}

// firstSentence is the start of a tool description, for the tool list.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return truncateRunes(s, 90)
}

func titles(rs []demoRecallResult) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Title)
	}
	return out
}

// lockedBuffer collects the server's standard error, written by the
// transport's goroutine and read after a failure.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
