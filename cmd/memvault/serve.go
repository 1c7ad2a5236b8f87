package main

import (
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"
)

// serverVersion is reported in the MCP initialize answer.
const serverVersion = "0.1.0"

// serverInstructions is what an MCP client shows the model about the
// server as a whole; the tool descriptions carry the details.
const serverInstructions = `memvault is this project's shared long-term memory, kept as Markdown in git. ` +
	`Call recall before deciding how something is done here; call remember when a decision, convention or ` +
	`preference is worth keeping for later sessions. Chinese and English both work.`

func (m *Main) serveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault to AI assistants over MCP (stdio)",
		Long: `serve runs an MCP server on standard input and output for Claude Code, Cursor
and other MCP clients. Standard output carries only the protocol; one log
line per tool call goes to standard error. Every write is a git commit
whose Memory-Client trailer names the client.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			v, store, err := m.openGitVault(ctx, true)
			if err != nil {
				return err
			}
			defer store.Close()
			logger := slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
			s := server.NewMCPServer("memvault", serverVersion,
				server.WithToolCapabilities(false),
				server.WithInstructions(serverInstructions),
				server.WithRecovery(),
			)
			tools := &mcpTools{v: v, logger: logger, now: m.Now}
			tools.register(s)
			logger.Info("serving", "vault", v.Dir(), "transport", "stdio")
			stdio := server.NewStdioServer(s)
			if err := stdio.Listen(ctx, m.Stdin, m.Stdout); err != nil && ctx.Err() == nil {
				return fmt.Errorf("serve: %w", err)
			}
			return nil
		},
	}
}
