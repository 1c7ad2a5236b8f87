package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
)

// TestInitClient runs memvault init --client in-process: the MCP
// configuration, Claude Code's hooks, the instructions section and
// Cursor's rule, then a second run that changes nothing.
func TestInitClient(t *testing.T) {
	skipLongUnderShort(t)
	t.Parallel()
	settings := filepath.Join(".claude", "settings.json")
	rule := filepath.Join(".cursor", "rules", "memvault.mdc")
	tests := []struct {
		name     string
		client   string
		vault    string            // relative to the repository root
		existing map[string]string // files before, relative to the repository root
		wantCode int
		wantFile string   // the MCP configuration, relative to the repository root
		wantArgs []string // its server's args
		// wantHooks: the hooks' args after the subcommand; nil for no
		// settings file.
		wantHooks []string
		// wantSection lists the files that must hold memvault's section;
		// wantAbsent the files that must not exist.
		wantSection, wantAbsent []string
		wantOut                 []string
		wantErr                 string // in stderr, with <root> for the root
	}{
		{
			name: "claude code, new files", client: "claude-code", vault: ".memory",
			wantFile: ".mcp.json", wantArgs: []string{"serve"}, wantHooks: []string{},
			wantSection: []string{"CLAUDE.md"}, wantAbsent: []string{"AGENTS.md", rule},
			wantOut: []string{"created ", "claude mcp add --scope project memvault -- /opt/mv/memvault serve", "claude mcp add memvault -- /opt/mv/memvault serve",
				"settings.json with the Claude Code hooks:\n  SessionStart: /opt/mv/memvault hook session-start\n  UserPromptSubmit: /opt/mv/memvault hook user-prompt-submit\n  Stop: /opt/mv/memvault hook stop\n",
				"CLAUDE.md with memvault's section",
				"next steps:", "add .memory .mcp.json .claude/settings.json CLAUDE.md && git -C ", `commit -m "memvault: add the project memory and its MCP server"`,
				".mcp.json and .claude/settings.json run /opt/mv/memvault, a path on this machine", `"enabledMcpjsonServers": ["memvault"]`},
		},
		{
			name: "claude code, beside the user's settings, instructions and AGENTS.md", client: "claude-code", vault: ".memory",
			existing: map[string]string{
				settings:    `{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`,
				"CLAUDE.md": "# House rules\n\nUse tabs.\n",
				"AGENTS.md": "# Agents\n",
			},
			wantFile: ".mcp.json", wantArgs: []string{"serve"}, wantHooks: []string{},
			wantSection: []string{"CLAUDE.md", "AGENTS.md"},
			wantOut:     []string{"added the Claude Code hooks to ", "added memvault's section (when to recall and remember) to ", "CLAUDE.md and AGENTS.md, so everyone"},
		},
		{
			name: "cursor, beside other servers and AGENTS.md", client: "cursor", vault: ".memory",
			existing: map[string]string{filepath.Join(".cursor", "mcp.json"): `{"mcpServers": {"github": {"command": "npx"}}}`, "AGENTS.md": "# Agents\n"},
			wantFile: filepath.Join(".cursor", "mcp.json"), wantArgs: []string{"serve"},
			wantSection: []string{rule, "AGENTS.md"}, wantAbsent: []string{"CLAUDE.md", settings},
			wantOut: []string{"added the MCP server \"memvault\"", "memvault.mdc with memvault's section", "add .memory .cursor/mcp.json .cursor/rules/memvault.mdc AGENTS.md && git -C ", "is on in Cursor's MCP settings"},
		},
		{
			name: "cursor, the user's own rule kept", client: "cursor", vault: ".memory",
			existing: map[string]string{rule: "---\nalwaysApply: true\n---\nAsk the memory first.\n"},
			wantFile: filepath.Join(".cursor", "mcp.json"), wantArgs: []string{"serve"}, wantAbsent: []string{"AGENTS.md", "CLAUDE.md"},
			wantOut: []string{"left <root>/.cursor/rules/memvault.mdc as it is: it has no <!-- memvault:begin --> marker"},
		},
		{
			name: "a vault elsewhere is named", client: "claude-code", vault: "notes/memory",
			wantFile: ".mcp.json", wantArgs: []string{"serve", "--vault", "<root>/notes/memory"}, wantHooks: []string{"--vault", "<root>/notes/memory"},
			wantSection: []string{"CLAUDE.md"},
			wantOut:     []string{"-- /opt/mv/memvault serve --vault ", "Stop: /opt/mv/memvault hook stop --vault <root>/notes/memory\n"},
		},
		{
			name: "invalid .mcp.json is refused", client: "claude-code", vault: ".memory",
			existing: map[string]string{".mcp.json": "{\n  \"mcpServers\": {\n    \"a\": 1,\n  }\n}\n"},
			wantCode: exitUsage, wantAbsent: []string{settings, "CLAUDE.md"},
			wantErr: "<root>/.mcp.json:4:3: invalid JSON",
		},
		{
			// Nothing is written: not .mcp.json, not CLAUDE.md.
			name: "invalid settings.json is refused", client: "claude-code", vault: ".memory",
			existing: map[string]string{settings: "{\n  \"hooks\": [],\n}\n"},
			wantCode: exitUsage, wantAbsent: []string{".mcp.json", "CLAUDE.md"},
			wantErr: "<root>/.claude/settings.json:3:1: invalid JSON",
		},
		{
			name: "hooks of the wrong type are refused", client: "claude-code", vault: ".memory",
			existing: map[string]string{settings: `{"hooks": []}`},
			wantCode: exitUsage, wantAbsent: []string{".mcp.json", "CLAUDE.md"},
			wantErr: "<root>/.claude/settings.json: hooks: want a JSON object, found an array; fix the file or move it away",
		},
		{
			name: "a broken section is refused", client: "cursor", vault: ".memory",
			existing: map[string]string{"AGENTS.md": "# Agents\n<!-- memvault:begin -->\n"},
			wantCode: exitUsage, wantAbsent: []string{filepath.Join(".cursor", "mcp.json"), rule},
			wantErr: "<root>/AGENTS.md:2:1: <!-- memvault:begin --> has no <!-- memvault:end --> after it",
		},
		{name: "unknown client", client: "emacs", vault: ".memory", wantCode: exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newCLIRepo(t)
			r.dir = filepath.Join(r.root, filepath.FromSlash(tt.vault))
			at := func(rel string) string { return filepath.Join(r.root, rel) }
			fill := func(s string) string { return strings.ReplaceAll(s, "<root>", filepath.ToSlash(r.root)) }
			for rel, content := range tt.existing {
				if err := os.MkdirAll(filepath.Dir(at(rel)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(at(rel), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out := r.run("", "init", "--client", tt.client, "--command", "/opt/mv/memvault")
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, r.lastStderr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, fill(w)) {
					t.Errorf("stdout lacks %q:\n%s", fill(w), out)
				}
			}
			if tt.wantErr != "" && !strings.Contains(r.lastStderr, fill(tt.wantErr)) {
				t.Errorf("stderr = %q, want it to contain %q", r.lastStderr, fill(tt.wantErr))
			}
			for _, rel := range tt.wantAbsent {
				if exists(at(rel)) {
					t.Errorf("%s was written", rel)
				}
			}
			if tt.wantCode != 0 {
				for rel, content := range tt.existing {
					if data, _ := os.ReadFile(at(rel)); string(data) != content {
						t.Errorf("%s was changed:\n%s", rel, data)
					}
				}
				if tt.client == "emacs" && exists(r.dir) {
					t.Errorf("an unknown client still created the vault")
				}
				return
			}
			checkServer(t, at(tt.wantFile), fillAll(fill, tt.wantArgs), len(tt.existing[tt.wantFile]) > 0)
			if tt.wantHooks != nil {
				checkHookCommands(t, at(settings), "/opt/mv/memvault", fillAll(fill, tt.wantHooks))
			}
			for _, rel := range tt.wantSection {
				data, err := os.ReadFile(at(rel))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), clientconfig.Section()) {
					t.Errorf("%s lacks memvault's section:\n%s", rel, data)
				}
				if before := tt.existing[rel]; !strings.HasPrefix(string(data), before) {
					t.Errorf("%s lost the user's text %q:\n%s", rel, before, data)
				}
			}

			// Running it again leaves every file as it is.
			written := map[string][]byte{}
			stamps := map[string]time.Time{}
			for _, rel := range append([]string{tt.wantFile, settings, rule, "CLAUDE.md", "AGENTS.md"}, tt.wantSection...) {
				if data, err := os.ReadFile(at(rel)); err == nil {
					fi, _ := os.Stat(at(rel))
					written[rel], stamps[rel] = data, fi.ModTime()
				}
			}
			_, out = r.run("", "init", "--client", tt.client, "--command", "/opt/mv/memvault")
			for rel, data := range written {
				again, _ := os.ReadFile(at(rel))
				fi, _ := os.Stat(at(rel))
				if !bytes.Equal(again, data) || !fi.ModTime().Equal(stamps[rel]) {
					t.Errorf("second run changed %s", rel)
				}
			}
			if !strings.Contains(out, "already runs the MCP server") || strings.Contains(out, "created") || strings.Contains(out, "added") || strings.Contains(out, "updated") {
				t.Errorf("second run did not say it changed nothing:\n%s", out)
			}
			if strings.Contains(out, "next steps") {
				t.Errorf("second run, which changed nothing, printed next steps:\n%s", out)
			}
		})
	}
}

