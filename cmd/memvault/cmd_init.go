package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
	"github.com/memvault/memvault/cmd/memvault/internal/clitext"
	"github.com/memvault/memvault/cmd/memvault/internal/gitrepo"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

func (m *Main) initCommand() *cobra.Command {
	var withGit bool
	var clientName, command string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the vault folders, README, .gitignore and .gitattributes; --client sets up Claude Code or Cursor",
		Long: `init creates .memory/ (or --vault) with one folder per layer, a README.md
explaining the format to people, a .gitignore that keeps transient/ (L1
session scratch) out of git, and a .gitattributes that sends memory files to
memvault's merge driver, which it registers in this clone's git config.
Existing files are left as they are.

With --client, init also sets the assistant up in the project root (the git
root holding the vault), in files meant to be committed:
  claude-code  .mcp.json: "memvault serve" as the project's MCP server;
               .claude/settings.json: the hooks SessionStart, UserPromptSubmit
               and Stop, running "memvault hook session-start" and so on;
               CLAUDE.md: a short section on when to recall and remember
  cursor       .cursor/mcp.json: the MCP server;
               .cursor/rules/memvault.mdc: the same section as a rule Cursor
               applies to every request
and, for either, the same section in AGENTS.md where the project has one.
The server and the hooks run this binary by its absolute path (or --command).

Every other key, server, hook and line of those files is kept as it is; a
file that is not valid JSON, or whose hooks are not an object, is refused
before any of them is written; memvault's own entries are updated in place;
and running it again changes nothing. The section sits between the markers
<!-- memvault:begin --> and <!-- memvault:end -->, and is replaced when
init runs again: write your own text outside them. A memvault.mdc without
the markers is taken to be your own rule and left alone.`,
		Example: `  memvault init --git
  memvault init --client claude-code
  memvault init --client cursor --command memvault   # rely on PATH, e.g. for a committed file`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := m.resolveVaultDir()
			if err != nil {
				return err
			}
			// Check the flags, and that this binary can be registered,
			// before creating anything.
			var client clientconfig.Client
			if clientName != "" {
				if client, err = clientconfig.Find(clientName); err != nil {
					return usageError{fmt.Errorf("--client: %w", err)}
				}
				if command, err = m.serverCommand(client, command); err != nil {
					return err
				}
			}
			if withGit {
				if store, err := openGit(cmd.Context(), dir); err == nil {
					store.Close()
				} else if errors.Is(err, gitstore.ErrNotRepository) {
					root := filepath.Dir(dir)
					if err := os.MkdirAll(root, 0o755); err != nil {
						return err
					}
					store, err := gitstore.Init(cmd.Context(), root)
					if err != nil {
						return fmt.Errorf("git init %s: %w", root, err)
					}
					store.Close()
					fmt.Fprintf(m.Stdout, "initialised a git repository in %s\n", root)
				} else {
					return err
				}
			}
			created, err := vault.Init(dir)
			if err != nil {
				return err
			}
			for _, p := range created {
				fmt.Fprintf(m.Stdout, "created %s\n", p)
			}
			if len(created) == 0 {
				fmt.Fprintf(m.Stdout, "vault %s already initialised\n", dir)
			}
			if err := m.initMergeDriver(cmd.Context(), dir); err != nil {
				return err
			}
			steps := clitext.InitSteps{Vault: dir, VaultChanged: len(created) > 0, Client: clientName, Command: command}
			steps.Root, steps.InGit = gitRoot(filepath.Dir(dir))
			if !steps.InGit {
				steps.Root = filepath.Dir(dir)
			}
			if clientName != "" {
				if err := m.initClient(client, dir, steps.Root, command, &steps); err != nil {
					return err
				}
			}
			wd, _ := os.Getwd()
			steps.Print(m.Stdout, wd)
			return nil
		},
	}
	cmd.Flags().BoolVar(&withGit, "git", false, "also run git init in the vault's parent folder when it is not in a git repository")
	cmd.Flags().StringVar(&clientName, "client", "", "also set up this client: claude-code (.mcp.json, hooks in .claude/settings.json, CLAUDE.md) or cursor (.cursor/mcp.json, .cursor/rules/memvault.mdc)")
	cmd.Flags().StringVar(&command, "command", "", "with --client: the memvault command the server and the hooks run (default: this binary's absolute path)")
	return cmd
}

