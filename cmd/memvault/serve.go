package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// serverInstructions is what an MCP client shows the model about the
// server as a whole; the tool descriptions carry the details.
const serverInstructions = `memvault is this project's shared long-term memory, kept as Markdown in git. ` +
	`Call recall before deciding how something is done here; call remember when a decision, convention or ` +
	`preference is worth keeping for later sessions. Chinese and English both work.`

func (m *Main) serveCommand() *cobra.Command {
	var logFile, httpAddr, token, userVault string
	var noUserVault bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault to AI assistants over MCP (stdio, or HTTP with --http)",
		Long: `serve runs an MCP server on standard input and output for Claude Code, Cursor
and other MCP clients. Standard output carries only the protocol; one log
line per tool call goes to standard error (or --log-file). Every write is a
git commit whose Memory-Client trailer names the client (its
clientInfo.name, else "mcp"). The vault is indexed in the background:
initialize is answered at once and the first tool call waits for the index.

Without --vault the project vault is .memory at the git root of the
working directory, else at the git root of the first root the client
reports (MCP roots). The user vault (--user-vault, default ~/.memvault when
it exists) holds preferences that follow the developer across projects;
recall searches both. See docs/mcp.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if token == "" {
				token = m.Getenv("MEMVAULT_TOKEN")
			}
			if httpAddr != "" {
				if err := checkHTTPAddr(httpAddr, token); err != nil {
					return err
				}
			}
			var logOut io.Writer = m.Stderr
			if logFile != "" {
				f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
				if err != nil {
					return usagef("--log-file: %v", err)
				}
				defer f.Close()
				logOut = f
			}
			logger := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelInfo}))

			// An explicit --vault outside git fails at once, with the
			// usual message: a server that starts and then refuses every
			// call is harder to diagnose. Without --vault the server
			// starts anyway and waits for the client's roots.
			projectDir, cwd, err := m.serveProjectDir(ctx)
			if err != nil {
				return err
			}
			userDir := ""
			if !noUserVault {
				if userDir, err = m.userVaultDir(ctx, userVault, logger); err != nil {
					return err
				}
			}

			notify := newNotifier(logger)
			// The project vault may be opened late, from the goroutine
			// that reads the client's roots.
			var mu sync.Mutex
			var opened []*servedVault
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				for _, o := range opened {
					o.close()
				}
			}()
			open := func(name, dir string) *vaultSlot {
				o := m.openServedVault(ctx, name, dir, logger, notify)
				mu.Lock()
				opened = append(opened, o)
				mu.Unlock()
				return o.slot
			}
			tools := &mcpTools{logger: logger, notify: notify, now: m.Now,
				project: &discovery{logger: logger, cwd: cwd, overHTTP: httpAddr != "", open: func(dir string) *vaultSlot { return open(projectScope, dir) }}}
			if projectDir != "" {
				tools.project.found(projectDir)
			}
			if userDir != "" && userDir != projectDir {
				tools.user = open(userScope, userDir)
			}

			hooks := &server.Hooks{}
			notify.hook(hooks)
			s := server.NewMCPServer("memvault", m.Version,
				server.WithToolCapabilities(false),
				server.WithResourceCapabilities(true, true),
				server.WithPromptCapabilities(false),
				server.WithInstructions(serverInstructions),
				server.WithHooks(hooks),
				server.WithRecovery(),
			)
			notify.srv = s
			tools.register(s)
			if httpAddr != "" {
				return m.serveHTTP(ctx, s, tools, httpAddr, token, logger)
			}
			logger.Info("serving", "vault", projectDir, "user_vault", userDir, "transport", "stdio")
			if err := server.NewStdioServer(s).Listen(ctx, m.Stdin, m.Stdout); err != nil && ctx.Err() == nil {
				return fmt.Errorf("serve: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&logFile, "log-file", "", "append logs to this file instead of standard error")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP at this address (e.g. 127.0.0.1:7391) instead of stdio")
	cmd.Flags().StringVar(&token, "token", "", "bearer token every HTTP request must carry (default $MEMVAULT_TOKEN); required beyond loopback")
	cmd.Flags().StringVar(&userVault, "user-vault", "", "vault of preferences that follow you across projects, in a git repository (default ~/.memvault when it exists)")
	cmd.Flags().BoolVar(&noUserVault, "no-user-vault", false, "serve the project vault only")
	return cmd
}

// serveProjectDir finds the project vault at startup: --vault (which must
// be in a git repository), else .memory at the git root of the working
// directory. It returns "" and the working directory when neither
// decides, and the client's roots are to be asked.
func (m *Main) serveProjectDir(ctx context.Context) (dir, cwd string, err error) {
	if m.vaultDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", "", fmt.Errorf("working directory: %w", err)
		}
		root, ok := gitRoot(wd)
		if !ok {
			return "", wd, nil
		}
		return filepath.Join(root, ".memory"), "", nil
	}
	dir, err = m.resolveVaultDir()
	if err != nil {
		return "", "", err
	}
	probe, err := openGit(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return "", "", notRepository(dir)
	}
	if err != nil {
		return "", "", fmt.Errorf("open git repository: %w", err)
	}
	probe.Close()
	return dir, "", nil
}

// servedVault is a vault the server opened, with what closes it.
type servedVault struct {
	slot  *vaultSlot
	store *gitstore.Store
	stop  func() // ends change notifications
}

// close waits for the load and releases the repository.
func (o *servedVault) close() {
	<-o.slot.loader.ready
	if o.stop != nil {
		o.stop()
	}
	if o.store != nil {
		o.store.Close()
	}
}

// openServedVault starts loading the vault at dir in the background and
// returns at once; tool calls wait for the load.
func (m *Main) openServedVault(ctx context.Context, name, dir string, logger *slog.Logger, notify *notifier) *servedVault {
	o := &servedVault{slot: &vaultSlot{name: name, dir: dir, logger: logger, history: m.servedHistory(dir), asOf: m.servedAsOf(dir, name, logger)}}
	o.slot.head = func(ctx context.Context) (string, error) {
		st, err := o.store.State(ctx)
		return st.Head, err
	}
	o.slot.changed = func(ctx context.Context, from, to string) ([]string, error) {
		return changedVaultFiles(ctx, o.store, dir, from, to)
	}
	o.slot.loader = loadVault(func() (*vault.Vault, error) {
		// HEAD before the load: a commit that lands while the vault
		// loads moves it, and the first tool call reloads.
		if probe, err := openGit(ctx, dir); err == nil {
			if st, err := probe.State(ctx); err == nil {
				o.slot.noteHead(st.Head)
			}
			probe.Close()
		}
		v, s, err := m.openGitVaultAt(ctx, dir, true)
		if err != nil {
			logger.Error("open vault", "vault", dir, "err", err)
			return nil, err
		}
		o.store = s
		o.stop = notify.watch(v)
		logger.Info("vault loaded", "vault", v.Dir(), "scope", name, "memories", v.Stats().Total)
		if stopLive, err := startLive(ctx, v, logger.With("scope", name)); err != nil {
			logger.Warn("cannot follow changes on disk", "vault", v.Dir(), "err", err)
		} else {
			stopNotify := o.stop
			o.stop = func() { stopLive(); stopNotify() }
		}
		return v, nil
	})
	return o
}

// changedVaultFiles lists the vault-relative paths (both sides of a rename)
// that differ between two commits.
func changedVaultFiles(ctx context.Context, store *gitstore.Store, dir, from, to string) ([]string, error) {
	changes, err := store.DiffTrees(ctx, from, to, dir)
	if err != nil {
		return nil, err
	}
	var rels []string
	for _, c := range changes {
		for _, p := range []string{c.OldPath, c.Path} {
			if p == "" {
				continue
			}
			rel, err := filepath.Rel(dir, filepath.Join(store.Root(), filepath.FromSlash(p)))
			if err != nil || !filepath.IsLocal(rel) {
				// DiffTrees is limited to dir, so this means the two
				// spell the work tree differently (a symlink): let the
				// caller reload instead of missing a file.
				return nil, fmt.Errorf("changed file %s is not under %s", p, dir)
			}
			rels = append(rels, filepath.ToSlash(rel))
		}
	}
	return rels, nil
}
