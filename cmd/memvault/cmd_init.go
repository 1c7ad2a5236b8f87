package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
	"github.com/memvault/memvault/gitstore"
	"github.com/memvault/memvault/vault"
)

func (m *Main) initCommand() *cobra.Command {
	var withGit bool
	var clientName, command string
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create the vault folders, README and .gitignore; --client sets up Claude Code or Cursor",
		Long: `init creates .memory/ (or --vault) with one folder per layer, a README.md
explaining the format to people, and a .gitignore that keeps transient/ (L1
session scratch) out of git. Existing files are left as they are.

With --client, init also registers "memvault serve" as the project's MCP
server for that client, in the project root (the git root holding the
vault): .mcp.json for claude-code, .cursor/mcp.json for cursor. The entry
runs this binary by its absolute path (or --command). Other servers in the
file are kept as they are, a file that is not valid JSON is refused, and
running it again changes nothing.`,
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
			steps := initSteps{vault: dir, vaultChanged: len(created) > 0, client: clientName, command: command}
			steps.root, steps.inGit = gitRoot(filepath.Dir(dir))
			if !steps.inGit {
				steps.root = filepath.Dir(dir)
			}
			if clientName != "" {
				if steps.config, steps.configChanged, err = m.initClient(client, dir, steps.root, command); err != nil {
					return err
				}
			}
			wd, _ := os.Getwd()
			steps.print(m.Stdout, wd)
			return nil
		},
	}
	cmd.Flags().BoolVar(&withGit, "git", false, "also run git init in the vault's parent folder when it is not in a git repository")
	cmd.Flags().StringVar(&clientName, "client", "", "also register memvault as an MCP server for this client: claude-code (.mcp.json) or cursor (.cursor/mcp.json)")
	cmd.Flags().StringVar(&command, "command", "", "with --client: the server command to write (default: this binary's absolute path)")
	return cmd
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

// initClient writes the client's project configuration at root for the
// vault at dir and says how to do the same by hand. It returns the file's
// path and whether it changed.
func (m *Main) initClient(client clientconfig.Client, dir, root, command string) (string, bool, error) {
	args := []string{"serve"}
	// The server finds .memory at the git root of its working directory,
	// which the clients set to the project; name any other vault.
	if dir != filepath.Join(root, ".memory") {
		args = append(args, "--vault", dir)
	}
	path := filepath.Join(root, client.File)
	entry := clientconfig.Entry{Command: command, Args: args}
	res, err := clientconfig.Write(path, client, entry)
	var invalid *clientconfig.InvalidError
	if errors.As(err, &invalid) {
		return "", false, usagef("%w; fix the file or move it away: memvault does not overwrite a file it cannot read", err)
	}
	if err != nil {
		return "", false, err
	}
	line, name := entry.CommandLine(), clientconfig.ServerName
	switch res {
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
	return path, res != clientconfig.Unchanged, nil
}

// initSteps is what init did, for the next steps it prints.
type initSteps struct {
	root          string // the project root: the git root holding the vault, else the vault's parent
	inGit         bool   // root is a git repository
	vault         string // the vault folder
	vaultChanged  bool   // init created something in it
	client        string // the --client name; "" without --client
	config        string // the client configuration file, with --client
	configChanged bool   // init wrote it
	command       string // the server command the configuration runs
}

// print writes the steps left to the user, as commands to paste in wd:
// commit what init created, so every clone has the vault and the server;
// then approve the server in the client, or connect one. A run that
// changed nothing prints none.
func (s initSteps) print(w io.Writer, wd string) {
	type step struct {
		title string
		lines []string // below the title; commands are indented further
	}
	var steps []step
	// Paths as typed in wd when wd is in the project, else with git -C.
	git, base := "git", wd
	if _, ok := within(s.root, wd); !ok {
		git, base = "git -C "+clientconfig.ShellQuote(filepath.ToSlash(s.root)), s.root
	}
	rel := func(p string) string { return relPath(base, p) }
	var add, names []string
	if s.vaultChanged {
		add, names = append(add, rel(s.vault)), append(names, "the vault")
	}
	if s.configChanged {
		name := filepath.ToSlash(s.config)
		if r, ok := within(s.root, s.config); ok {
			name = filepath.ToSlash(r)
		}
		add, names = append(add, rel(s.config)), append(names, name)
	}
	if len(add) > 0 {
		msg := "memvault: add the project memory"
		switch {
		case s.configChanged && s.vaultChanged:
			msg = "memvault: add the project memory and its MCP server"
		case s.configChanged:
			msg = "memvault: register the MCP server"
		}
		cmd := fmt.Sprintf("%s add %s && %s commit -m %q", git, strings.Join(add, " "), git, msg)
		st := step{title: "commit " + strings.Join(names, " and ") + ", so everyone who clones the project gets it:"}
		if len(names) > 1 {
			st.title = "commit " + strings.Join(names, " and ") + ", so everyone who clones the project gets them:"
		}
		if !s.inGit {
			// git init takes the folder as seen from wd.
			init := "git init"
			if r := relPath(wd, s.root); base != wd {
				init += " " + clientconfig.ShellQuote(filepath.ToSlash(s.root))
			} else if r != "." {
				init += " " + r
			}
			st.title = "make the project a git repository and commit " + strings.Join(names, " and ") + ":"
			cmd = init + " && " + cmd
		}
		st.lines = append(st.lines, "  "+cmd)
		if s.configChanged && filepath.IsAbs(s.command) {
			st.lines = append(st.lines, fmt.Sprintf("%s runs %s, a path on this machine; for a file the whole team uses, run init --client %s --command memvault",
				names[len(names)-1], clientconfig.ShellQuote(s.command), s.client))
		}
		steps = append(steps, st)
	}
	switch {
	case s.client == "claude-code" && s.configChanged:
		steps = append(steps, step{
			title: "approve the server in Claude Code: it asks the first time it starts in this project (/mcp shows its state).",
			lines: []string{
				"For headless use (claude -p), approve it in .claude/settings.json (shared) or .claude/settings.local.json (yours alone):",
				fmt.Sprintf("  \"enabledMcpjsonServers\": [%q]", clientconfig.ServerName),
			},
		})
	case s.client == "cursor" && s.configChanged:
		steps = append(steps, step{title: fmt.Sprintf("enable the server in Cursor: open the project, then check that %q is on in Cursor's MCP settings", clientconfig.ServerName)})
	case s.client == "" && s.vaultChanged:
		steps = append(steps, step{title: "connect an assistant: memvault init --client claude-code (or --client cursor)"})
	}
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(w, "\nnext steps:\n")
	for i, st := range steps {
		fmt.Fprintf(w, "  %d. %s\n", i+1, st.title)
		for _, l := range st.lines {
			fmt.Fprintf(w, "     %s\n", l)
		}
	}
}

// relPath is path relative to dir, for a command run in dir (both in
// the same project), quoted for the shell.
func relPath(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		path = rel
	}
	return clientconfig.ShellQuote(filepath.ToSlash(path))
}

// within returns path relative to dir when path is dir or inside it.
func within(dir, path string) (string, bool) {
	if dir == "" || path == "" {
		return "", false
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
