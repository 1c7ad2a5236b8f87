package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/assistant"
	"github.com/memvault/memvault/cmd/memvault/internal/digesttext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/sincetext"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/digest"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/history"
	"github.com/memvault/memvault/vault/inject"
	"github.com/memvault/memvault/vault/staleness"
)

// The assistant hooks: Claude Code runs them at session start, at each
// prompt and when the model stops (docs/assistants.md). They never fail a
// session: whatever goes wrong is one line on stderr and exit status 0.

// hookClient is the client name the hooks' catch-up point is kept under.
const hookClient = "claude-code"

func (m *Main) assistantHookCommands() []*cobra.Command {
	var budget int
	var user userVaultFlags
	start := &cobra.Command{
		Use:   "session-start",
		Short: "Claude Code SessionStart hook: the digest of what is in force, within a budget",
		Long: `session-start reads Claude Code's SessionStart event on stdin and prints the
context Claude Code adds at session start (startup, resume, clear, compact):
what changed in the memory since this clone's last session (who and why),
preferences and rules in force (importance 8+), this week's decisions, recent
task state, stale and conflicting memories, and how to search for more. It
keeps within --budget characters and prints nothing for an empty vault.
MEMVAULT_HOOKS=off turns every assistant hook off.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.runAssistantHook(cmd.Context(), "session-start", func(ctx context.Context, e assistant.Event) error {
				return m.sessionStart(ctx, e, user, budget)
			})
		},
	}
	start.Flags().IntVar(&budget, "budget", inject.DefaultSessionBudget,
		fmt.Sprintf("the most characters the session start injects (at most %d; Claude Code caps a hook's context at 10,000)", inject.MaxSessionBudget))
	prompt := &cobra.Command{
		Use:   "user-prompt-submit",
		Short: "Claude Code UserPromptSubmit hook: the memories that answer the prompt, or nothing",
		Long: `user-prompt-submit reads Claude Code's UserPromptSubmit event on stdin, recalls
with the prompt, and prints the memories that answer it (strong matches, at
most 8, each with its title, id and text cut to a 150-character summary when
over 300), a weak match at most as a one-line title hint, and nothing at all
when nothing is relevant or the prompt is not a task (a slash command,
"continue", a few characters). It never blocks a prompt.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.runAssistantHook(cmd.Context(), "user-prompt-submit", func(ctx context.Context, e assistant.Event) error {
				return m.userPromptSubmit(ctx, e, user)
			})
		},
	}
	user.register(prompt.Flags())
	user.register(start.Flags())
	stop := &cobra.Command{
		Use:   "stop",
		Short: "Claude Code Stop hook: asks once to record the session's decisions when it changed code and wrote no memory",
		Long: `stop reads Claude Code's Stop event on stdin and the session's transcript. When
the session edited files or committed and recorded no memory, it blocks the
stop once, asking the model to record the session's durable decisions with
remember (the why and the alternatives rejected); never twice, never when a
Stop hook already keeps the session going, never in a session that wrote a
memory. No model runs in the background. MEMVAULT_STOP_HOOK=off turns it
off.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return m.runAssistantHook(cmd.Context(), "stop", m.stopHook)
		},
	}
	return []*cobra.Command{start, prompt, stop}
}

// runAssistantHook reads the event and runs the hook; an error is one
// line on stderr, never a failed hook.
func (m *Main) runAssistantHook(ctx context.Context, name string, run func(context.Context, assistant.Event) error) error {
	if switchedOff(m.Getenv("MEMVAULT_HOOKS")) {
		return nil
	}
	e, err := assistant.ReadEvent(m.Stdin)
	if err == nil {
		err = m.hookVault(e)
	}
	if err == nil {
		err = run(ctx, e)
	}
	if err != nil && !errors.Is(err, errNoVault) {
		fmt.Fprintf(m.Stderr, "memvault %s hook: %s\n", name, inject.Clean(err.Error()))
	}
	return nil
}

// promptStalenessDeadline bounds the staleness check of a prompt's
// memories (a walk of the history their refs name, usually cached).
const promptStalenessDeadline = 300 * time.Millisecond

// errNoVault ends a hook quietly in a project without a vault.
var errNoVault = fault.New(fault.NotFound, "no vault")

// hookVault points the command at the vault of the project Claude Code
// runs in (the event's cwd) unless --vault names one, and ends the hook
// quietly when there is none.
func (m *Main) hookVault(e assistant.Event) error {
	if m.vaultDir == "" && e.Cwd != "" {
		root, ok := gitRoot(e.Cwd)
		if !ok {
			root = e.Cwd
		}
		m.vaultDir = filepath.Join(root, ".memory")
	}
	dir, err := m.resolveVaultDir()
	if err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return errNoVault
	}
	return nil
}

// switchedOff reads an on/off environment switch.
func switchedOff(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "0", "false", "no":
		return true
	}
	return false
}

func (m *Main) userPromptSubmit(ctx context.Context, e assistant.Event, user userVaultFlags) error {
	if !inject.IsTask(e.Prompt) {
		return nil
	}
	set, err := m.openReadSet(ctx, user)
	if err != nil {
		return err
	}
	p, err := inject.ForPrompt(ctx, set, e.Prompt)
	if err != nil {
		return err
	}
	if p.Withheld > 0 {
		fmt.Fprintf(m.Stderr, "memvault: %d matching memories hold what looks like a secret and were not injected; memvault lint names them\n", p.Withheld)
	}
	var shown []vault.SetResult
	for _, it := range p.Items {
		shown = append(shown, it.SetResult)
	}
	// Staleness is advice: what is not known within the deadline is
	// left out rather than hold up the prompt.
	sctx, cancel := context.WithTimeout(ctx, promptStalenessDeadline)
	defer cancel()
	states := staleness.OfSet(sctx, gitrepo.OpenChecker, set.Members(), shown)
	return assistant.WriteContext(m.Stdout, assistant.UserPromptSubmit, assistant.PromptContext(p, states, m.Now()))
}

func (m *Main) sessionStart(ctx context.Context, e assistant.Event, user userVaultFlags, budget int) error {
	budget = min(max(budget, 0), inject.MaxSessionBudget)
	set, err := m.openReadSet(ctx, user)
	if err != nil {
		return err
	}
	var s assistant.Session
	for _, mem := range set.Members() {
		for _, c := range mem.Vault.Conflicted() {
			v := view.ConflictedOf(c, mem.Vault.Dir())
			s.Conflicted = append(s.Conflicted, fmt.Sprintf("%s (%s): %s", v.Path, strings.Join(v.What, ", "), v.Fix))
		}
	}
	s.News = m.hookNews(ctx, e, set, inject.NewsShare(budget-assistant.Overhead(s.Conflicted)))
	rest := budget - assistant.Overhead(s.Conflicted) - len(s.News)
	if s.Digest, err = digest.Build(ctx, set, max(rest, 0), assistant.Lines); err != nil {
		return err
	}
	s.States = staleness.OfSet(ctx, gitrepo.OpenChecker, set.Members(), digesttext.Shown(s.Digest))
	text := assistant.SessionContext(s)
	if len(text) > budget {
		// The budget is too small for even the frame: say nothing
		// rather than break Claude Code's cap.
		return nil
	}
	return assistant.WriteContext(m.Stdout, assistant.SessionStart, text)
}

// hookNews is what changed in the project vault since this clone's last
// Claude Code session, within limit bytes; "" outside git or when
// nothing changed. Only a session that starts afresh moves the point
// (inject.StartsAfresh).
func (m *Main) hookNews(ctx context.Context, e assistant.Event, set *vault.Set, limit int) string {
	g, err := m.openRepo(ctx)
	if err != nil {
		if !errors.Is(err, gitstore.ErrNotRepository) {
			fmt.Fprintf(m.Stderr, "memvault session-start hook: %s\n", inject.Clean(err.Error()))
		}
		return ""
	}
	defer g.Close()
	project := set.Members()[0].Vault
	rep, err := g.CatchUp(ctx, gitrepo.CatchUp{Client: hookClient, Since: gitrepo.SinceLast, Now: m.Now(), Advance: inject.StartsAfresh(e.Source), Checker: g.Checker(), All: project.All})
	if err != nil {
		fmt.Fprintf(m.Stderr, "memvault session-start hook: what changed since the last session: %s\n", inject.Clean(err.Error()))
		return ""
	}
	more := "memvault digest --since " + history.ShortHash(rep.Base)
	if rep.Base == "" {
		more = "memvault list"
	}
	for _, max := range []int{15, 8, 4, 2} {
		news := sincetext.Markdown(rep, sincetext.Options{Heading: sincetext.Heading(rep, ""), Max: max, More: more})
		if len(news) <= limit {
			return news
		}
	}
	return ""
}

func (m *Main) stopHook(ctx context.Context, e assistant.Event) error {
	if switchedOff(m.Getenv("MEMVAULT_STOP_HOOK")) || e.StopHookActive || e.TranscriptPath == "" {
		return nil
	}
	t, err := assistant.ReadTranscript(e.TranscriptPath)
	if err != nil {
		return err
	}
	if !assistant.ShouldBlock(e, t) {
		return nil
	}
	return assistant.WriteBlock(m.Stdout, assistant.StopReason)
}
