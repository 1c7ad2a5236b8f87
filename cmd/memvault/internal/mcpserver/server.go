package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/history"
	catchup "github.com/memvault/memvault/vault/since"
	"github.com/memvault/memvault/vault/staleness"
)

// instructions is what an MCP client shows the model about the server as
// a whole; the tool descriptions carry the details.
const instructions = `memvault is this project's shared long-term memory, kept as Markdown in git. ` +
	`Call recall before deciding how something is done here; call remember when a decision, convention or ` +
	`preference is worth keeping for later sessions. Chinese and English both work.`

// Loader hands out a served vault, which loads in the background so that
// the server answers initialize at once.
type Loader interface {
	// Ready waits for the load and brings the vault up to date with what
	// other processes committed since it was last read.
	Ready(ctx context.Context) (*vault.Vault, error)
	// Loaded reports the load without waiting: done is false while it
	// runs; err says why it failed.
	Loaded() (v *vault.Vault, done bool, err error)
	// NoteOwnCommit records a commit this server made, which Ready need
	// not read back.
	NoteOwnCommit(hash string)
}

// Repo is what the server reads of the git repository holding a vault.
// It is a history.Teller.
type Repo interface {
	// Head is the repository's HEAD commit.
	Head(ctx context.Context) (string, error)
	// History tells a memory's story; cur is the memory as the vault has
	// it, nil when it has none.
	History(ctx context.Context, id string, cur *vault.Memory) (*history.Story, error)
	// AsOf returns the vault as recorded at an instant.
	AsOf(ctx context.Context, at time.Time) (*vault.Vault, error)
	// Staleness says, for each of ms that has refs, whether the code
	// they name changed since the memory was last written or confirmed.
	Staleness(ctx context.Context, ms []*vault.Memory) (map[string]staleness.Staleness, error)
	// CatchUp tells what changed in the vault since client's last
	// session in this clone and moves the client's point to now: the
	// read of memory://context is a session's start.
	CatchUp(ctx context.Context, client string) (catchup.Report, error)
	// PassOwnWrite tells that client's session wrote commit, so that its
	// next session is not told about it as news.
	PassOwnWrite(ctx context.Context, client, commit string) error
}

// Served is a vault as cmd/memvault opened it for the server.
type Served struct {
	Vault Loader
	// Git is nil when the vault is not in a git repository: no history,
	// and an as-of recall only moves valid time.
	Git Repo
}

// Opener opens the vault in folder dir, serving it as name
// (vault.ProjectVault or vault.UserVault), and returns at once. It calls
// changed with each change of the vault (writes, reloads, files changed
// on disk) once loaded, so the server can notify its clients.
type Opener func(name, dir string, changed func(vault.Change)) Served

// Config configures a Server.
type Config struct {
	// Version is the server version clients see.
	Version string
	// Logger gets one line per call; nil discards.
	Logger *slog.Logger
	// Now is the clock recall ranks at; nil means the project vault's.
	Now func() time.Time
	// Open opens a served vault; required.
	Open Opener
	// ProjectDir is the project vault's folder; "" when it is to be found
	// from the client's roots (MCP roots) by GitRoot.
	ProjectDir string
	// Cwd is the working directory the caller looked at first, for the
	// message saying why no vault was found; "" when ProjectDir is set.
	Cwd string
	// UserDir is the user vault's folder; "" serves none.
	UserDir string
	// GitRoot returns the top of the git work tree holding dir; ok is
	// false outside git. Required when ProjectDir is "".
	GitRoot func(dir string) (root string, ok bool)
	// DiscoveryWait bounds how long a resource read waits for the
	// client's roots to settle the project vault; 0 means 5 seconds.
	DiscoveryWait time.Duration
	// RecallTimeout bounds one recall; 0 means DefaultRecallTimeout, a
	// negative value none.
	RecallTimeout time.Duration
	// SyncStatus, when set, is the team server's last sync round
	// (serve --pull-interval), shown by memory_stats and memory://context.
	SyncStatus func() *view.SyncStatus
	// CheckOutput validates every tool result against the tool's output
	// schema before it is sent. The tests turn it on; a served binary
	// does not: the results are built from the very types the schemas
	// are generated from, and the check cost a recall about a third of
	// a millisecond of CPU (docs/performance.md).
	CheckOutput bool
}

