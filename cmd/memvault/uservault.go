package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/memvault/memvault/gitstore"
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