// initMergeDriver registers the merge driver in the clone holding the
// vault at dir, unless it is there (or there is no repository).
func (m *Main) initMergeDriver(ctx context.Context, dir string) error {
	g, err := openRepoAt(ctx, dir)
	if errors.Is(err, gitstore.ErrNotRepository) {
		return nil
	} else if err != nil {
		return err
	}
	defer g.Close()
	if did, err := (gitrepo.MergeDriver{Repo: g.Repo, Binary: gitrepo.DriverBinary(m.Getenv)}).Ensure(ctx); did {
		fmt.Fprintf(m.Stdout, "registered the memvault merge driver in this clone's git config (memory files merge field by field)\n")
	} else if err != nil {
		return err
	}
	return nil
}

// serverCommand is the command the client configuration runs: command
// when the user gave one, else this binary's absolute path, refused when
// it is a temporary build of go run.
func (m *Main) serverCommand(client clientconfig.Client, command string) (string, error) {
	if command != "" {
		return command, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary's path: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", fmt.Errorf("find this binary's path: %w", err)
	}
	if clientconfig.TemporaryBuild(exe, m.Getenv) {
		return "", usagef("this memvault is a temporary build (go run) in %s, deleted when it exits or when Go trims its build cache: install it (go install ./cmd/memvault) and run the installed memvault init --client %s, or pass --command PATH", filepath.Dir(exe), client.Name)
	}
	return exe, nil
}

// initClient writes the client's project files at root for the vault at
// dir: its MCP configuration, and its hooks, instructions or rule. All
// are computed first, so a file init refuses stops it before it changes
// another. It says what it did, with how to do the same by hand, and
// fills in the files it changed.
func (m *Main) initClient(client clientconfig.Client, dir, root, command string, steps *clitext.InitSteps) error {
	args := []string{"serve"}
	var vaultArgs []string
	// The server and the hooks find .memory at the git root of their
	// working directory, which the clients set to the project; name any
	// other vault.
	if dir != filepath.Join(root, ".memory") {
		vaultArgs = []string{"--vault", dir}
		args = append(args, vaultArgs...)
	}
	entry := clientconfig.Entry{Command: command, Args: args}
	hookEntry := clientconfig.Entry{Command: command, Args: vaultArgs}
	type file struct {
		change clientconfig.Change
		say    func(clientconfig.Change)
	}
	var files []file
	targets := map[string]bool{}
	add := func(ch clientconfig.Change, err error, say func(clientconfig.Change)) error {
		var invalid *clientconfig.InvalidError
		if errors.As(err, &invalid) {
			return usagef("%w; fix the file or move it away: memvault does not overwrite a file it cannot read", err)
		}
		if err != nil {
			return err
		}
		// CLAUDE.md is often a link to AGENTS.md: one file, one section.
		if !targets[ch.Target] {
			targets[ch.Target] = true
			files = append(files, file{ch, say})
		}
		return nil
	}
	ch, err := clientconfig.Plan(filepath.Join(root, client.File), client, entry)
	if err := add(ch, err, func(ch clientconfig.Change) { m.sayServer(client, ch, entry) }); err != nil {
		return err
	}
	if client.Settings != "" {
		ch, err := clientconfig.PlanHooks(filepath.Join(root, client.Settings), hookEntry)
		if err := add(ch, err, func(ch clientconfig.Change) { m.sayHooks(ch, hookEntry) }); err != nil {
			return err
		}
	}
	if client.Rule != "" {
		ch, err := clientconfig.PlanRule(filepath.Join(root, client.Rule))
		if err := add(ch, err, m.saySection); err != nil {
			return err
		}
	}
	if client.Instructions != "" {
		ch, err := clientconfig.PlanSection(filepath.Join(root, client.Instructions))
		if err := add(ch, err, m.saySection); err != nil {
			return err
		}
	}
	// AGENTS.md is for other agents too: memvault adds to it, never
	// creates it.
	if agents := filepath.Join(root, clientconfig.AgentsFile); exists(agents) {
		ch, err := clientconfig.PlanSection(agents)
		if err := add(ch, err, m.saySection); err != nil {
			return err
		}
	}
	for i, f := range files {
		if err := f.change.Apply(); err != nil {
			return err
		}
		f.say(f.change)
		changed := f.change.Result != clientconfig.Unchanged && f.change.Result != clientconfig.Kept
		switch {
		case i == 0:
			steps.Config, steps.ConfigChanged = f.change.Path, changed
		case changed && client.Settings != "" && f.change.Path == filepath.Join(root, client.Settings):
			steps.Hooks = f.change.Path
		case changed:
			steps.Files = append(steps.Files, f.change.Path)
		}
	}
	return nil
}

