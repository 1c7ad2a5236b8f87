package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/vault"
)

// contextURI is the session-start digest a client can pull in.
const contextURI = "memory://context"

// memoryURIPrefix starts the URI of one memory: memory://memories/{id}.
const memoryURIPrefix = "memory://memories/"

// registerResources adds the context digest, the per-memory template and
// the prompts to s.
func (t *mcpTools) registerResources(s *server.MCPServer) {
	s.AddResource(mcp.NewResource(contextURI, "Memory context",
		mcp.WithResourceDescription("What an assistant should know at session start: the developer's preferences, "+
			"high-importance project rules, recent task state and open conflicts, within about 2,000 tokens."),
		mcp.WithMIMEType("text/markdown")), t.loggedResource(t.readContext))
	s.AddResourceTemplate(mcp.NewResourceTemplate(memoryURIPrefix+"{id}", "Memory",
		mcp.WithTemplateDescription("One memory, whole, as Markdown."),
		mcp.WithTemplateMIMEType("text/markdown")), server.ResourceTemplateHandlerFunc(t.loggedResource(t.readMemory)))
	s.AddPrompt(mcp.NewPrompt("recall",
		mcp.WithPromptDescription("Pull the project's memories about a subject into the conversation."),
		mcp.WithArgument("query", mcp.ArgumentDescription("What to recall, in any language."), mcp.RequiredArgument())), t.loggedPrompt(t.recallPrompt))
	s.AddPrompt(mcp.NewPrompt("remember-decision",
		mcp.WithPromptDescription("Record a decision just made, with its reason and the alternatives rejected."),
		mcp.WithArgument("topic", mcp.ArgumentDescription("What the decision is about (optional)."))), t.loggedPrompt(t.rememberDecisionPrompt))
}

// loggedResource logs one line per resource read, like tool calls.
func (t *mcpTools) loggedResource(h server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		start := time.Now()
		out, err := h(ctx, req)
		size := 0
		for _, c := range out {
			if tc, ok := c.(mcp.TextResourceContents); ok {
				size += len(tc.Text)
			}
		}
		attrs := []any{"uri", req.Params.URI, "client", clientName(ctx), "duration", time.Since(start).Round(time.Microsecond), "result_bytes", size}
		if err != nil {
			t.logger.Warn("resource read", append(attrs, "error", err.Error())...)
		} else {
			t.logger.Info("resource read", attrs...)
		}
		return out, err
	}
}

// loggedPrompt logs one line per prompt request.
func (t *mcpTools) loggedPrompt(h server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		start := time.Now()
		out, err := h(ctx, req)
		attrs := []any{"prompt", req.Params.Name, "client", clientName(ctx), "duration", time.Since(start).Round(time.Microsecond)}
		if err != nil {
			t.logger.Warn("prompt", append(attrs, "error", err.Error())...)
		} else {
			t.logger.Info("prompt", attrs...)
		}
		return out, err
	}
}

// defaultDiscoveryWait bounds how long a resource read waits for the
// client's roots to settle the project vault.
const defaultDiscoveryWait = 5 * time.Second

// readyVaults waits for the vaults and brings them up to date. Resource
// reads cannot ask the client for its roots with an input request the way
// tool calls do, so while the project vault is unknown they wait for it a
// little (awaitProject) and then fail, saying what to do.
func (t *mcpTools) readyVaults(ctx context.Context) (*openVaults, error) {
	if t.project.get() == nil {
		if err := t.awaitProject(ctx); err != nil {
			return nil, err
		}
	}
	vs, _, err := t.vaults(ctx, nil)
	return vs, err
}

// awaitProject waits, for at most discoveryWait and while ctx lasts, for
// the client's roots to settle the project vault. A client of a protocol
// before 2026-07-28 is sent roots/list after initialize; the read waits
// for that answer, or sends the request itself when none is out (it was
// answered without a vault, or the read came first). A newer client can
// only be asked during a tool call: the read waits only when one has.
func (t *mcpTools) awaitProject(ctx context.Context) error {
	if !clientHasRoots(ctx) {
		return t.project.errNoVault()
	}
	wait := cmp.Or(t.discoveryWait, defaultDiscoveryWait)
	modern := isModern(ctx)
	switch {
	case !modern && t.listRoots != nil:
		answered := t.project.request(ctx, t.listRoots) // unless one is out
		t.project.await(ctx, wait, answered)
	case t.project.pending():
		t.project.await(ctx, wait, nil)
	}
	if t.project.get() != nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("waiting for the client's roots to find the project vault: %w", err)
	}
	if t.project.answered() {
		return t.project.errNoVault()
	}
	if !modern {
		why := ""
		if t.project.overHTTP {
			why = " (over streamable HTTP the server can send it only on the client's GET stream; a client with none open never answers)"
		}
		return fmt.Errorf("the project vault is not known yet: the client did not answer roots/list within %s%s. "+
			"Read again shortly, or start memvault serve inside the project's repository or with --vault DIR", wait, why)
	}
	return errors.New("the project vault is not known yet: the client has not reported its roots " +
		"(with protocol 2026-07-28 the server can ask for them only during a tool call). Call a tool first " +
		"(memory_stats will do) and read again, or start memvault serve inside the project's repository or with --vault DIR")
}

