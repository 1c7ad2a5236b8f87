package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/vault"
)

// layerHelp explains the layers to the model; every tool that takes a
// layer repeats it so each description stands on its own.
const layerHelp = `Layers: transient (L1, scratch for this session, expires in 1h, never committed); ` +
	`short-term (L2, task state for days, expires in 7d); project (L3, default: decisions, conventions, ` +
	`architecture, commands that work); preference (L4, how the developer likes to work, follows them ` +
	`across sessions); meta (L5, notes about the memory itself).`

// mcpTools serves the memory tools over the project vault and, when
// configured, the user vault.
type mcpTools struct {
	// project finds the project vault; it may stay unknown until the
	// client reports its roots.
	project *discovery
	// user is the user vault's slot; nil without one.
	user   *vaultSlot
	logger *slog.Logger
	notify *notifier
	// now is the clock recall ranks at; nil means the project vault's.
	now func() time.Time
	// cache keeps what the calls' vault sets share: the pool that ranks
	// the vaults' candidates together, each vault's superseding memories.
	cache vault.SetCache
	// listRoots sends the client a roots/list request (set by
	// registerRoots); discoveryWait bounds how long a resource read waits
	// for the answer (0: defaultDiscoveryWait).
	listRoots     func(context.Context) (*mcp.ListRootsResult, error)
	discoveryWait time.Duration
}

// vaults waits for the served vaults and brings them up to date. ask is
// set, with no error, while the project vault is unknown and the client
// can be asked for its roots; responses are the client's answers from a
// multi round-trip retry.
func (t *mcpTools) vaults(ctx context.Context, responses mcp.InputResponses) (vs *openVaults, ask bool, err error) {
	slot, ask, err := t.projectSlot(ctx, responses)
	if err != nil || ask {
		return nil, ask, err
	}
	v, err := slot.ready(ctx)
	if err != nil {
		return nil, false, err
	}
	members := []vault.Member{{Name: slot.name, Vault: v, AsOf: slot.asOf}}
	slots := []*vaultSlot{slot}
	if t.user != nil {
		uv, err := t.user.ready(ctx)
		if err != nil {
			// The project vault still answers; the log says why the
			// user vault does not.
			t.logger.Warn("user vault unavailable", "vault", t.user.dir, "err", err)
		} else {
			members = append(members, vault.Member{Name: t.user.name, Vault: uv, AsOf: t.user.asOf})
			slots = append(slots, t.user)
		}
	}
	set := vault.NewSet(members...)
	set.Now, set.Cache = t.now, &t.cache
	return &openVaults{Set: set, slots: slots}, false, nil
}

// register adds every tool to s.
func (t *mcpTools) register(s *server.MCPServer) {
	s.AddTool(recallTool(), t.logged("recall", t.recall))
	s.AddTool(rememberTool(), t.logged("remember", t.remember))
	s.AddTool(getMemoryTool(), t.logged("get_memory", t.getMemory))
	s.AddTool(updateMemoryTool(), t.logged("update_memory", t.updateMemory))
	s.AddTool(forgetTool(), t.logged("forget", t.forget))
	s.AddTool(memoryStatsTool(), t.logged("memory_stats", t.memoryStats))
	s.AddTool(memoryHistoryTool(), t.logged("memory_history", t.memoryHistory))
	t.registerResources(s)
	t.registerRoots(s)
}

// strictOutputSchema declares T's JSON schema as the tool's output
// schema, with the nullable slices ("type": ["null", "array"]) the
// generator writes for Go slices narrowed to their one type: the tools
// never return null there, and strict clients reject type unions.
func strictOutputSchema[T any]() mcp.ToolOption {
	return func(t *mcp.Tool) {
		mcp.WithOutputSchema[T]()(t)
		b, err := json.Marshal(t.OutputSchema)
		if err != nil {
			return
		}
		var schema any
		if err := json.Unmarshal(b, &schema); err != nil {
			return
		}
		dropNullTypes(schema)
		if b, err = json.Marshal(schema); err != nil {
			return
		}
		t.OutputSchema = mcp.ToolOutputSchema{}
		t.RawOutputSchema = b
	}
}