// sayServer says what init did with the MCP server's entry, and how to
// do the same by hand.
func (m *Main) sayServer(client clientconfig.Client, ch clientconfig.Change, entry clientconfig.Entry) {
	line, name, path := entry.CommandLine(), clientconfig.ServerName, ch.Path
	switch ch.Result {
	case clientconfig.Created:
		fmt.Fprintf(m.Stdout, "created %s with the MCP server %q: %s\n", path, name, line)
	case clientconfig.Added:
		fmt.Fprintf(m.Stdout, "added the MCP server %q to %s: %s\n", name, path, line)
	case clientconfig.Updated:
		fmt.Fprintf(m.Stdout, "updated the MCP server %q in %s: %s\n", name, path, line)
	case clientconfig.Unchanged:
		fmt.Fprintf(m.Stdout, "%s already runs the MCP server %q: %s\n", path, name, line)
	}
	switch client.Name {
	case "claude-code":
		fmt.Fprintf(m.Stdout, "the same with the Claude Code CLI: claude mcp add --scope project %s -- %s\n", name, line)
		fmt.Fprintf(m.Stdout, "or for you alone, without a file in the project: claude mcp add %s -- %s\n", name, line)
	case "cursor":
		fmt.Fprintf(m.Stdout, "Cursor reads it when it opens the project; check the server is enabled in Cursor's MCP settings\n")
	}
}

// sayHooks says what init did with the Claude Code hooks, one line per
// hook when it wrote them.
func (m *Main) sayHooks(ch clientconfig.Change, entry clientconfig.Entry) {
	switch ch.Result {
	case clientconfig.Created:
		fmt.Fprintf(m.Stdout, "created %s with the Claude Code hooks:\n", ch.Path)
	case clientconfig.Added:
		fmt.Fprintf(m.Stdout, "added the Claude Code hooks to %s:\n", ch.Path)
	case clientconfig.Updated:
		fmt.Fprintf(m.Stdout, "updated the Claude Code hooks in %s:\n", ch.Path)
	case clientconfig.Unchanged:
		fmt.Fprintf(m.Stdout, "%s already runs the Claude Code hooks\n", ch.Path)
		return
	}
	for _, h := range clientconfig.ClaudeHooks() {
		fmt.Fprintf(m.Stdout, "  %s: %s\n", h.Event, h.CommandLine(entry))
	}
}

// saySection says what init did with memvault's section of an
// instructions file or rule.
func (m *Main) saySection(ch clientconfig.Change) {
	const what = "memvault's section (when to recall and remember)"
	switch ch.Result {
	case clientconfig.Created:
		fmt.Fprintf(m.Stdout, "created %s with %s\n", ch.Path, what)
	case clientconfig.Added:
		fmt.Fprintf(m.Stdout, "added %s to %s\n", what, ch.Path)
	case clientconfig.Updated:
		fmt.Fprintf(m.Stdout, "updated %s in %s\n", what, ch.Path)
	case clientconfig.Unchanged:
		fmt.Fprintf(m.Stdout, "%s already has %s\n", ch.Path, what)
	case clientconfig.Kept:
		fmt.Fprintf(m.Stdout, "left %s as it is: it has no %s marker, so it is not memvault's; remove it and run init again to get memvault's\n", ch.Path, clientconfig.SectionBegin)
	}
}
