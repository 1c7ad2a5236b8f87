package demo

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/memvault/memvault/cmd/memvault/internal/syncbuf"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/fault"
)

// The demo's script is written against the sample vault: these are the
// memories it expects to find, by title (ids are read from the answers).
const (
	checkoutTitle = "结算模块设计"
	rival200Title = "API errors: always HTTP 200 with code=0 for success"
	rivalRealHTTP = "API 错误：使用真实 HTTP 状态码，成功响应带 success=true"
	newRuleTitle  = "API errors: real HTTP status codes on every route"
	englishQuery  = "How should API errors be returned?"
	// deployQuery finds the deploy rule, whose script was renamed after
	// the rule was written (sample-vault/history.json).
	deployQuery   = "how do we ship to production"
	deployTitle   = "Shipping to production: ops/deploy.sh blue-green deploy"
	deployMovedTo = "ops/release.sh"
	chineseQuery  = "结算模块怎么设计的"
	clientName    = "memvault-demo"
	author        = "Demo Developer <demo@shopflow.example>"
	reason        = "API review: one error convention for /v1 and /v2, ending the HTTP-200 vs real-status rivalry."
	stepTimeout   = 30 * time.Second
	textMaxLines  = 12
	textMaxWidth  = 110 // terminal columns; CJK characters take two
	argMaxRunes   = 80
	// contextURI is the server's session-start digest, which the demo
	// reads as any client would.
	contextURI = "memory://context"
)

// newRuleContent is the body of the rule the demo records.
const newRuleContent = "Every API route, /v1 and /v2, answers an error with its real HTTP status " +
	"(400, 401, 403, 404, 409, 500) and the body " +
	"`{\"success\": false, \"error\": {\"code\": \"OUT_OF_STOCK\", \"message\": \"...\", \"request_id\": \"...\"}}`; " +
	"success is `{\"success\": true, \"data\": {...}}`.\n\n" +
	"Why: with every answer on 200, the 5xx alerts stayed silent while payment callbacks failed. " +
	"The mobile apps' HTTP client reads the JSON body on any status, which answers the WebView concern behind the old rule.\n\n" +
	"Rejected: HTTP 200 with a numeric code (monitoring, CDN and retries cannot tell errors apart)."

// tools are the tools the server must offer.
var tools = []string{"recall", "remember", "get_memory", "update_memory", "forget", "list_memories", "memory_history", "memory_stats"}

// Options says where the demo finds what it needs and how it reports.
type Options struct {
	// Sample is the sample vault folder, as given with --sample; empty
	// means sample-vault in the first of SearchDirs that holds one.
	Sample string
	// SearchDirs are the folders to look in for sample-vault when Sample
	// is empty: the working directory, then its git root (running the
	// demo from a subfolder of the source tree).
	SearchDirs []string
	// Binary is the memvault binary started as the server, with the
	// argument "serve"; empty means this process's own executable.
	Binary string
	// Replay writes the sample vault and its history (history.json) into
	// a new git repository at repo, as memvault sample-history does.
	Replay func(ctx context.Context, sample, repo string) error
	// Keep keeps the temporary repository and prints its path.
	Keep bool
	// JSON prints one JSON object per step (request, response, check)
	// instead of the readable transcript.
	JSON bool
	// Stdout receives the transcript or the JSON lines.
	Stdout io.Writer
	// ClientVersion is the clientInfo.version the demo's client reports.
	ClientVersion string
}

// ErrNoSample is wrapped by Run's error when the sample vault is not
// where Options says.
var ErrNoSample = fault.New(fault.NotFound, "no sample vault")

// StepError is Run's error when a step of the script did not behave; the
// transcript already says what was expected and what came back.
type StepError struct {
	Step  int
	Title string
}

func (e *StepError) Error() string {
	return fmt.Sprintf("demo step %d (%s) did not behave as expected", e.Step, e.Title)
}

// ErrorKind says the demo found memvault misbehaving, not the user.
func (e *StepError) ErrorKind() string { return string(fault.Internal) }

