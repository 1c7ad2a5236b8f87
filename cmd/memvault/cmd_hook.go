package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/secret"
)

// hookMarker identifies a pre-commit hook written by memvault, so that
// install can rewrite it and uninstall can remove it without touching
// anyone else's hook.
const hookMarker = "# memvault-pre-commit-hook"

// chainedHookName is where install moves an existing pre-commit hook; the
// memvault hook runs it first and stops the commit if it fails.
const chainedHookName = "pre-commit.local"

func (m *Main) hookCommand() *cobra.Command {
	hook := &cobra.Command{
		Use:   "hook",
		Short: "Install or run the git pre-commit hook that blocks secrets in .memory/",
		Long: `hook install writes a git pre-commit hook that runs "memvault hook pre-commit"
(this binary, by absolute path). It honours core.hooksPath and linked
worktrees. An existing pre-commit hook is kept as pre-commit.local and runs
first; if it fails, the commit stops. Installing again only refreshes the
binary path. hook uninstall removes the memvault hook and puts the previous
one back.

hook pre-commit scans the staged .memory/**/*.md blobs (the index, not the
work tree) for secrets and fails with path:line:column and the rule for each,
never printing the secret. Bypass once with git commit --no-verify.`,
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

// hooksDir returns the folder git runs hooks from: core.hooksPath when set
// (asked of git itself, which also reads global config and includes), else
// the common git dir's hooks/ (shared by linked worktrees).
func (m *Main) hooksDir(ctx context.Context, store *gitstore.Store) (string, error) {
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.CommandContext(ctx, git, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
		cmd.Dir = store.Root()
		if out, err := cmd.Output(); err == nil {
			if dir := strings.TrimSpace(string(out)); dir != "" {
				return dir, nil
			}
		}
	}
	// Without the git CLI no hook would run anyway; this fallback still
	// lands where git would look, for the common cases.
	common := store.CommonDir()
	if p := configHooksPath(filepath.Join(common, "config")); p != "" {
		if strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(store.Root(), p)
		}
		return p, nil
	}
	return filepath.Join(common, "hooks"), nil
}

// configHooksPath reads core.hooksPath from one git config file, simply:
// the fallback for machines without the git CLI.
func configHooksPath(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	inCore, val := false, ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inCore = strings.EqualFold(strings.Trim(line, "[] \t"), "core")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if inCore && ok && strings.EqualFold(strings.TrimSpace(k), "hooksPath") {
			val = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return val
}

// hookScript is the pre-commit hook: the chained hook first, then memvault.
func hookScript(bin, vaultFlag string) string {
	return "#!/bin/sh\n" + hookMarker + "\n" +
		"# Installed by `memvault hook install`; `memvault hook uninstall` removes it\n" +
		"# and restores " + chainedHookName + " (the previous hook, run first).\n" +
		"here=$(dirname \"$0\")\n" +
		"if [ -x \"$here/" + chainedHookName + "\" ]; then\n" +
		"\t\"$here/" + chainedHookName + "\" \"$@\" || exit $?\n" +
		"fi\n" +
		"exec " + hookQuote(bin) + vaultFlag + " hook pre-commit\n"
}

func hookQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isOurHook(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bytes.Contains(data, []byte(hookMarker)), nil
}

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

// repoHooksDir returns the hooks folder of the repository holding the
// vault (see hooksDir).
func (m *Main) repoHooksDir(ctx context.Context) (string, error) {
	store, _, err := m.openHookRepo(ctx)
	if err != nil {
		return "", err
	}
	defer store.Close()
	return m.hooksDir(ctx, store)
}

func (m *Main) hookInstall(ctx context.Context) error {
	dir, err := m.repoHooksDir(ctx)
	if err != nil {
		return err
	}
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create hooks folder: %w", err)
	}
	hook := filepath.Join(dir, "pre-commit")
	ours, err := isOurHook(hook)
	if err != nil {
		return fmt.Errorf("read %s: %w", hook, err)
	}
	chained := filepath.Join(dir, chainedHookName)
	if !ours && exists(hook) {
		if exists(chained) {
			return usagef("%s exists and is not memvault's, and %s is taken: merge them by hand, then run hook install again", hook, chained)
		}
		if err := os.Rename(hook, chained); err != nil {
			return fmt.Errorf("keep the existing hook: %w", err)
		}
		fmt.Fprintf(m.Stdout, "kept the existing pre-commit hook as %s; it runs first\n", chained)
	}
	if err := writeExecutable(hook, hookScript(bin, vaultFlag)); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "installed %s: commits of .memory/ files holding secrets are blocked\n", hook)
	return nil
}

// writeExecutable replaces path with an executable file, atomically.
func writeExecutable(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pre-commit-*")
	if err != nil {
		return fmt.Errorf("write hook: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return fmt.Errorf("write hook: %w", err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return fmt.Errorf("write hook: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write hook: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write hook: %w", err)
	}
	return nil
}

func (m *Main) hookUninstall(ctx context.Context) error {
	dir, err := m.repoHooksDir(ctx)
	if err != nil {
		return err
	}
	hook := filepath.Join(dir, "pre-commit")
	ours, err := isOurHook(hook)
	if err != nil {
		return fmt.Errorf("read %s: %w", hook, err)
	}
	if !ours {
		return usagef("%s is not memvault's hook; nothing to uninstall", hook)
	}
	if err := os.Remove(hook); err != nil {
		return fmt.Errorf("remove hook: %w", err)
	}
	chained := filepath.Join(dir, chainedHookName)
	if exists(chained) {
		if err := os.Rename(chained, hook); err != nil {
			return fmt.Errorf("restore the previous hook: %w", err)
		}
		fmt.Fprintf(m.Stdout, "removed the memvault hook; restored the previous pre-commit hook\n")
		return nil
	}
	fmt.Fprintf(m.Stdout, "removed the memvault hook %s\n", hook)
	return nil
}

// hookPreCommit scans what the commit would record: the staged blobs under
// the vault, read from $GIT_INDEX_FILE when git set it (commit -a and
// commit <paths> use a temporary index), else the index.
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
	var hits, files int
	err = store.WalkStaged(ctx, index, dir, func(path string, data []byte) error {
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		found := secret.Scan(data)
		if len(found) > 0 {
			files++
		}
		for _, f := range found {
			hits++
			fmt.Fprintf(m.Stderr, "%s:%d:%d: %s (value not shown)\n", path, f.Line, f.Column, f.Rule)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan staged memory files: %w", err)
	}
	if hits > 0 {
		return usagef("commit blocked: %d secret(s) in %d staged memory file(s); remove them and stage again, "+
			"or mark a known false positive with %s on its line (see docs/secrets.md)", hits, files, secret.AllowMarker)
	}
	return nil
}
