package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
	"github.com/memvault/memvault/vault/secret"
)

// hookMarker identifies a pre-commit hook written by memvault, so that
// install can rewrite it and uninstall can remove it without touching
// anyone else's hook.
const hookMarker = "# memvault-pre-commit-hook"

// hookName is the hook memvault installs. An existing one is kept with
// gitstore.ChainedHookSuffix; the memvault hook runs it first and stops
// the commit if it fails.
const hookName = "pre-commit"

func (m *Main) hookCommand() *cobra.Command {
	hook := &cobra.Command{
		Use:   "hook",
		Short: "Install or run the git pre-commit hook that blocks secrets and conflict markers in .memory/",
		Long: `hook install writes a git pre-commit hook that runs "memvault hook pre-commit"
(this binary, by absolute path). It honours core.hooksPath and linked
worktrees. An existing pre-commit hook is kept as pre-commit.local and runs
first; if it fails, the commit stops. Installing again only refreshes the
binary path. hook uninstall removes the memvault hook and puts the previous
one back.

hook pre-commit scans the .memory/**/*.md blobs the commit adds or changes
(the index against HEAD, not the work tree) for secrets and git conflict
markers, and fails with path:line:column and the rule for each secret,
path:line for each marker, never printing the secret. A file staged as HEAD
has it is not scanned: a secret already committed does not block an
unrelated commit (memvault lint and doctor report it). Bypass once with git
commit --no-verify.`,
	}
	// sub makes a subcommand without arguments that runs fn.
	sub := func(use, short string, fn func(context.Context) error) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return fn(cmd.Context()) }}
	}
	hook.AddCommand(
		sub("install", "Install the pre-commit hook (keeping any existing one)", m.hookInstall),
		sub("uninstall", "Remove the pre-commit hook and restore the previous one", m.hookUninstall),
		sub("pre-commit", "Scan staged memory files for secrets (run by git)", m.hookPreCommit),
	)
	return hook
}

// hookScript is the pre-commit hook: the chained hook first, then memvault.
func hookScript(bin, vaultFlag string) string {
	chained := hookName + gitstore.ChainedHookSuffix
	return "#!/bin/sh\n" + hookMarker + "\n" +
		"# Installed by `memvault hook install`; `memvault hook uninstall` removes it\n" +
		"# and restores " + chained + " (the previous hook, run first).\n" +
		"here=$(dirname \"$0\")\n" +
		"if [ -x \"$here/" + chained + "\" ]; then\n" +
		"\t\"$here/" + chained + "\" \"$@\" || exit $?\n" +
		"fi\n" +
		"exec " + hookQuote(bin) + vaultFlag + " hook pre-commit\n"
}

func hookQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the memvault binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		bin = resolved
	}
	if strings.Contains(bin, "go-build") {
		// `go run` builds into a temporary folder that is deleted on exit.
		fmt.Fprintf(m.Stderr, "warning: %s looks like a temporary `go run` binary; install memvault and run hook install again\n", bin)
	}
	vaultFlag := ""
	if m.vaultDir != "" {
		abs, err := filepath.Abs(m.vaultDir)
		if err != nil {
			return err
		}
		vaultFlag = " --vault " + hookQuote(abs)
	}
	res, err := store.InstallHook(ctx, gitstore.Hook{Name: hookName, Marker: hookMarker, Script: hookScript(bin, vaultFlag)})
	if errors.Is(err, gitstore.ErrHookTaken) {
		hook := filepath.Join(filepath.Dir(res.Path), hookName)
		return usagef("%s exists and is not memvault's, and %s is taken: merge them by hand, then run hook install again", hook, hook+gitstore.ChainedHookSuffix)
	}
	if err != nil {
		return err
	}
	if res.Chained != "" {
		fmt.Fprintf(m.Stdout, "kept the existing pre-commit hook as %s; it runs first\n", res.Chained)
	}
	fmt.Fprintf(m.Stdout, "installed %s: commits of .memory/ files holding secrets or conflict markers are blocked\n", res.Path)
	return nil
}

func (m *Main) hookUninstall(ctx context.Context) error {
	store, _, err := m.openHookRepo(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	hook, restored, err := store.UninstallHook(ctx, hookName, hookMarker)
	if errors.Is(err, gitstore.ErrNotOurHook) {
		return usagef("%s is not memvault's hook; nothing to uninstall", hook)
	}
	if err != nil {
		return err
	}
	if restored {
		fmt.Fprintf(m.Stdout, "removed the memvault hook; restored the previous pre-commit hook\n")
		return nil
	}
	fmt.Fprintf(m.Stdout, "removed the memvault hook %s\n", hook)
	return nil
}

// stagedIndex is what a commit is about to record under the vault: the
// index git hands the hook.
type stagedIndex struct {
	store      *gitstore.Store
	index, dir string
}

// WalkStaged implements vault.Staged.
func (s stagedIndex) WalkStaged(ctx context.Context, fn func(path string, data []byte) error) error {
	return s.store.WalkStagedChanges(ctx, s.index, s.dir, fn)
}

// hookPreCommit scans what the commit would change: the staged blobs
// under the vault that differ from HEAD's, read from $GIT_INDEX_FILE when
// git set it (commit -a and commit <paths> use a temporary index), else
// the index.
func (m *Main) hookPreCommit(ctx context.Context) error {
	store, dir, err := m.openHookRepo(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	index := m.Getenv("GIT_INDEX_FILE")
	if index != "" && !filepath.IsAbs(index) {
		// git runs hooks at the top of the work tree; a relative path is
		// relative to it.
		index = filepath.Join(store.Root(), index)
	}
	found, err := vault.StagedSecrets(ctx, stagedIndex{store: store, index: index, dir: dir})
	if err != nil {
		return fmt.Errorf("scan staged memory files: %w", err)
	}
	files := map[string]bool{}
	for _, f := range found {
		files[f.Path] = true
		fmt.Fprintf(m.Stderr, "%s:%d:%d: %s (value not shown)\n", f.Path, f.Line, f.Column, f.Rule)
	}
	if len(found) > 0 {
		return usagef("commit blocked: %d secret(s) in %d staged memory file(s); remove them and stage again, "+
			"or mark a known false positive with %s on its line (see docs/secrets.md)", len(found), len(files), secret.AllowMarker)
	}
	marked, err := vault.StagedConflictMarkers(ctx, stagedIndex{store: store, index: index, dir: dir})
	if err != nil {
		return fmt.Errorf("scan staged memory files: %w", err)
	}
	for _, f := range marked {
		fmt.Fprintf(m.Stderr, "%s:%d: git conflict marker\n", f.Path, f.Line)
	}
	if len(marked) > 0 {
		return usagef("commit blocked: %d staged memory file(s) hold git conflict markers; resolve them (see memvault stats) and stage again", len(marked))
	}
	return nil
}