func fillAll(fill func(string) string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fill(a)
	}
	return out
}

// checkServer fails unless the MCP configuration at path runs
// /opt/mv/memvault with args, beside the server that was there before.
func checkServer(t *testing.T, path string, args []string, hadOther bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if e := got.MCPServers[clientconfig.ServerName]; e.Command != "/opt/mv/memvault" || !reflect.DeepEqual(e.Args, args) {
		t.Errorf("entry = %+v, want /opt/mv/memvault %v", e, args)
	}
	if hadOther && len(got.MCPServers) != 2 {
		t.Errorf("servers = %v, want the existing one kept", got.MCPServers)
	}
}

// checkHookCommands fails unless the settings at path run, for each
// event, memvault's hook as the contract says: command, timeout, and
// SessionStart's matcher.
func checkHookCommands(t *testing.T, path, command string, args []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, h := range clientconfig.ClaudeHooks() {
		want := clientconfig.Entry{Command: command, Args: append([]string{"hook", h.Command}, args...)}.CommandLine()
		n := 0
		for _, g := range got.Hooks[h.Event] {
			for _, c := range g.Hooks {
				if c.Command != want {
					continue
				}
				n++
				if c.Type != "command" || c.Timeout != 10 || g.Matcher != h.Matcher {
					t.Errorf("%s: %+v in a group matching %q, want type command, timeout 10, matcher %q", h.Event, c, g.Matcher, h.Matcher)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s runs %q %d times, want once:\n%s", h.Event, want, n, data)
		}
	}
}
