package clitext

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
)

// InitSteps is what init did, for the next steps it prints.
type InitSteps struct {
	Root          string // the project root: the git root holding the vault, else the vault's parent
	InGit         bool   // Root is a git repository
	Vault         string // the vault folder
	VaultChanged  bool   // init created something in it
	Client        string // the --client name; "" without --client
	Config        string // the client configuration file, with --client
	ConfigChanged bool   // init wrote it
	Command       string // the server command the configuration runs
	// Hooks is the client settings file with memvault's hooks, when init
	// wrote it: it runs Command too.
	Hooks string
	// Files are the other files init wrote for the client: instructions
	// and rules.
	Files []string
}

// Print writes the steps left to the user, as commands to paste in wd:
// commit what init created, so every clone has the vault and the server;
// then approve the server in the client, or connect one. A run that
// changed nothing prints none.
func (s InitSteps) Print(w io.Writer, wd string) {
	type step struct {
		title string
		lines []string // below the title; commands are indented further
	}
	var steps []step
	// Paths as typed in wd when wd is in the project, else with git -C.
	git, base := "git", wd
	if _, ok := within(s.Root, wd); !ok {
		git, base = "git -C "+clientconfig.ShellQuote(filepath.ToSlash(s.Root)), s.Root
	}
	rel := func(p string) string { return relPath(base, p) }
	var add, names []string
	if s.VaultChanged {
		add, names = append(add, rel(s.Vault)), append(names, "the vault")
	}
	// name is how a file is named in a title: from the project root.
	name := func(p string) string {
		if r, ok := within(s.Root, p); ok {
			return filepath.ToSlash(r)
		}
		return filepath.ToSlash(p)
	}
	var runs []string // the files that run Command
	if s.ConfigChanged {
		add, names, runs = append(add, rel(s.Config)), append(names, name(s.Config)), append(runs, name(s.Config))
	}
	if s.Hooks != "" {
		add, names, runs = append(add, rel(s.Hooks)), append(names, name(s.Hooks)), append(runs, name(s.Hooks))
	}
	for _, f := range s.Files {
		add, names = append(add, rel(f)), append(names, name(f))
	}
	if len(add) > 0 {
		client := s.ConfigChanged || s.Hooks != "" || len(s.Files) > 0
		msg := "memvault: add the project memory"
		switch {
		case client && s.VaultChanged:
			msg = "memvault: add the project memory and its MCP server"
		case s.ConfigChanged:
			msg = "memvault: register the MCP server"
		case client:
			msg = "memvault: set up the assistant for the project memory"
		}
		cmd := fmt.Sprintf("%s add %s && %s commit -m %q", git, strings.Join(add, " "), git, msg)
		st := step{title: "commit " + joinAnd(names) + ", so everyone who clones the project gets it:"}
		if len(names) > 1 {
			st.title = "commit " + joinAnd(names) + ", so everyone who clones the project gets them:"
		}
		if !s.InGit {
			// git init takes the folder as seen from wd.
			init := "git init"
			if r := relPath(wd, s.Root); base != wd {
				init += " " + clientconfig.ShellQuote(filepath.ToSlash(s.Root))
			} else if r != "." {
				init += " " + r
			}
			st.title = "make the project a git repository and commit " + joinAnd(names) + ":"
			cmd = init + " && " + cmd
		}
		st.lines = append(st.lines, "  "+cmd)
		if len(runs) > 0 && filepath.IsAbs(s.Command) {
			verb := "runs"
			if len(runs) > 1 {
				verb = "run"
			}
			st.lines = append(st.lines, fmt.Sprintf("%s %s %s, a path on this machine; for a file the whole team uses, run init --client %s --command memvault",
				joinAnd(runs), verb, clientconfig.ShellQuote(s.Command), s.Client))
		}
		steps = append(steps, st)
	}
	switch {
	case s.Client == "claude-code" && s.ConfigChanged:
		steps = append(steps, step{
			title: "approve the server in Claude Code: it asks the first time it starts in this project (/mcp shows its state).",
			lines: []string{
				"For headless use (claude -p), approve it in .claude/settings.json (shared) or .claude/settings.local.json (yours alone):",
				fmt.Sprintf("  \"enabledMcpjsonServers\": [%q]", clientconfig.ServerName),
			},
		})
	case s.Client == "cursor" && s.ConfigChanged:
		steps = append(steps, step{title: fmt.Sprintf("enable the server in Cursor: open the project, then check that %q is on in Cursor's MCP settings", clientconfig.ServerName)})
	case s.Client == "" && s.VaultChanged:
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

// joinAnd joins names as a sentence does: "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
