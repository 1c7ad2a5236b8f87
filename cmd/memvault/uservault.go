package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// userVaultName is the user vault's folder under the home directory.
const userVaultName = ".memvault"

// userVaultDir picks the user vault: --user-vault DIR when given (it must
// be inside a git repository), else ~/.memvault when it exists and is
// one, else none ("").
func (m *Main) userVaultDir(ctx context.Context, flag string, logger *slog.Logger) (string, error) {
	if flag != "" {
		dir, err := filepath.Abs(flag)
		if err != nil {
			return "", usagef("--user-vault: %v", err)
		}
		if err := checkGit(ctx, dir); err != nil {
			return "", usagef("--user-vault %s: %v", dir, err)
		}
		return dir, nil
	}
	home := m.Getenv("HOME")
	if home == "" {
		return "", nil
	}
	dir := filepath.Join(home, userVaultName)
	if !exists(dir) {
		return "", nil
	}
	if err := checkGit(ctx, dir); err != nil {
		// A broken default must not keep the project vault from being
		// served; say why it is left out.
		logger.Warn("user vault left out", "vault", dir, "err", err)
		return "", nil
	}
	return dir, nil
}

// checkGit says whether dir is (or would be) inside a git repository.
func checkGit(ctx context.Context, dir string) error {
	s, err := openGit(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return fmt.Errorf("not inside a git repository; run `git init %s` first", dir)
	}
	if err != nil {
		return fmt.Errorf("open git repository: %w", err)
	}
	return s.Close()
}

// forVault returns a copy of m that works on the vault at dir, its
// messages for people logged through logger instead of printed: the
// server reuses the CLI's git-aware code (history, recall --as-of) for
// each of its vaults this way.
func (m *Main) forVault(dir string, logger *slog.Logger, name string) *Main {
	c := *m
	c.vaultDir = dir
	c.Stderr = logLines{logger: logger, attrs: []any{"vault", name}}
	return &c
}

// asOfVault reads the vault as recorded at the instant at, as the CLI's
// recall --as-of does.
func (m *Main) asOfVault(ctx context.Context, at time.Time) (*vault.Vault, error) {
	return m.recallVault(ctx, "", at)
}

// logLines logs each line written to it, without the CLI's prefix.
type logLines struct {
	logger *slog.Logger
	attrs  []any
}

func (w logLines) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		if line = strings.TrimSpace(strings.TrimPrefix(line, "memvault: ")); line != "" {
			w.logger.Info(line, w.attrs...)
		}
	}
	return len(p), nil
}
