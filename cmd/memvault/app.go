package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/cmd/memvault/internal/memlimit"
	"github.com/memvault/memvault/cmd/memvault/internal/termsafe"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

// Main holds the process's streams and settings; commands read everything
// from it so tests can run them in-process.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Now is the clock; tests replace it.
	Now func() time.Time
	// Getenv reads the environment; tests replace it.
	Getenv func(string) string
	// Version is what --version prints and the MCP server reports as
	// serverInfo.version; NewMain reads it from the build.
	Version string
	// OneShot, when set, is called by a command that loads a vault,
	// answers once and exits (recall): main points it at memlimit.OneShot;
	// tests running commands in-process leave it nil. What it returns is
	// the vault's Options.OnSlowLoad.
	OneShot  func() (restore func())
	slowLoad func()

	vaultDir string
	// allowDetached is --allow-detached: writes may commit on a detached
	// HEAD (see gitCommitter).
	allowDetached bool
	logger        *slog.Logger
}

// NewMain returns a Main wired to the given streams and the real clock.
func NewMain(stdin io.Reader, stdout, stderr io.Writer) *Main {
	return &Main{Stdin: stdin, Stdout: stdout, Stderr: stderr, Now: time.Now, Getenv: os.Getenv, Version: currentVersion()}
}

// Run executes the command line args and returns the exit status.
func (m *Main) Run(ctx context.Context, args []string) int {
	// What reaches stderr is for people: memory text in it (a title in an
	// error, an author's name) must not drive their terminal.
	if _, ok := m.Stderr.(*termsafe.Writer); !ok {
		m.Stderr = termsafe.New(m.Stderr)
	}
	m.logger = slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	root := m.rootCommand()
	root.SetArgs(args)
	root.SetIn(m.Stdin)
	root.SetOut(m.Stdout)
	root.SetErr(m.Stderr)
	err := root.ExecuteContext(ctx)
	if err != nil && strings.HasPrefix(err.Error(), "unknown command") {
		err = usageError{err}
	}
	if err != nil {
		fmt.Fprintf(m.Stderr, "memvault: %v\n", err)
	}
	return exitCode(err)
}

func (m *Main) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "memvault",
		Short: "Long-term memory for AI coding assistants, kept as Markdown in git",
		Long: `memvault keeps what AI coding assistants learn about a project (decisions,
conventions, preferences, work in progress) as Markdown files under .memory/
in the project's git repository, and recalls them by meaning, in Chinese or
English, with time and layer awareness.`,
		Version:       m.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if forPeople(cmd) {
				if _, ok := m.Stdout.(*termsafe.Writer); !ok {
					m.Stdout = termsafe.New(m.Stdout)
				}
			}
			return nil
		},
	}
	root.PersistentFlags().StringVar(&m.vaultDir, "vault", "", "vault folder (default: .memory at the enclosing git root, else ./.memory)")
	root.PersistentFlags().BoolVar(&m.allowDetached, "allow-detached", false,
		"let writes (and serve's writes) commit on a detached HEAD, where the commit is on no branch; refused by default")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		m.initCommand(),
		m.addCommand(),
		m.recallCommand(),
		m.listCommand(),
		m.showCommand(),
		m.lintCommand(),
		m.statsCommand(),
		m.evalCommand(),
		m.updateCommand(),
		m.forgetCommand(),
		m.confirmCommand(),
		m.reviewCommand(),
		m.uiCommand(),
		m.historyCommand(),
		m.whyCommand(),
		m.restoreCommand(),
		m.diffCommand(),
		m.digestCommand(),
		m.doctorCommand(),
		m.sampleHistoryCommand(),
		m.serveCommand(),
		m.exportCommand(),
		m.importCommand(),
		m.demoCommand(),
		m.hookCommand(),
		m.mergeDriverCommand(),
		m.resolveCommand(),
		m.syncCommand(),
	)
	markArgErrorsAsUsage(root)
	return root
}

// forPeople reports whether cmd prints text for people on stdout, which
// termsafe then filters: not JSON (--json, the hooks' output, serve's
// JSON-RPC, export's files) and not the merge driver's.
func forPeople(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "serve", "export", "merge-driver", "hook":
			return false
		}
	}
	if f := cmd.Flags().Lookup("json"); f != nil && f.Value.String() == "true" {
		return false
	}
	return true
}

// markArgErrorsAsUsage makes every command's argument check report a usage
// error (exit 1) rather than an internal one.
func markArgErrorsAsUsage(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				var u usageError
				if errors.As(err, &u) {
					return err
				}
				return usageError{fmt.Errorf("%s: %w; see 'memvault %s --help'", cmd.Name(), err, cmd.Name())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markArgErrorsAsUsage(sub)
	}
}

// resolveVaultDir finds the vault: --vault, else .memory at the git root
// enclosing the working directory, else ./.memory.
func (m *Main) resolveVaultDir() (string, error) {
	if m.vaultDir != "" {
		return filepath.Abs(m.vaultDir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if root, ok := gitRoot(wd); ok {
		return filepath.Join(root, ".memory"), nil
	}
	return filepath.Join(wd, ".memory"), nil
}

// gitRoot returns the top of the work tree that holds dir, as
// gitstore.Open would find it.
func gitRoot(dir string) (string, bool) {
	loc, err := gitstore.Find(dir)
	if err != nil {
		return "", false
	}
	return loc.Root, true
}

// openVault loads the vault for a command.
func (m *Main) openVault(ctx context.Context) (*vault.Vault, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, err
	}
	return m.openVaultAt(ctx, dir)
}

// openExistingVault is openVault for the commands that read a vault and
// would otherwise answer as if it were empty: a folder without one is a
// mistake to point out, not an empty answer.
func (m *Main) openExistingVault(ctx context.Context) (*vault.Vault, error) {
	dir, err := m.resolveVaultDir()
	if err != nil {
		return nil, err
	}
	if !exists(dir) {
		return nil, usagef("no vault at %s: run memvault init", dir)
	}
	return m.openVaultAt(ctx, dir)
}

// openVaultAt loads the vault at dir for a command.
func (m *Main) openVaultAt(ctx context.Context, dir string) (*vault.Vault, error) {
	v, err := vault.Open(ctx, dir, vault.Options{Now: m.Now, Client: "cli", Tracker: gitrepo.Tracker{Dir: dir}, Committed: gitrepo.HeadFiles{Dir: dir}, IndexCache: true, OnSlowLoad: m.slowLoad})
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", dir, err)
	}
	memlimit.Fit()
	return v, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
