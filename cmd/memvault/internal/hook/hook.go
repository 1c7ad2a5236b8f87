package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault/fault"
	"github.com/memvault/memvault/vault/precommit"
	"github.com/memvault/memvault/vault/secret"
)

// Marker identifies a pre-commit hook written by memvault, so that
// install can rewrite it and uninstall can remove it without touching
// anyone else's hook.
const Marker = "# memvault-pre-commit-hook"

// Name is the hook memvault installs. An existing one is kept with
// gitstore.ChainedHookSuffix; the memvault hook runs it first and stops
// the commit if it fails.
const Name = "pre-commit"

// ErrRefused marks what the user must fix: a commit the hook blocks, a
// hook that is not memvault's.
var ErrRefused = fault.New(fault.Refused, "refused")

// refusal is an ErrRefused whose message is only what to fix.
type refusal struct{ msg string }

func (r refusal) Error() string        { return r.msg }
func (r refusal) Is(target error) bool { return target == ErrRefused }

// ErrorKind says the commit was refused.
func (r refusal) ErrorKind() string { return string(fault.Refused) }

func refused(format string, args ...any) error { return refusal{fmt.Sprintf(format, args...)} }

// Script is the pre-commit hook: the chained hook first, then memvault.
func Script(bin, vaultFlag string) string {
	chained := Name + gitstore.ChainedHookSuffix
	return "#!/bin/sh\n" + Marker + "\n" +
		"# Installed by `memvault hook install`; `memvault hook uninstall` removes it\n" +
		"# and restores " + chained + " (the previous hook, run first).\n" +
		"here=$(dirname \"$0\")\n" +
		"if [ -x \"$here/" + chained + "\" ]; then\n" +
		"\t\"$here/" + chained + "\" \"$@\" || exit $?\n" +
		"fi\n" +
		"exec " + quote(bin) + vaultFlag + " hook pre-commit\n"
}

func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Install installs the hook running this binary, with --vault vaultDir
// when vaultDir is not "" (an absolute path).
func Install(ctx context.Context, store *gitstore.Store, vaultDir string, stdout, stderr io.Writer) error {
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the memvault binary: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(bin); err == nil {
		bin = resolved
	}
	if strings.Contains(bin, "go-build") {
		// `go run` builds into a temporary folder that is deleted on exit.
		fmt.Fprintf(stderr, "warning: %s looks like a temporary `go run` binary; install memvault and run hook install again\n", bin)
	}
	vaultFlag := ""
	if vaultDir != "" {
		vaultFlag = " --vault " + quote(vaultDir)
	}
	res, err := store.InstallHook(ctx, gitstore.Hook{Name: Name, Marker: Marker, Script: Script(bin, vaultFlag)})
	if errors.Is(err, gitstore.ErrHookTaken) {
		hook := filepath.Join(filepath.Dir(res.Path), Name)
		return refused("%s exists and is not memvault's, and %s is taken: merge them by hand, then run hook install again", hook, hook+gitstore.ChainedHookSuffix)
	}
	if err != nil {
		return err
	}
	if res.Chained != "" {
		fmt.Fprintf(stdout, "kept the existing pre-commit hook as %s; it runs first\n", res.Chained)
	}
	fmt.Fprintf(stdout, "installed %s: commits of .memory/ files holding secrets or conflict markers are blocked\n", res.Path)
	return nil
}

// Uninstall removes memvault's hook and restores the previous one.
func Uninstall(ctx context.Context, store *gitstore.Store, stdout io.Writer) error {
	hook, restored, err := store.UninstallHook(ctx, Name, Marker)
	if errors.Is(err, gitstore.ErrNotOurHook) {
		return refused("%s is not memvault's hook; nothing to uninstall", hook)
	}
	if err != nil {
		return err
	}
	if restored {
		fmt.Fprintf(stdout, "removed the memvault hook; restored the previous pre-commit hook\n")
		return nil
	}
	fmt.Fprintf(stdout, "removed the memvault hook %s\n", hook)
	return nil
}

// stagedIndex is what a commit is about to record under the vault: the
// index git hands the hook.
type stagedIndex struct {
	store      *gitstore.Store
	index, dir string
}

// WalkStaged implements precommit.Staged.
func (s stagedIndex) WalkStaged(ctx context.Context, fn func(path string, data []byte) error) error {
	return s.store.WalkStagedChanges(ctx, s.index, s.dir, fn)
}

// PreCommit scans what the commit would change: the staged blobs under
// the vault at dir that differ from HEAD's, read from index (git's
// $GIT_INDEX_FILE: commit -a and commit <paths> use a temporary index)
// when it is set, else the index. Findings go to stderr.
func PreCommit(ctx context.Context, store *gitstore.Store, dir, index string, stderr io.Writer) error {
	if index != "" && !filepath.IsAbs(index) {
		// git runs hooks at the top of the work tree; a relative path is
		// relative to it.
		index = filepath.Join(store.Root(), index)
	}
	found, err := precommit.StagedSecrets(ctx, stagedIndex{store: store, index: index, dir: dir})
	if err != nil {
		return fmt.Errorf("scan staged memory files: %w", err)
	}
	files := map[string]bool{}
	for _, f := range found {
		files[f.Path] = true
		fmt.Fprintf(stderr, "%s:%d:%d: %s (value not shown)\n", f.Path, f.Line, f.Column, f.Rule)
	}
	if len(found) > 0 {
		return refused("commit blocked: %d secret(s) in %d staged memory file(s); remove them and stage again, "+
			"or mark a known false positive with %s on its line (see docs/secrets.md)", len(found), len(files), secret.AllowMarker)
	}
	marked, err := precommit.StagedConflictMarkers(ctx, stagedIndex{store: store, index: index, dir: dir})
	if err != nil {
		return fmt.Errorf("scan staged memory files: %w", err)
	}
	for _, f := range marked {
		fmt.Fprintf(stderr, "%s:%d: git conflict marker\n", f.Path, f.Line)
	}
	if len(marked) > 0 {
		return refused("commit blocked: %d staged memory file(s) hold git conflict markers; resolve them (see memvault stats) and stage again", len(marked))
	}
	return nil
}
