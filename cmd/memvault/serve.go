package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// serverVersion is reported in the MCP initialize answer.
const serverVersion = "0.1.0"

// serverInstructions is what an MCP client shows the model about the
// server as a whole; the tool descriptions carry the details.
const serverInstructions = `memvault is this project's shared long-term memory, kept as Markdown in git. ` +
	`Call recall before deciding how something is done here; call remember when a decision, convention or ` +
	`preference is worth keeping for later sessions. Chinese and English both work.`

func (m *Main) serveCommand() *cobra.Command {
	var logFile, httpAddr, token string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault to AI assistants over MCP (stdio, or HTTP with --http)",
		Long: `serve runs an MCP server on standard input and output for Claude Code, Cursor
and other MCP clients. Standard output carries only the protocol; one log
line per tool call goes to standard error (or --log-file). Every write is a
git commit whose Memory-Client trailer names the client (its
clientInfo.name, else "mcp"). The vault is indexed in the background:
initialize is answered at once and the first tool call waits for the index.`,
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

			// Fail at once, with the usual message, when there is no
			// repository: a server that starts and then refuses every
			// call is harder to diagnose.
			dir, err := m.resolveVaultDir()
			if err != nil {
				return err
			}
			probe, err := openGit(ctx, dir)
			if errors.Is(err, gitstore.ErrNotRepository) {
				return notRepository(dir)
			}
			if err != nil {
				return fmt.Errorf("open git repository: %w", err)
			}
			// HEAD before the load: a commit that lands while the vault
			// loads moves it, and the first tool call reloads.
			st, err := probe.State(ctx)
			probe.Close()
			if err != nil {
				return fmt.Errorf("read HEAD: %w", err)
			}

			var store *gitstore.Store
			tools := &mcpTools{logger: logger, seen: st.Head, history: m.history}
			tools.head = func(ctx context.Context) (string, error) {
				st, err := store.State(ctx)
				return st.Head, err
			}
			tools.vault = loadVault(func() (*vault.Vault, error) {
				v, s, err := m.openGitVault(ctx, true)
				if err != nil {
					logger.Error("open vault", "vault", dir, "err", err)
					return nil, err
				}
				store = s
				logger.Info("vault loaded", "vault", v.Dir(), "memories", v.Stats().Total)
				return v, nil
			})
			defer func() {
				<-tools.vault.ready
				if store != nil {
					store.Close()
				}
			}()

			s := server.NewMCPServer("memvault", serverVersion,
				server.WithToolCapabilities(false),
				server.WithResourceCapabilities(false, false),
				server.WithPromptCapabilities(false),
				server.WithInstructions(serverInstructions),
				server.WithRecovery(),
			)
			tools.register(s)
			if httpAddr != "" {
				return m.serveHTTP(ctx, s, tools, httpAddr, token, logger)
			}
			logger.Info("serving", "vault", dir, "transport", "stdio")
			if err := server.NewStdioServer(s).Listen(ctx, m.Stdin, m.Stdout); err != nil && ctx.Err() == nil {
				return fmt.Errorf("serve: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&logFile, "log-file", "", "append logs to this file instead of standard error")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP at this address (e.g. 127.0.0.1:7391) instead of stdio")
	cmd.Flags().StringVar(&token, "token", "", "bearer token every HTTP request must carry (default $MEMVAULT_TOKEN); required beyond loopback")
	return cmd
}