// Run replays the sample vault and its history into a temporary git
// repository, starts "memvault serve" there as a child process (as Claude
// Code or Cursor would), and drives it over stdio with an MCP client:
// tools/list, a recall in Chinese and one in English, a remember that
// supersedes two rival rules (one git commit), memory_history explaining
// why, and the memory://context digest. Each step checks its answer. Run
// returns nil only when every step behaved, a *StepError for the first
// that did not, and an error wrapping ErrNoSample when there is no sample
// vault to replay.
func Run(ctx context.Context, o Options) error {
	if o.Replay == nil {
		return errors.New("demo: Options.Replay is required")
	}
	out := o.Stdout
	if out == nil {
		out = io.Discard
	}
	dir, err := findSample(o.Sample, o.SearchDirs)
	if err != nil {
		return err
	}
	bin := o.Binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("find the memvault binary: %w", err)
		}
	}
	tmp, err := os.MkdirTemp("", "memvault-demo-")
	if err != nil {
		return fmt.Errorf("temporary folder: %w", err)
	}
	if !o.Keep {
		defer os.RemoveAll(tmp)
	}
	d := &demo{out: out, json: o.JSON, bin: bin, sample: dir, tmp: tmp, repo: filepath.Join(tmp, "shopflow"),
		replay: o.Replay, clientVersion: o.ClientVersion}
	runErr := d.run(ctx)
	if o.Keep {
		d.printf("\nkept the demo repository: %s\n  cd %s && git log --stat -3 && %s why %q\n", d.repo, d.repo, bin, englishQuery)
	}
	return runErr
}

// sampleError is a missing sample vault: its message says where the demo
// looked, and it matches ErrNoSample.
type sampleError string

func (e sampleError) Error() string        { return string(e) }
func (e sampleError) Is(target error) bool { return target == ErrNoSample }

// ErrorKind says the sample vault is not where the demo looked.
func (e sampleError) ErrorKind() string { return string(fault.NotFound) }

// findSample locates the sample vault: the flag, else sample-vault in the
// first of dirs that holds its history.json.
func findSample(flag string, dirs []string) (string, error) {
	if flag != "" {
		if _, err := os.Stat(filepath.Join(flag, "history.json")); err != nil {
			return "", sampleError(fmt.Sprintf("--sample %s: no history.json there (%v)", flag, err))
		}
		return filepath.Abs(flag)
	}
	var tried []string
	for _, dir := range dirs {
		p := filepath.Join(dir, "sample-vault")
		if slices.Contains(tried, p) {
			continue
		}
		tried = append(tried, p)
		if _, err := os.Stat(filepath.Join(p, "history.json")); err == nil {
			return p, nil
		}
	}
	return "", sampleError(fmt.Sprintf("no sample vault found (tried %s): run the demo from the memvault source tree, or pass --sample DIR", strings.Join(tried, ", ")))
}

// demo is one run of the scripted session.
type demo struct {
	out    io.Writer
	json   bool
	bin    string // the memvault binary to start as the server
	sample string // the sample vault folder
	tmp    string // the temporary folder holding everything
	repo   string // the replayed repository, the server's working directory

	replay        func(ctx context.Context, sample, repo string) error
	clientVersion string

	c      *client.Client
	stderr syncbuf.Buffer // the server's log
	steps  int

	// Learned from the answers, used by later steps.
	rival200, rivalReal, newID, commit string
}

// step is one exchange of the script and its verdict.
type step struct {
	Step     int    `json:"step"`
	Title    string `json:"title"`
	Method   string `json:"method"`
	Request  any    `json:"request"`
	Response any    `json:"response"`
	// Shown is what the readable transcript prints of the response, at
	// most Lines lines (default textMaxLines).
	Shown   string `json:"-"`
	Lines   int    `json:"-"`
	Check   string `json:"check"`
	OK      bool   `json:"ok"`
	Problem string `json:"problem,omitempty"`
	Millis  int64  `json:"ms"`
}

func (d *demo) printf(format string, args ...any) {
	if !d.json {
		fmt.Fprintf(d.out, format, args...)
	}
}

