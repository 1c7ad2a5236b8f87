package clitext

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		terminal bool
		steps    [][3]int // done, total, milliseconds since the start
		want     string
	}{
		{"not a terminal: nothing", false, [][3]int{{1, 2, 0}, {2, 2, 500}}, ""},
		{"terminal: redrawn at most every 100 ms, always at the end, then cleared", true,
			[][3]int{{1, 4, 0}, {2, 4, 50}, {3, 4, 150}, {4, 4, 160}},
			"\rimporting [=======>                      ] 1/4" +
				"\rimporting [======================>       ] 3/4" +
				"\rimporting [==============================] 4/4\r\033[K"},
		{"terminal, nothing to do: nothing", true, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf strings.Builder
			b := NewProgress(&buf, "importing")
			b.on = tt.terminal // a strings.Builder is never a terminal
			start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			var at time.Time
			b.now = func() time.Time { return at }
			for _, s := range tt.steps {
				at = start.Add(time.Duration(s[2]) * time.Millisecond)
				b.Set(s[0], s[1])
			}
			b.Done()
			if got := buf.String(); got != tt.want {
				t.Errorf("drew %q, want %q", got, tt.want)
			}
		})
	}
}

// TestInitSteps checks the next steps init prints: what to commit, from
// where, and how to approve the server; nothing when nothing changed.
func TestInitSteps(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "shop")
	vaultDir := filepath.Join(root, ".memory")
	mcp := filepath.Join(root, ".mcp.json")
	cursor := filepath.Join(root, ".cursor", "mcp.json")
	slash := filepath.ToSlash
	tests := []struct {
		name    string
		steps   InitSteps
		wd      string
		want    []string // lines, in order
		notWant []string
	}{
		{
			name:  "claude code in a repository, from its root",
			steps: InitSteps{Root: root, InGit: true, Vault: vaultDir, VaultChanged: true, Client: "claude-code", Config: mcp, ConfigChanged: true, Command: "/usr/local/bin/memvault"},
			wd:    root,
			want: []string{
				"next steps:",
				"  1. commit the vault and .mcp.json, so everyone who clones the project gets them:",
				`       git add .memory .mcp.json && git commit -m "memvault: add the project memory and its MCP server"`,
				"     .mcp.json runs /usr/local/bin/memvault, a path on this machine; for a file the whole team uses, run init --client claude-code --command memvault",
				"  2. approve the server in Claude Code: it asks the first time it starts in this project (/mcp shows its state).",
				"     For headless use (claude -p), approve it in .claude/settings.json (shared) or .claude/settings.local.json (yours alone):",
				`       "enabledMcpjsonServers": ["memvault"]`,
			},
		},
		{
			name: "claude code with hooks and instructions",
			steps: InitSteps{Root: root, InGit: true, Vault: vaultDir, VaultChanged: true, Client: "claude-code", Config: mcp, ConfigChanged: true, Command: "/usr/local/bin/memvault",
				Hooks: filepath.Join(root, ".claude", "settings.json"), Files: []string{filepath.Join(root, "CLAUDE.md"), filepath.Join(root, "AGENTS.md")}},
			wd: root,
			want: []string{
				"  1. commit the vault, .mcp.json, .claude/settings.json, CLAUDE.md and AGENTS.md, so everyone who clones the project gets them:",
				`       git add .memory .mcp.json .claude/settings.json CLAUDE.md AGENTS.md && git commit -m "memvault: add the project memory and its MCP server"`,
				"     .mcp.json and .claude/settings.json run /usr/local/bin/memvault, a path on this machine; for a file the whole team uses, run init --client claude-code --command memvault",
				"  2. approve the server in Claude Code: it asks the first time it starts in this project (/mcp shows its state).",
			},
		},
		{
			name:    "only the hooks changed",
			steps:   InitSteps{Root: root, InGit: true, Vault: vaultDir, Client: "claude-code", Config: mcp, Command: "memvault", Hooks: filepath.Join(root, ".claude", "settings.json")},
			wd:      root,
			want:    []string{"  1. commit .claude/settings.json, so everyone who clones the project gets it:", `       git add .claude/settings.json && git commit -m "memvault: set up the assistant for the project memory"`},
			notWant: []string{"approve the server", "a path on this machine", ".mcp.json"},
		},
		{
			name:    "only the rule changed, the command an absolute path",
			steps:   InitSteps{Root: root, InGit: true, Vault: vaultDir, Client: "cursor", Config: cursor, Command: "/usr/local/bin/memvault", Files: []string{filepath.Join(root, ".cursor", "rules", "memvault.mdc")}},
			wd:      root,
			want:    []string{`       git add .cursor/rules/memvault.mdc && git commit -m "memvault: set up the assistant for the project memory"`},
			notWant: []string{"a path on this machine", "enable the server"},
		},
		{
			name:    "cursor, vault already there, command on PATH, from a subfolder",
			steps:   InitSteps{Root: root, InGit: true, Vault: vaultDir, Client: "cursor", Config: cursor, ConfigChanged: true, Command: "memvault"},
			wd:      filepath.Join(root, "src", "app"),
			want:    []string{"  1. commit .cursor/mcp.json, so everyone who clones the project gets it:", `       git add ../../.cursor/mcp.json && git commit -m "memvault: register the MCP server"`, `  2. enable the server in Cursor: open the project, then check that "memvault" is on in Cursor's MCP settings`},
			notWant: []string{"a path on this machine", "enabledMcpjsonServers", ".memory"},
		},
		{
			name:    "vault only: connect an assistant next",
			steps:   InitSteps{Root: root, InGit: true, Vault: vaultDir, VaultChanged: true},
			wd:      root,
			want:    []string{`       git add .memory && git commit -m "memvault: add the project memory"`, "  2. connect an assistant: memvault init --client claude-code (or --client cursor)"},
			notWant: []string{".mcp.json", "enabledMcpjsonServers"},
		},
		{
			name:  "outside git, run from inside the project",
			steps: InitSteps{Root: root, Vault: filepath.Join(root, "notes"), VaultChanged: true},
			wd:    filepath.Join(root, "sub"),
			want:  []string{"  1. make the project a git repository and commit the vault:", `       git init .. && git add ../notes && git commit -m "memvault: add the project memory"`},
		},
		{
			name:  "outside git, run from elsewhere",
			steps: InitSteps{Root: root, Vault: vaultDir, VaultChanged: true},
			wd:    tmp,
			want:  []string{`       git init ` + slash(root) + ` && git -C ` + slash(root) + ` add .memory && git -C ` + slash(root) + ` commit -m "memvault: add the project memory"`},
		},
		{
			name:  "a path with a space is quoted",
			steps: InitSteps{Root: root, InGit: true, Vault: filepath.Join(root, "team notes"), VaultChanged: true},
			wd:    root,
			want:  []string{`       git add 'team notes' && git commit -m "memvault: add the project memory"`},
		},
		{
			name:    "nothing changed: no steps",
			steps:   InitSteps{Root: root, InGit: true, Vault: vaultDir, Client: "claude-code", Config: mcp, Command: "/usr/local/bin/memvault"},
			wd:      root,
			notWant: []string{"next steps", "git"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			tt.steps.Print(&b, tt.wd)
			out := b.String()
			at := 0
			for _, w := range tt.want {
				i := strings.Index(out[at:], w+"\n")
				if i < 0 {
					t.Fatalf("output lacks the line %q (in order):\n%s", w, out)
				}
				at += i + len(w)
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output holds %q:\n%s", w, out)
				}
			}
		})
	}
}
