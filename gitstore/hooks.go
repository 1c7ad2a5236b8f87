package gitstore

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
)

// ChainedHookSuffix names where InstallHook keeps a hook it replaces:
// pre-commit becomes pre-commit.local, which the new hook should run first.
const ChainedHookSuffix = ".local"

// Hook is a git hook script a program installs and removes again,
// recognising its own scripts by Marker.
type Hook struct {
	// Name is the hook's file name: pre-commit, commit-msg, ...
	Name string
	// Marker is a line of Script that no one else's hook holds.
	Marker string
	// Script is the hook's content.
	Script string
}

// HookInstall says what InstallHook did.
type HookInstall struct {
	// Path is the installed hook.
	Path string
	// Chained is where an existing hook of someone else's was moved, ""
	// when there was none.
	Chained string
}

// HooksDir returns the folder git runs this work tree's hooks from:
// core.hooksPath when set (relative to the top of the work tree, ~
// expanded), else the common git dir's hooks/, which linked worktrees
// share. The git CLI answers when it is installed, since only it runs
// hooks and it reads every config source; otherwise the config files
// are read as git would.
func (s *Store) HooksDir(ctx context.Context) (string, error) {
	if git, err := exec.LookPath("git"); err == nil {
		cmd := exec.CommandContext(ctx, git, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
		cmd.Dir = s.root
		if out, err := cmd.Output(); err == nil {
			if dir := strings.TrimSpace(string(out)); dir != "" {
				return dir, nil
			}
		}
	}
	return s.configHooksDir()
}

// configHooksDir is HooksDir from the config files, without the git CLI.
func (s *Store) configHooksDir() (string, error) {
	cfg, err := loadRepoConfig(s.commonDir, s.gitDir)
	if err != nil {
		return "", err
	}
	if user, err := loadUserConfig(s.gitDir); err == nil {
		cfg = &gitConfig{files: append(user.files, cfg.files...)}
	}
	if p := cfg.get("core", "", "hookspath"); p != "" {
		p = expandHome(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.root, p)
		}
		return p, nil
	}
	return filepath.Join(s.commonDir, "hooks"), nil
}

// InstallHook writes h into the hooks folder (see HooksDir), atomically
// and executable. A hook of the same name that is not h's (no Marker) is
// kept as Name+ChainedHookSuffix, which h's script should run; installing
// again only rewrites h. It returns an error wrapping ErrHookTaken when
// both names hold someone else's hooks; Path is then set.
func (s *Store) InstallHook(ctx context.Context, h Hook) (HookInstall, error) {
	dir, err := s.HooksDir(ctx)
	if err != nil {
		return HookInstall{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return HookInstall{}, fmt.Errorf("create hooks folder: %w", err)
	}
	out := HookInstall{Path: filepath.Join(dir, h.Name)}
	ours, err := hasMarker(out.Path, h.Marker)
	if err != nil {
		return out, err
	}
	if _, err := os.Lstat(out.Path); err == nil && !ours {
		chained := out.Path + ChainedHookSuffix
		if _, err := os.Lstat(chained); err == nil {
			return out, fmt.Errorf("%w: %s is someone else's hook and %s is taken", ErrHookTaken, out.Path, chained)
		}
		if err := os.Rename(out.Path, chained); err != nil {
			return HookInstall{}, fmt.Errorf("keep the existing hook: %w", err)
		}
		out.Chained = chained
	}
	return out, writeExecutable(out.Path, h.Script)
}

// UninstallHook removes the hook called name if it holds marker, and puts
// back the hook InstallHook had kept aside. It returns the removed hook's
// path and whether a previous hook was restored, or an error wrapping
// ErrNotOurHook when the hook is someone else's or missing.
func (s *Store) UninstallHook(ctx context.Context, name, marker string) (path string, restored bool, err error) {
	dir, err := s.HooksDir(ctx)
	if err != nil {
		return "", false, err
	}
	path = filepath.Join(dir, name)
	ours, err := hasMarker(path, marker)
	if err != nil {
		return path, false, err
	}
	if !ours {
		return path, false, fmt.Errorf("%w: %s", ErrNotOurHook, path)
	}
	if err := os.Remove(path); err != nil {
		return path, false, fmt.Errorf("remove hook: %w", err)
	}
	chained := path + ChainedHookSuffix
	if _, err := os.Lstat(chained); err != nil {
		return path, false, nil
	}
	if err := os.Rename(chained, path); err != nil {
		return path, false, fmt.Errorf("restore the previous hook: %w", err)
	}
	return path, true, nil
}

// hasMarker reports whether the file at path exists and holds marker.
func hasMarker(path, marker string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return bytes.Contains(data, []byte(marker)), nil
}

// writeExecutable replaces path with an executable file, atomically.
func writeExecutable(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write hook: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(content)
	if err == nil {
		err = tmp.Chmod(0o755)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write hook: %w", err)
	}
	return nil
}