// Server is memvault's MCP server over a project vault and, optionally,
// a user vault.
type Server struct {
	mcp     *server.MCPServer
	logger  *slog.Logger
	now     func() time.Time
	notify  *notifier
	project *discovery
	user    *slot // nil without a user vault
	// cache keeps what the calls' vault sets share: the pool that ranks
	// the vaults' candidates together, each vault's superseding memories.
	cache vault.SetCache
	// wait bounds a resource read's wait for the roots.
	wait time.Duration
	// args holds each tool's argument spec, by tool name.
	args map[string]*argSpec
	// recallTimeout bounds one recall (Config.RecallTimeout).
	recallTimeout time.Duration
	// syncStatus is Config.SyncStatus.
	syncStatus func() *view.SyncStatus
}

// slot is one served vault with its name and folder.
type slot struct {
	name, dir string
	Served
}

// New builds the server, opening the user vault, and the project vault
// when its folder is known, in the background (Config.Open).
func New(cfg Config) *Server {
	logger := cmp.Or(cfg.Logger, slog.New(slog.NewTextHandler(io.Discard, nil)))
	s := &Server{logger: logger, now: cfg.Now, notify: newNotifier(logger), wait: cmp.Or(cfg.DiscoveryWait, defaultDiscoveryWait),
		recallTimeout: cmp.Or(cfg.RecallTimeout, DefaultRecallTimeout), syncStatus: cfg.SyncStatus}
	hooks := &server.Hooks{}
	s.notify.hook(hooks)
	hooks.AddBeforeReadResource(s.unknownMemory)
	opts := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, true),
		server.WithPromptCapabilities(false),
		server.WithInstructions(instructions),
		server.WithHooks(hooks),
		server.WithRecovery(),
	}
	if cfg.CheckOutput {
		opts = append(opts, server.WithOutputSchemaValidation())
	}
	s.mcp = server.NewMCPServer("memvault", cfg.Version, opts...)
	// The notifier has its server before a vault can change.
	s.notify.srv = s.mcp
	open := func(name, dir string) *slot {
		return &slot{name: name, dir: dir, Served: cfg.Open(name, dir, s.notify.changed)}
	}
	s.project = &discovery{logger: logger, cwd: cfg.Cwd, gitRoot: cfg.GitRoot,
		open: func(dir string) *slot { return open(vault.ProjectVault, dir) }}
	// The tools first: the loads started below take both cores of a small
	// machine, and the client waits for initialize and tools/list, not
	// for them.
	s.register()
	if cfg.ProjectDir != "" {
		s.project.found(cfg.ProjectDir)
	}
	if cfg.UserDir != "" && cfg.UserDir != cfg.ProjectDir {
		s.user = open(vault.UserVault, cfg.UserDir)
	}
	return s
}

// register adds the tools, resources and prompts.
func (s *Server) register() {
	addTool(s, recallTool(), s.recall)
	addTool(s, rememberTool(), s.remember)
	addTool(s, getMemoryTool(), s.getMemory)
	addTool(s, updateMemoryTool(), s.updateMemory)
	addTool(s, forgetTool(), s.forget)
	addTool(s, confirmMemoryTool(), s.confirmMemory)
	addTool(s, listMemoriesTool(), s.listMemories)
	addTool(s, memoryStatsTool(), s.memoryStats)
	addTool(s, memoryHistoryTool(), s.memoryHistory)
	s.mcp.AddResource(contextResource(), s.loggedResource(s.readContext))
	s.mcp.AddResource(reviewResource(), s.loggedResource(s.readReview))
	s.mcp.AddResourceTemplate(memoryTemplate(), server.ResourceTemplateHandlerFunc(s.loggedResource(s.readMemory)))
	s.mcp.AddPrompt(recallPrompt(), s.loggedPrompt(s.recallPrompt))
	s.mcp.AddPrompt(rememberDecisionPrompt(), s.loggedPrompt(s.rememberDecisionPrompt))
	s.registerRoots()
}

// ServeStdio serves one client over in and out until in ends or ctx is
// done.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	s.logger.Info("serving", "vault", s.projectDir(), "user_vault", s.userDir(), "transport", "stdio")
	if err := server.NewStdioServer(s.mcp).Listen(ctx, in, out); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// projectDir is the project vault's folder, "" while unknown.
func (s *Server) projectDir() string {
	if p := s.project.get(); p != nil {
		return p.dir
	}
	return ""
}

// userDir is the user vault's folder, "" without one.
func (s *Server) userDir() string {
	if s.user != nil {
		return s.user.dir
	}
	return ""
}