// dropNullTypes rewrites "type": ["null", X] to "type": X throughout a
// decoded JSON schema.
func dropNullTypes(node any) {
	switch n := node.(type) {
	case map[string]any:
		if types, ok := n["type"].([]any); ok {
			var keep []any
			for _, ty := range types {
				if ty != "null" {
					keep = append(keep, ty)
				}
			}
			if len(keep) == 1 {
				n["type"] = keep[0]
			}
		}
		for _, v := range n {
			dropNullTypes(v)
		}
	case []any:
		for _, v := range n {
			dropNullTypes(v)
		}
	}
}

// toolFunc is a tool body: it returns the readable text and the
// structured result, or an error that becomes an isError result.
type toolFunc func(ctx context.Context, vs *openVaults, args *toolArgs) (text string, structured any, err error)

// logged adapts fn to mcp-go: it turns errors into tool errors (never
// protocol errors, so the model can read and fix them) and logs one line
// per call. While the project vault is unknown it asks the client for its
// roots (a multi round-trip input request, which mcp-go turns into a
// roots/list request for clients that predate it).
func (t *mcpTools) logged(name string, fn toolFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		var res *mcp.CallToolResult
		raw, ok := req.Params.Arguments.(map[string]any)
		if !ok && req.Params.Arguments != nil {
			res = mcp.NewToolResultError("arguments: want a JSON object")
		} else if vs, ask, err := t.vaults(ctx, req.Params.InputResponses); err != nil {
			res = mcp.NewToolResultError(err.Error())
		} else if ask {
			t.logger.Info("tool call", "tool", name, "client", clientName(ctx), "waiting_for", "roots")
			t.project.noteAsked()
			return server.NewInputRequestBuilder("").Roots(rootsInputID).ToolResult(), nil
		} else {
			text, structured, err := fn(ctx, vs, newToolArgs(raw))
			if err != nil {
				res = mcp.NewToolResultError(err.Error())
			} else {
				res = mcp.NewToolResultStructured(structured, text)
			}
		}
		size := 0
		for _, c := range res.Content {
			if tc, ok := c.(mcp.TextContent); ok {
				size += len(tc.Text)
			}
		}
		attrs := []any{"tool", name, "client", clientName(ctx), "duration", time.Since(start).Round(time.Microsecond), "result_bytes", size}
		if res.IsError {
			attrs = append(attrs, "error", firstText(res))
			t.logger.Warn("tool call", attrs...)
		} else {
			t.logger.Info("tool call", attrs...)
		}
		return res, nil
	}
}

func firstText(r *mcp.CallToolResult) string {
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// clientName is the MCP client's clientInfo.name, else "mcp".
func clientName(ctx context.Context) string {
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		if n := strings.TrimSpace(s.GetClientInfo().Name); n != "" {
			return n
		}
	}
	return "mcp"
}

// toolError turns a vault error into a message for the model: the vault's
// sentinel prefixes are kept, the details say what to do.
func toolError(err error) error {
	switch {
	case errors.Is(err, vault.ErrNotFound):
		return fmt.Errorf("%w; call recall to find the right id", err)
	case errors.Is(err, vault.ErrConflict):
		return fmt.Errorf("expected_version: %w", err)
	case errors.Is(err, vault.ErrNoVault):
		return fmt.Errorf("%w; start memvault serve with --user-vault DIR (a git repository) or create %s", err, "~/"+userVaultName)
	}
	var dup *vault.DuplicateError
	if errors.As(err, &dup) {
		// The same refusal as the CLI's, with what to do in this door's
		// terms.
		return fmt.Errorf("an active memory in the %s vault has the same or a near-identical title: %q (id %s, version %d, %s). "+
			"Nothing was written: to change it, call update_memory with {\"id\": %q, \"expected_version\": %d}; "+
			"to replace it, call remember with \"supersedes\": [%q]; or choose a distinct title",
			dup.Vault, dup.Title, dup.ID, dup.Version, dup.Path, dup.ID, dup.Version, dup.ID)
	}
	return err
}

