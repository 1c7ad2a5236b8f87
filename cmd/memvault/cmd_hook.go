package main

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/hook"
	"github.com/memvault/memvault/gitstore"
)

func (m *Main) hookCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Install or run the git pre-commit hook that blocks secrets and conflict markers in .memory/",
		Long:  hook.Help,
	}
	// sub makes a subcommand without arguments that runs fn.
	sub := func(use, short string, fn func(context.Context) error) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return fn(cmd.Context()) }}
	}
	cmd.AddCommand(
		sub("install", "Install the pre-commit hook (keeping any existing one)", m.hookInstall),
		sub("uninstall", "Remove the pre-commit hook and restore the previous one", m.hookUninstall),
		sub("pre-commit", "Scan staged memory files for secrets (run by git)", m.hookPreCommit),
	)
	return cmd
}

// openHookRepo opens the repository holding the vault.
func (m *Main) openHookRepo(ctx context.Context) (*gitstore.Store, string, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, "", err
	}
	store, err := openGit(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil, "", notRepository(dir)
	}
	if err != nil {
		return nil, "", err
	}
	return store, dir, nil
}

func (m *Main) hookInstall(ctx context.Context) error {
	store, _, err := m.openHookRepo(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	vaultDir := ""
	if m.vaultDir != "" {
		if vaultDir, err = filepath.Abs(m.vaultDir); err != nil {
			return err
		}
	}
	return hook.Install(ctx, store, vaultDir, m.Stdout, m.Stderr)
}

func (m *Main) hookUninstall(ctx context.Context) error {
	store, _, err := m.openHookRepo(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	return hook.Uninstall(ctx, store, m.Stdout)
}

func (m *Main) hookPreCommit(ctx context.Context) error {
	store, dir, err := m.openHookRepo(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	return hook.PreCommit(ctx, store, dir, m.Getenv("GIT_INDEX_FILE"), m.Stderr)
}