func (d *demo) run(ctx context.Context) error {
	start := time.Now()
	d.printf("memvault demo: an MCP client session against a copy of the sample vault\n\n")
	if err := d.replay(ctx, d.sample, d.repo); err != nil {
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
		fn    func(context.Context) (step, error)
	}{
		{"initialize", d.initialize},
		{"tools/list", d.listTools},
		{"recall, asked in Chinese", d.recallChinese},
		{"recall, asked in English: two rival rules", d.recallEnglish},
		{"recall: a rule whose code moved on is marked stale", d.recallStale},
		{"remember a decision that supersedes both rivals", d.remember},
		{"recall again: only the new rule is current", d.recallAgain},
		{"memory_history: why the HTTP-200 rule is gone", d.history},
		{"resources/read memory://context", d.context},
	}
	for _, s := range steps {
		d.steps++
		sctx, cancel := context.WithTimeout(ctx, stepTimeout)
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
			return &StepError{st.Step, st.Title}
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
	env := []string{"HOME=" + home, "MEMVAULT_AUTHOR=" + author, "MEMVAULT_TOKEN="}
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

func (d *demo) initialize(ctx context.Context) (step, error) {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: clientName, Version: d.clientVersion}
	st := step{Method: "initialize", Request: req.Params, Check: "the server is memvault and offers tools and resources"}
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

func (d *demo) listTools(ctx context.Context) (step, error) {
	st := step{Method: "tools/list", Request: struct{}{}, Check: "the eight memory tools are offered, each described for the model"}
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
	for _, want := range tools {
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

// recallResult is the part of a recall answer the demo checks.
type recallResult struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
	// Supersedes names the memories the result replaces.
	Supersedes       []ref    `json:"supersedes"`
	PossibleConflict []string `json:"possible_conflict"`
	// Staleness is set for memories with refs.
	Staleness *struct {
		State  string `json:"state"`
		Reason string `json:"reason"`
	} `json:"staleness"`
}

// ref names another memory in an answer.
type ref struct {
	ID string `json:"id"`
}

// supersedes says whether r names id in its supersedes.
func (r recallResult) supersedes(id string) bool {
	return slices.Contains(r.Supersedes, ref{ID: id})
}

func (d *demo) recall(ctx context.Context, query string, st *step) ([]recallResult, error) {
	var out struct {
		Results []recallResult `json:"results"`
	}
	err := d.callTool(ctx, "recall", map[string]any{"query": query, "limit": 3}, st, &out)
	return out.Results, err
}

func (d *demo) recallChinese(ctx context.Context) (step, error) {
	st := step{Check: fmt.Sprintf("%q (a Chinese note) is result #1", checkoutTitle)}
	rs, err := d.recall(ctx, chineseQuery, &st)
	if err != nil {
		return st, err
	}
	if len(rs) == 0 || rs[0].Title != checkoutTitle {
		return st, fmt.Errorf("want %q first; got %v", checkoutTitle, titles(rs))
	}
	return st, nil
}

func (d *demo) recallEnglish(ctx context.Context) (step, error) {
	st := step{Check: "both rival rules (one English, one Chinese) are in the top 3, each flagged as a possible conflict with the other"}
	rs, err := d.recall(ctx, englishQuery, &st)
	if err != nil {
		return st, err
	}
	for _, r := range rs {
		switch r.Title {
		case rival200Title:
			d.rival200 = r.ID
		case rivalRealHTTP:
			d.rivalReal = r.ID
		}
	}
	if d.rival200 == "" || d.rivalReal == "" {
		return st, fmt.Errorf("want %q and %q in the top 3; got %v", rival200Title, rivalRealHTTP, titles(rs))
	}
	for _, r := range rs {
		other := map[string]string{d.rival200: d.rivalReal, d.rivalReal: d.rival200}[r.ID]
		if other != "" && !slices.Contains(r.PossibleConflict, other) {
			return st, fmt.Errorf("want %q flagged as a possible conflict with %s; got possible_conflict %v", r.Title, other, r.PossibleConflict)
		}
	}
	return st, nil
}

func (d *demo) recallStale(ctx context.Context) (step, error) {
	st := step{Check: fmt.Sprintf("%q is found, marked stale, and the reason names where the script went (%s)", deployTitle, deployMovedTo)}
	rs, err := d.recall(ctx, deployQuery, &st)
	if err != nil {
		return st, err
	}
	i := slices.IndexFunc(rs, func(r recallResult) bool { return r.Title == deployTitle })
	if i < 0 {
		return st, fmt.Errorf("want %q in the top 3; got %v", deployTitle, titles(rs))
	}
	if s := rs[i].Staleness; s == nil || s.State != "stale" || !strings.Contains(s.Reason, deployMovedTo) {
		return st, fmt.Errorf("want %q stale, naming %s; got staleness %+v", deployTitle, deployMovedTo, s)
	}
	return st, nil
}

func (d *demo) remember(ctx context.Context) (step, error) {
	st := step{Check: "one new commit in the repository holds the new rule and marks both rivals superseded", Lines: 40}
	var out struct {
		ID         string   `json:"id"`
		Path       string   `json:"path"`
		Commit     string   `json:"commit"`
		Superseded []string `json:"superseded"`
	}
	args := map[string]any{
		"title": newRuleTitle, "content": newRuleContent, "layer": "project",
		"tags": []string{"api", "errors", "http", "gateway", "mobile"}, "importance": 8,
		"supersedes": []string{d.rival200, d.rivalReal}, "reason": reason,
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
	for _, want := range []string{"Memory-Id: " + out.ID, "Memory-Client: " + clientName, "Memory-Supersedes: " + d.rival200, reason} {
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
	st.Shown += indentLines(strings.TrimRight(msg, "\n"), "    ", 20, textMaxWidth) + "\n"
	for _, c := range changed {
		st.Shown += fmt.Sprintf("  %-8s %s\n", c.Kind, c.Path)
	}
	if len(changed) != 3 {
		return st, fmt.Errorf("want 3 files in the commit (the new rule and the two rivals); got %d", len(changed))
	}
	return st, nil
}

func (d *demo) recallAgain(ctx context.Context) (step, error) {
	st := step{Check: "the new rule is result #1 and names what it replaced; neither rival is returned as current"}
	rs, err := d.recall(ctx, englishQuery, &st)
	if err != nil {
		return st, err
	}
	if len(rs) == 0 || rs[0].ID != d.newID {
		return st, fmt.Errorf("want %q (%s) first; got %v", newRuleTitle, d.newID, titles(rs))
	}
	if !rs[0].supersedes(d.rival200) || !rs[0].supersedes(d.rivalReal) {
		return st, fmt.Errorf("want the new rule to name both rivals in supersedes; got %v", rs[0].Supersedes)
	}
	for _, r := range rs {
		if (r.ID == d.rival200 || r.ID == d.rivalReal) && r.Status == "active" {
			return st, fmt.Errorf("want %q no longer active; it is returned with status %s", r.Title, r.Status)
		}
	}
	return st, nil
}

func (d *demo) history(ctx context.Context) (step, error) {
	st := step{Check: "the old rule's history names its successor and the commit with the reason"}
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
	if r := out.Revisions[0]; r.Commit != d.commit || !strings.Contains(r.Reason, "API review") || r.Client != clientName {
		return st, fmt.Errorf("want the newest revision to be %s by %s with the review's reason; got %s by %s: %q",
			shortHash(d.commit), clientName, shortHash(r.Commit), r.Client, r.Reason)
	}
	return st, nil
}

func (d *demo) context(ctx context.Context) (step, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = contextURI
	st := step{Method: "resources/read", Request: req.Params,
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
	st.Shown = digestOutline(text, newRuleTitle)
	if !strings.Contains(text, newRuleTitle) {
		return st, fmt.Errorf("want %q in the digest; it is not there", newRuleTitle)
	}
	for _, old := range []string{rival200Title, rivalRealHTTP} {
		if strings.Contains(text, old) {
			return st, fmt.Errorf("want the superseded %q left out of the digest; it is there", old)
		}
	}
	return st, nil
}

// callTool calls a tool, records the exchange in st and decodes the
// answer's structuredContent into out.
func (d *demo) callTool(ctx context.Context, name string, args map[string]any, st *step, out any) error {
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
func (d *demo) report(st step) {
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
		d.printf("  → tools/call %s %s\n", p.Name, compactJSON(shortenStrings(p.Arguments, argMaxRunes)))
	} else {
		d.printf("  → %s %s\n", st.Method, compactJSON(st.Request))
	}
	if st.Shown != "" {
		d.printf("  ←\n%s", indentLines(st.Shown, "    ", cmp.Or(st.Lines, textMaxLines), textMaxWidth))
	}
	if st.OK {
		d.printf("  ✓ %s  (%d ms)\n", st.Check, st.Millis)
	} else {
		d.printf("  ✗ expected: %s\n    %s\n", st.Check, strings.ReplaceAll(st.Problem, "\n", "\n    "))
	}
}

func titles(rs []recallResult) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Title)
	}
	return out
}
