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
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/mcpserver"
	"github.com/memvault/memvault/cmd/memvault/internal/teamsync"
	"github.com/memvault/memvault/cmd/memvault/internal/view"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

func (m *Main) serveCommand() *cobra.Command {
	var logFile, httpAddr, token, tokensFile, userVault string
	var noUserVault bool
	var recallTimeout, pullInterval, netTimeout time.Duration
	var push bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the vault to AI assistants over MCP (stdio, or HTTP with --http)",
		Long:  mcpserver.ServeHelp,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			m.serving = true
			if recallTimeout <= 0 {
				return usagef("--recall-timeout: %s is not positive", recallTimeout)
			}
			if pullInterval < 0 || push && pullInterval == 0 {
				return usagef("--pull-interval %s, --push %v: the interval is not negative, and --push needs one above 0", pullInterval, push)
			}
			if token == "" {
				token = m.Getenv("MEMVAULT_TOKEN")
			}
			var callers []mcpserver.Caller
			check := mcpserver.CheckHTTPAddr
			if tokensFile != "" {
				var err error
				if callers, err = mcpserver.LoadTokens(tokensFile); err != nil {
					return usageError{err}
				} else if httpAddr == "" {
					return usagef("--tokens is for a team server over HTTP: add --http ADDR")
				}
				check = mcpserver.CheckTeamHTTPAddr
			}
			if httpAddr != "" {
				if err := check(httpAddr, token); err != nil {
					return usageError{err}
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
			} else if pullInterval > 0 && projectDir == "" {
				return usagef("--pull-interval needs the project vault at start: run serve in its repository or give --vault")
			}
			userDir := ""
			if !noUserVault {
				if userDir, err = m.userVaultDir(ctx, userVault, logger); err != nil {
					return err
				}
			}
			var opened servedVaults
			defer opened.close()
			var synced teamsync.Status
			var syncStatus func() *view.SyncStatus
			if pullInterval > 0 {
				syncStatus = synced.Last
			}
			srv := mcpserver.New(mcpserver.Config{Version: m.Version, Logger: logger, Now: m.Now, SyncStatus: syncStatus,
				ProjectDir: projectDir, Cwd: cwd, UserDir: userDir, GitRoot: gitRoot, RecallTimeout: recallTimeout,
				// Off by default (about 0.3 ms a recall); the end-to-end
				// tests switch it on so every answer of the real binary is
				// checked against its declared output schema.
				CheckOutput: m.Getenv("MEMVAULT_CHECK_OUTPUT") == "1",
				Open: func(name, dir string, changed func(vault.Change)) mcpserver.Served {
					return opened.add(m.openServedVault(ctx, name, dir, logger, changed))
				}})
			if pullInterval > 0 {
				s := teamsync.Syncer{NoPush: !push, NetworkTimeout: netTimeout}
				if err := m.syncer(ctx, projectDir, &s); err != nil {
					return err
				}
				defer teamsync.Start(ctx, s.Run, pullInterval, logger.With("sync", projectDir), func(rep teamsync.Report, err error) {
					// The wall clock: it describes the server, not the data.
					synced.Record(rep, err, time.Now())
				})()
			}
			if httpAddr != "" {
				pages, err := opened.pages(m, logger, projectDir)
				if err != nil {
					return err
				}
				return srv.ServeHTTP(ctx, httpAddr, mcpserver.HTTPOptions{Token: token, Callers: callers, TokensFile: tokensFile, Pages: pages, Listening: func(url string) {
					// The address goes to stderr so whoever started the
					// server (and the tests, which bind port 0) can find it.
					fmt.Fprintf(m.Stderr, "memvault: serving MCP at %s\n", url)
				}})
			}
			return srv.ServeStdio(ctx, m.Stdin, m.Stdout)
		},
	}
	cmd.Flags().StringVar(&logFile, "log-file", "", "append logs to this file instead of standard error")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP at this address (e.g. 127.0.0.1:7391) instead of stdio")
	cmd.Flags().StringVar(&token, "token", "", "bearer token every HTTP request must carry (default $MEMVAULT_TOKEN); required beyond loopback")
	cmd.Flags().StringVar(&tokensFile, "tokens", "", "team server: file of one person a line (token name email), mode 600; each caller's writes are committed as them")
	cmd.Flags().StringVar(&userVault, "user-vault", "", "vault of preferences that follow you across projects, in a git repository (default ~/.memvault when it exists)")
	cmd.Flags().BoolVar(&noUserVault, "no-user-vault", false, "serve the project vault only")
	cmd.Flags().DurationVar(&pullInterval, "pull-interval", 0, "sync with the remote at this interval (merge; 0: never)")
	cmd.Flags().BoolVar(&push, "push", false, "with --pull-interval, push after each sync")
	networkTimeoutFlag(cmd, &netTimeout)
	cmd.Flags().DurationVar(&recallTimeout, "recall-timeout", mcpserver.DefaultRecallTimeout, "stop a recall that runs longer than this and say so")
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

// servedVaults are the vaults a serve opened, closed when it ends. The
// project vault may be opened late, from the goroutine that reads the
// client's roots.
type servedVaults struct {
	mu   sync.Mutex
	list []*servedVault
}

func (s *servedVaults) add(v *servedVault) mcpserver.Served {
	s.mu.Lock()
	s.list = append(s.list, v)
	s.mu.Unlock()
	return mcpserver.Served{Vault: v, Git: v}
}

func (s *servedVaults) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.list {
		v.close()
	}
}