// contextDigestHeader starts the session-start digest.
const contextDigestHeader = "# Project memory\n"

// contextDigest renders the session-start digest (vault.Set.Digest
// decides what goes in) as Markdown within budget bytes.
func contextDigest(ctx context.Context, vs *openVaults, budget int) (string, error) {
	d, err := vs.Digest(ctx, budget-len(contextDigestHeader), digestLines{})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(contextDigestHeader)
	for _, sec := range d.Sections {
		b.WriteString(digestLines{}.heading(sec.Title))
		for _, r := range sec.Memories {
			b.WriteString(digestLines{}.memory(r))
		}
		for _, p := range sec.Conflicts {
			b.WriteString(digestLines{}.conflict(p))
		}
	}
	switch {
	case d.LeftOut > 0:
		b.WriteString("\n(more left out; use the recall tool)\n")
	case len(d.Sections) == 0:
		b.WriteString("\nNo preferences, key rules or task state recorded yet.\n")
	}
	return b.String(), nil
}

// digestLines renders the digest's parts, and measures them for
// vault.Set.Digest's budget.
type digestLines struct{}

func (digestLines) heading(title string) string { return "\n## " + title + "\n" }

func (digestLines) memory(r vault.SetResult) string {
	line := fmt.Sprintf("- %s (%s): %s", r.Memory.Title, r.Memory.ID, oneLine(r.Snippet))
	if len(r.Supersedes) > 0 {
		// Ids only: the digest leaves the old rules' wording out.
		line += " (replaces " + strings.Join(refIDs(r.Supersedes), ", ") + ")"
	}
	return line + "\n"
}

func (digestLines) conflict(p [2]string) string {
	return fmt.Sprintf("- %s may conflict with %s\n", p[0], p[1])
}

func (l digestLines) Heading(title string) int     { return len(l.heading(title)) }
func (l digestLines) Memory(r vault.SetResult) int { return len(l.memory(r)) }
func (l digestLines) Conflict(p [2]string) int     { return len(l.conflict(p)) }

func (t *mcpTools) readContext(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	vs, err := t.readyVaults(ctx)
	if err != nil {
		return nil, err
	}
	text, err := contextDigest(ctx, vs, recallBudgetBytes)
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: contextURI, MIMEType: "text/markdown", Text: text}}, nil
}

func (t *mcpTools) readMemory(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	id, ok := strings.CutPrefix(req.Params.URI, memoryURIPrefix)
	if !ok || id == "" {
		return nil, fmt.Errorf("%s: want %s{id}", req.Params.URI, memoryURIPrefix)
	}
	vs, err := t.readyVaults(ctx)
	if err != nil {
		return nil, err
	}
	p, m, err := vs.find(id)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("# %s\n\nid: %s  \nlayer: %s  \nvault: %s  \nimportance: %d  \nstatus: %s  \nversion: %d  \nupdated: %s\n\n%s",
		m.Title, m.ID, m.Layer, p.slot.name, m.Importance, m.Status, m.Version, fmtInstant(m.UpdatedAt), m.Body)
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: text}}, nil
}

func (t *mcpTools) recallPrompt(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	query := strings.TrimSpace(req.Params.Arguments["query"])
	if query == "" {
		return nil, fmt.Errorf("query: required")
	}
	// Like a tool call, the prompt may ask the client for its roots
	// while the project vault is unknown.
	t.project.wait(ctx)
	vs, ask, err := t.vaults(ctx, req.Params.InputResponses)
	if err != nil {
		return nil, err
	}
	if ask {
		t.project.noteAsked()
		return server.NewInputRequestBuilder("").Roots(rootsInputID).PromptResult(), nil
	}
	text, _, err := t.recall(ctx, vs, newToolArgs(map[string]any{"query": query}))
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("Project memories about %q (from memvault; use get_memory for the whole text):\n\n%s", query, text)
	return mcp.NewGetPromptResult("Memories about "+query,
		[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(msg))}), nil
}

func (t *mcpTools) rememberDecisionPrompt(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	about := "the decision we just made"
	if topic := strings.TrimSpace(req.Params.Arguments["topic"]); topic != "" {
		about = "the decision about " + topic
	}
	msg := "Record " + about + " with the remember tool, in layer project. Title: the decision in one line. " +
		"Content: what was decided, why, the alternatives considered and why each was rejected, and where it applies " +
		"(paths, commands). Add topic tags. If it replaces an earlier rule, call recall first and pass the old id in supersedes. " +
		"Give the reason argument in one sentence."
	return mcp.NewGetPromptResult("Remember a decision",
		[]mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(msg))}), nil
}
