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
		Short: "Git's pre-commit hook (secrets, conflict markers) and Claude Code's assistant hooks (session-start, user-prompt-submit, stop)",
		Long:  hook.Help + assistantHookHelp,
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
	cmd.AddCommand(m.assistantHookCommands()...)
	return cmd
}

const assistantHookHelp = `

session-start, user-prompt-submit and stop are Claude Code's hooks (memvault
init --client claude-code writes them into .claude/settings.json; the
plugin brings them too): they read Claude Code's event on stdin, print what
to add to the model's context, and always exit 0 (docs/assistants.md).`

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