func fmtInstant(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// recall

// recallBudgetBytes bounds the readable text of one recall answer: about
// 2,000 tokens, whatever the size of the memories (snippets are already
// short; the budget caps how many of them come back).
const recallBudgetBytes = 8000

// recallResult is one recall hit as the model sees it.
type recallResult struct {
	ID               string   `json:"id"`
	Title            string   `json:"title"`
	Layer            string   `json:"layer"`
	Score            float64  `json:"score"`
	Snippet          string   `json:"snippet"`
	Tags             []string `json:"tags"`
	UpdatedAt        string   `json:"updated_at"`
	EffectiveAt      string   `json:"effective_at,omitempty"`
	Status           string   `json:"status"`
	Supersedes       []string `json:"supersedes"`
	SupersededBy     []string `json:"superseded_by,omitempty"`
	PossibleConflict []string `json:"possible_conflict"`
	Path             string   `json:"path"`
	Version          int      `json:"version"`
	// Vault says where the memory lives: project or user.
	Vault string `json:"vault"`
}

type recallOutput struct {
	Results []recallResult `json:"results"`
}

func recallTool() mcp.Tool {
	return mcp.NewTool("recall",
		mcp.WithDescription(`Search the project's long-term memory (decisions, conventions, preferences, task state) by meaning, in Chinese or English. `+
			`Call it before answering questions about how this project does things, before making a choice that may already have been decided, `+
			`and at the start of a task. It searches the project vault and the user vault (preferences that follow the developer), `+
			`each result saying which (vault). An empty query lists the most recently updated memories. Results are compact snippets; `+
			`call get_memory with an id for the whole text. Superseded and expired memories are hidden unless include_inactive is true. `+
			layerHelp+` Example: {"query": "how do we run the tests", "limit": 5}`),
		mcp.WithString("query", mcp.Description(`What to look for, in any language ("部署脚本在哪", "test runner"). Empty: recent memories. Alias: q.`)),
		mcp.WithString("q", mcp.Description("Alias of query.")),
		mcp.WithInteger("limit", mcp.Description("Most results to return (1..50, default 8). Aliases: k, top_k."), mcp.Min(1), mcp.Max(50)),
		mcp.WithInteger("k", mcp.Description("Alias of limit."), mcp.Min(1), mcp.Max(50)),
		mcp.WithInteger("top_k", mcp.Description("Alias of limit."), mcp.Min(1), mcp.Max(50)),
		mcp.WithArray("layers", mcp.Description("Only these layers (transient, short-term, project, preference, meta). Default: all."), mcp.WithStringItems()),
		mcp.WithArray("tags", mcp.Description("Only memories carrying at least one of these tags. A comma-separated string is accepted too."), mcp.WithStringItems()),
		mcp.WithString("as_of", mcp.Description("Answer as of this instant (RFC3339 or YYYY-MM-DD), with validity and decay evaluated then: before now, the vaults as git recorded them then; from now on, the vaults as they are, transient memories included (\"what applies in an hour\").")),
		mcp.WithString("since", mcp.Description("Only memories updated at or after this instant (RFC3339 or YYYY-MM-DD).")),
		mcp.WithBoolean("include_inactive", mcp.Description("Also return archived, superseded, expired and not-yet-effective memories, labelled by status.")),
		mcp.WithSchemaAdditionalProperties(false),
		strictOutputSchema[recallOutput](),
		mcp.WithTitleAnnotation("Recall memories"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

func (t *mcpTools) recall(ctx context.Context, vs *openVaults, a *toolArgs) (string, any, error) {
	var q vault.Query
	q.Text, _ = a.str("query", false, "q")
	q.Limit, _ = a.integer("limit", 1, 50, false, "k", "top_k")
	q.Layers = a.layers("layers")
	q.Tags, _ = a.list("tags")
	q.AsOf, _ = a.instant("as_of")
	q.Since, _ = a.instant("since")
	q.IncludeInactive = a.boolean("include_inactive")
	if err := a.done(); err != nil {
		return "", nil, err
	}
	rs, err := vs.Recall(ctx, q)
	if err != nil {
		return "", nil, err
	}
	out := recallOutput{Results: make([]recallResult, 0, len(rs))}
	var b strings.Builder
	if len(rs) == 0 {
		b.WriteString("No memories found.")
	}
	budget := recallBudgetBytes
	for i, r := range rs {
		m := r.Memory
		res := recallResult{
			ID: m.ID, Title: m.Title, Layer: m.Layer.String(), Score: round3(r.Score), Snippet: r.Snippet,
			Tags: orEmpty(m.Tags), UpdatedAt: fmtInstant(m.UpdatedAt), EffectiveAt: fmtInstant(m.EffectiveAt),
			Status: r.State, Supersedes: refIDs(r.Supersedes), PossibleConflict: orEmpty(r.PossibleConflict),
			Path: m.Path, Version: m.Version, Vault: r.Vault,
		}
		if len(r.SupersededBy) > 0 {
			res.SupersededBy = refIDs(r.SupersededBy)
		}
		where := res.Layer
		if r.Vault != projectScope {
			where += ", " + r.Vault + " vault"
		}
		entry := fmt.Sprintf("%d. %s [%s, %s, v%d] id=%s\n   %s\n", i+1, m.Title, where, res.Status, m.Version, m.ID, oneLine(r.Snippet))
		// The first result always goes in; later ones stop at the budget
		// so a recall never floods the model's context.
		if i > 0 && b.Len()+len(entry) > budget {
			fmt.Fprintf(&b, "(%d more results left out to stay within the size budget; narrow the query, or call get_memory for a whole memory)\n", len(rs)-i)
			break
		}
		out.Results = append(out.Results, res)
		b.WriteString(entry)
		if len(r.Supersedes) > 0 {
			fmt.Fprintf(&b, "   supersedes: %s\n", namedRefs(r.Supersedes))
		}
		if len(r.SupersededBy) > 0 {
			fmt.Fprintf(&b, "   superseded by: %s\n", namedRefs(r.SupersededBy))
		}
		if len(res.PossibleConflict) > 0 {
			fmt.Fprintf(&b, "   possible conflict with: %s\n", strings.Join(res.PossibleConflict, ", "))
		}
	}
	return strings.TrimRight(b.String(), "\n"), out, nil
}

func refIDs(rs []vault.Ref) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// namedRefs names memories for people: "Title" (id), comma-separated.
func namedRefs(rs []vault.Ref) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		if r.Title == "" {
			parts = append(parts, r.ID)
			continue
		}
		parts = append(parts, fmt.Sprintf("%q (%s)", r.Title, r.ID))
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// remember

type writeOutput struct {
	ID         string   `json:"id"`
	Path       string   `json:"path"`
	Version    int      `json:"version"`
	Commit     string   `json:"commit"`
	Superseded []string `json:"superseded,omitempty"`
	// Vault says which vault was written: project or user.
	Vault string `json:"vault"`
}

func writeOut(res vault.WriteResult, scope string) writeOutput {
	return writeOutput{ID: res.Memory.ID, Path: res.Memory.Path, Version: res.Memory.Version, Commit: res.Commit,
		Superseded: res.Superseded, Vault: scope}
}

func (w writeOutput) text(verb string) string {
	s := fmt.Sprintf("%s %s (version %d) at %s", verb, w.ID, w.Version, w.Path)
	if w.Commit != "" {
		s += ", commit " + shortHash(w.Commit)
	} else {
		s += ", not committed (transient layer)"
	}
	if len(w.Superseded) > 0 {
		s += "; superseded " + strings.Join(w.Superseded, ", ")
	}
	if w.Vault != "" && w.Vault != projectScope {
		s += " (in the " + w.Vault + " vault)"
	}
	return s
}

func rememberTool() mcp.Tool {
	return mcp.NewTool("remember",
		mcp.WithDescription(`Save something worth knowing in later sessions: a decision and its reason, a convention, a command that works, `+
			`a preference the developer stated, the state of an unfinished task. Each call is one git commit. Write the content so it `+
			`stands alone (what, why, where). Remember only adds: it never changes an existing memory. If an active memory in the same `+
			`layer of the target vault has the same or a near-identical title (same words, ignoring case, punctuation and spacing), `+
			`nothing is written and the call fails naming its id and version: change it with update_memory (expected_version), `+
			`replace it by passing its id in supersedes, or choose a distinct title. Preferences go to `+
			`the user vault, which follows the developer across projects, unless scope is project. When the new memory replaces an old rule, pass the old id in supersedes so the old one stops `+
			`being returned as current. `+layerHelp+
			` Example: {"title": "Tests use pytest", "content": "Run tests with pytest -q; unittest is not used.", "layer": "project", "tags": ["testing"], "reason": "user said so"}`),
		mcp.WithString("title", mcp.Required(), mcp.Description("One line naming the memory (at most 200 characters).")),
		mcp.WithString("content", mcp.Required(), mcp.Description("Markdown body: the fact, decision or rule, with its reason.")),
		mcp.WithString("layer", mcp.Description("transient, short-term, project (default), preference or meta."), mcp.Enum("transient", "short-term", "project", "preference", "meta")),
		mcp.WithArray("tags", mcp.Description("Topic tags (a comma-separated string is accepted too)."), mcp.WithStringItems()),
		mcp.WithInteger("importance", mcp.Description("1..10, default 5; 8 and above never fades."), mcp.Min(1), mcp.Max(10)),
		mcp.WithString("effective_at", mcp.Description("When the rule starts to apply (RFC3339 or YYYY-MM-DD); default now.")),
		mcp.WithString("expires_at", mcp.Description("When it stops applying; default: the layer's TTL, none for project and preference.")),
		mcp.WithArray("supersedes", mcp.Description("Ids of memories this one replaces; they are marked superseded in the same commit."), mcp.WithStringItems()),
		mcp.WithArray("links", mcp.Description("Ids of related memories."), mcp.WithStringItems()),
		mcp.WithString("reason", mcp.Description("Why this is recorded; goes into the commit message.")),
		mcp.WithString("scope", mcp.Description("Which vault: project (this repository) or user (follows the developer across projects). Default: user for the preference layer when a user vault is served, else project."), mcp.Enum(projectScope, userScope)),
		mcp.WithSchemaAdditionalProperties(false),
		strictOutputSchema[writeOutput](),
		mcp.WithTitleAnnotation("Remember"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

func (t *mcpTools) remember(ctx context.Context, vs *openVaults, a *toolArgs) (string, any, error) {
	var n vault.NewMemory
	n.Title, _ = a.str("title", true)
	n.Content, _ = a.str("content", true)
	n.Layer, _ = a.layer("layer")
	n.Tags, _ = a.list("tags")
	n.Importance, _ = a.integer("importance", 1, 10, false)
	n.EffectiveAt, _ = a.instant("effective_at")
	n.ExpiresAt, _ = a.instant("expires_at")
	n.Supersedes, _ = a.list("supersedes")
	n.Links, _ = a.list("links")
	scope, _ := a.str("scope", false)
	reason, _ := a.str("reason", false)
	if err := a.done(); err != nil {
		return "", nil, err
	}
	res, err := vs.Remember(ctx, n, scope, vault.Author{Reason: reason, Client: clientName(ctx)})
	if err != nil {
		return "", nil, toolError(err)
	}
	vs.slot(res.Vault).noteOwnCommit(res.Commit)
	out := writeOut(res.WriteResult, res.Vault)
	return out.text("remembered"), out, nil
}

// get_memory

type memoryOutput struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Layer       string   `json:"layer"`
	Importance  int      `json:"importance"`
	Tags        []string `json:"tags"`
	Status      string   `json:"status"`
	Version     int      `json:"version"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
	EffectiveAt string   `json:"effective_at,omitempty"`
	ExpiresAt   string   `json:"expires_at,omitempty"`
	Supersedes  []string `json:"supersedes"`
	Links       []string `json:"links"`
	Related     []string `json:"related"`
	Client      string   `json:"client,omitempty"`
	Path        string   `json:"path"`
	Body        string   `json:"body"`
	// Vault says where the memory lives: project or user.
	Vault string `json:"vault"`
}

func getMemoryTool() mcp.Tool {
	return mcp.NewTool("get_memory",
		mcp.WithDescription(`Read one whole memory by id (from recall): all front matter fields and the full Markdown body. `+
			`Call it when a recall snippet is not enough, and before update_memory to learn the current version. Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A"}`),
		mcp.WithString("id", mcp.Required(), mcp.Description("The memory's id.")),
		mcp.WithSchemaAdditionalProperties(false),
		strictOutputSchema[memoryOutput](),
		mcp.WithTitleAnnotation("Get memory"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

func (t *mcpTools) getMemory(_ context.Context, vs *openVaults, a *toolArgs) (string, any, error) {
	id, _ := a.str("id", true)
	if err := a.done(); err != nil {
		return "", nil, err
	}
	p, m, err := vs.find(strings.TrimSpace(id))
	if err != nil {
		return "", nil, toolError(err)
	}
	v := p.v
	out := memoryOutput{
		ID: m.ID, Title: m.Title, Layer: m.Layer.String(), Importance: m.Importance, Tags: orEmpty(m.Tags),
		Status: string(m.Status), Version: m.Version, CreatedAt: fmtInstant(m.CreatedAt), UpdatedAt: fmtInstant(m.UpdatedAt),
		EffectiveAt: fmtInstant(m.EffectiveAt), ExpiresAt: fmtInstant(m.ExpiresAt), Supersedes: orEmpty(m.Supersedes),
		Links: orEmpty(m.Links), Related: refIDs(v.Related(m)), Client: m.Source.Client, Path: m.Path, Body: m.Body,
		Vault: p.slot.name,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nid: %s\nlayer: %s  importance: %d  status: %s  version: %d\npath: %s (%s vault)\n", m.Title, m.ID, out.Layer, m.Importance, m.Status, m.Version, m.Path, p.slot.name)
	if len(m.Tags) > 0 {
		fmt.Fprintf(&b, "tags: %s\n", strings.Join(m.Tags, ", "))
	}
	fmt.Fprintf(&b, "updated: %s\n\n%s", out.UpdatedAt, m.Body)
	return strings.TrimRight(b.String(), "\n"), out, nil
}

// update_memory

func updateMemoryTool() mcp.Tool {
	return mcp.NewTool("update_memory",
		mcp.WithDescription(`Change an existing memory in place (one git commit; the old text stays in git history). `+
			`Pass the version you last read (get_memory or recall) as expected_version: if someone changed the memory since, `+
			`the call fails naming the current version and nothing is overwritten; read it again and reapply. To replace a rule `+
			`with a different one, prefer remember with supersedes. `+layerHelp+
			` Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A", "expected_version": 2, "content": "Deploy with ops/deploy.sh --canary.", "reason": "canary step added"}`),
		mcp.WithString("id", mcp.Required(), mcp.Description("The memory's id.")),
		mcp.WithInteger("expected_version", mcp.Required(), mcp.Min(1), mcp.Description("The version you read; the update is refused if the memory is at another one.")),
		mcp.WithString("title", mcp.Description("New title.")),
		mcp.WithString("content", mcp.Description("New Markdown body (replaces the whole body).")),
		mcp.WithArray("tags", mcp.Description("New tag list (replaces the old one)."), mcp.WithStringItems()),
		mcp.WithInteger("importance", mcp.Min(1), mcp.Max(10), mcp.Description("New importance, 1..10.")),
		mcp.WithString("layer", mcp.Description("Move to another layer."), mcp.Enum("transient", "short-term", "project", "preference", "meta")),
		mcp.WithString("effective_at", mcp.Description("New start of validity (RFC3339 or YYYY-MM-DD).")),
		mcp.WithString("reason", mcp.Required(), mcp.Description("Why the memory changes; goes into the commit message.")),
		mcp.WithSchemaAdditionalProperties(false),
		strictOutputSchema[writeOutput](),
		mcp.WithTitleAnnotation("Update memory"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

func (t *mcpTools) updateMemory(ctx context.Context, vs *openVaults, a *toolArgs) (string, any, error) {
	id, _ := a.str("id", true)
	expected, _ := a.integer("expected_version", 1, 1<<30, true)
	var p vault.Patch
	if s, ok := a.str("title", false); ok {
		p.Title = &s
	}
	if s, ok := a.str("content", false); ok {
		p.Content = &s
	}
	if tags, ok := a.list("tags"); ok {
		p.Tags = &tags
	}
	if n, ok := a.integer("importance", 1, 10, false); ok {
		p.Importance = &n
	}
	if l, ok := a.layer("layer"); ok {
		p.Layer = &l
	}
	if e, ok := a.instant("effective_at"); ok {
		p.EffectiveAt = &e
	}
	reason, _ := a.str("reason", true)
	if err := a.done(); err != nil {
		return "", nil, err
	}
	target, _, err := vs.find(strings.TrimSpace(id))
	if err != nil {
		return "", nil, toolError(err)
	}
	res, err := target.v.Update(ctx, strings.TrimSpace(id), expected, p, vault.Author{Reason: reason, Client: clientName(ctx)})
	if err != nil {
		return "", nil, toolError(err)
	}
	target.slot.noteOwnCommit(res.Commit)
	out := writeOut(res, target.slot.name)
	return out.text("updated"), out, nil
}

// forget

type forgetOutput struct {
	ID      string `json:"id"`
	Action  string `json:"action"`
	Path    string `json:"path"`
	Version int    `json:"version,omitempty"`
	Commit  string `json:"commit"`
	Vault   string `json:"vault"`
}

func forgetTool() mcp.Tool {
	return mcp.NewTool("forget",
		mcp.WithDescription(`Retire a memory that is wrong or no longer useful. By default it is archived: kept in the vault with `+
			`status archived, no longer recalled unless include_inactive is set. With delete true the file is removed (still in git history). `+
			`If a newer rule replaces it, prefer remember with supersedes. Example: {"id": "01JD0Q7M4X8V2T5R9K3N6B1C0A", "reason": "the service was retired"}`),
		mcp.WithString("id", mcp.Required(), mcp.Description("The memory's id.")),
		mcp.WithString("reason", mcp.Required(), mcp.Description("Why it is forgotten; goes into the commit message.")),
		mcp.WithBoolean("delete", mcp.Description("Remove the file instead of archiving it (default false).")),
		mcp.WithSchemaAdditionalProperties(false),
		strictOutputSchema[forgetOutput](),
		mcp.WithTitleAnnotation("Forget memory"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(true),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

func (t *mcpTools) forget(ctx context.Context, vs *openVaults, a *toolArgs) (string, any, error) {
	id, _ := a.str("id", true)
	reason, _ := a.str("reason", true)
	remove := a.boolean("delete")
	if err := a.done(); err != nil {
		return "", nil, err
	}
	target, _, err := vs.find(strings.TrimSpace(id))
	if err != nil {
		return "", nil, toolError(err)
	}
	res, err := target.v.Forget(ctx, strings.TrimSpace(id), remove, vault.Author{Reason: reason, Client: clientName(ctx)})
	if err != nil {
		return "", nil, toolError(err)
	}
	target.slot.noteOwnCommit(res.Commit)
	out := forgetOutput{ID: strings.TrimSpace(id), Action: "archived", Commit: res.Commit, Vault: target.slot.name}
	if remove {
		out.Action = "deleted"
	}
	if res.Memory != nil {
		out.Path, out.Version = res.Memory.Path, res.Memory.Version
	}
	text := fmt.Sprintf("%s %s", out.Action, out.ID)
	if out.Commit != "" {
		text += ", commit " + shortHash(out.Commit)
	}
	return text, out, nil
}

// memory_stats

// vaultStats summarises one vault.
type vaultStats struct {
	Vault    string         `json:"vault"`
	Total    int            `json:"total"`
	ByLayer  map[string]int `json:"by_layer"`
	ByStatus map[string]int `json:"by_status"`
	InForce  int            `json:"in_force"`
	Expired  int            `json:"expired"`
	Future   int            `json:"future"`
	// Stale memories are served from their last good version because
	// their file no longer parses.
	Stale    int `json:"stale"`
	Errors   int `json:"parse_errors"`
	Warnings int `json:"warnings"`
	// Secrets counts files holding something the secret guard matches
	// (counted in parse_errors too).
	Secrets int `json:"secret_findings"`
	// Problems lists the first diagnostics as path:line: field: problem.
	Problems []string `json:"problems"`
	GitHead  string   `json:"git_head,omitempty"`
	Indexed  int      `json:"index_docs"`
	LoadedAt string   `json:"loaded_at"`
	// IndexAge is the wall-clock seconds since the index last changed
	// (not the ranking clock: it describes this process, not the data).
	IndexAge float64 `json:"index_age_seconds"`
}

// maxProblems caps the diagnostics memory_stats lists, so a vault with
// thousands of broken files still answers within the size budget; lint
// lists them all.
const maxProblems = 20

// statsOutput is the project vault's summary, with the user vault's when
// one is served.
type statsOutput struct {
	vaultStats
	UserVault *vaultStats `json:"user_vault,omitempty"`
}

func (t *mcpTools) statsOf(ctx context.Context, v *vault.Vault, slot *vaultSlot) vaultStats {
	s := v.Stats()
	out := vaultStats{Vault: s.Dir, Total: s.Total, ByLayer: s.ByLayer, ByStatus: s.ByStatus, InForce: s.InForce,
		Expired: s.Expired, Future: s.Future, Stale: s.Stale, Errors: s.Errors, Warnings: s.Warnings, Secrets: s.Secrets,
		Problems: []string{}, Indexed: s.Indexed, LoadedAt: fmtInstant(s.LoadedAt),
		IndexAge: max(0, time.Since(s.UpdatedAt).Round(time.Millisecond).Seconds())}
	for _, d := range v.Diagnostics() {
		if len(out.Problems) == maxProblems {
			out.Problems = append(out.Problems, fmt.Sprintf("… and %d more: run memvault lint", s.Errors+s.Warnings-maxProblems))
			break
		}
		out.Problems = append(out.Problems, d.Error())
	}
	if slot != nil && slot.head != nil {
		if h, err := slot.head(ctx); err == nil {
			out.GitHead = h
		}
	}
	return out
}

func memoryStatsTool() mcp.Tool {
	return mcp.NewTool("memory_stats",
		mcp.WithDescription(`Summarise the memory vaults (the project's, and the user's when one is served): where they are, how many memories per layer and status, the files with problems (broken front matter served from their last good version, secrets), git HEAD, and the index's size and age. `+
			`Call it to check the vault is reachable or when recall returns surprisingly little. Example: {}`),
		mcp.WithSchemaAdditionalProperties(false),
		strictOutputSchema[statsOutput](),
		mcp.WithTitleAnnotation("Memory statistics"),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
}

func (t *mcpTools) memoryStats(ctx context.Context, vs *openVaults, a *toolArgs) (string, any, error) {
	if err := a.done(); err != nil {
		return "", nil, err
	}
	vaults := vs.each()
	out := statsOutput{vaultStats: t.statsOf(ctx, vaults[0].v, vaults[0].slot)}
	b, err := json.Marshal(out.vaultStats)
	if err != nil {
		return "", nil, err
	}
	text := fmt.Sprintf("%d memories in %s: %s", out.Total, out.Vault, b)
	if len(vaults) > 1 {
		u := t.statsOf(ctx, vaults[1].v, vaults[1].slot)
		out.UserVault = &u
		ub, err := json.Marshal(u)
		if err != nil {
			return "", nil, err
		}
		text += fmt.Sprintf("\nuser vault: %d memories in %s: %s", u.Total, u.Vault, ub)
	}
	return text, out, nil
}
