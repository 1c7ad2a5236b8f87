package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memvault/memvault/cmd/memvault/internal/clientconfig"
)

// TestInitClient runs memvault init --client in-process.
func TestInitClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		client   string
		vault    string // relative to the repository root
		existing string // the config file's content before; "" means none
		wantCode int
		wantFile string // relative to the repository root
		wantArgs []string
		wantOut  []string
	}{
		{
			name: "claude code, new file", client: "claude-code", vault: ".memory",
			wantFile: ".mcp.json", wantArgs: []string{"serve"},
			wantOut: []string{"created ", "claude mcp add --scope project memvault -- /opt/mv/memvault serve", "claude mcp add memvault -- /opt/mv/memvault serve",
				"next steps:", "add .memory .mcp.json && git -C ", `commit -m "memvault: add the project memory and its MCP server"`, `"enabledMcpjsonServers": ["memvault"]`},
		},
		{
			name: "cursor, beside other servers", client: "cursor", vault: ".memory",
			existing: `{"mcpServers": {"github": {"command": "npx"}}}`,
			wantFile: filepath.Join(".cursor", "mcp.json"), wantArgs: []string{"serve"},
			wantOut: []string{"added the MCP server \"memvault\"", "add .memory .cursor/mcp.json && git -C ", "is on in Cursor's MCP settings"},
		},
		{
			name: "a vault elsewhere is named", client: "claude-code", vault: "notes/memory",
			wantFile: ".mcp.json", wantArgs: []string{"serve", "--vault", "<root>/notes/memory"},
			wantOut: []string{"-- /opt/mv/memvault serve --vault "},
		},
		{
			name: "invalid JSON is refused", client: "claude-code", vault: ".memory",
			existing: "{\n  \"mcpServers\": {\n    \"a\": 1,\n  }\n}\n",
			wantCode: exitUsage, wantFile: ".mcp.json",
		},
		{name: "unknown client", client: "emacs", vault: ".memory", wantCode: exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newCLIRepo(t)
			r.dir = filepath.Join(r.root, filepath.FromSlash(tt.vault))
			cfg := filepath.Join(r.root, tt.wantFile)
			if tt.existing != "" {
				if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(cfg, []byte(tt.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out := r.run("", "init", "--client", tt.client, "--command", "/opt/mv/memvault")
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, r.lastStderr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if tt.wantCode != 0 {
				if tt.existing != "" {
					data, _ := os.ReadFile(cfg)
					if string(data) != tt.existing {
						t.Errorf("refused file was changed:\n%s", data)
					}
					if want := cfg + ":4:3: invalid JSON"; !strings.Contains(r.lastStderr, want) {
						t.Errorf("stderr = %q, want it to contain %q", r.lastStderr, want)
					}
				}
				if tt.client == "emacs" && exists(r.dir) {
					t.Errorf("an unknown client still created the vault")
				}
				return
			}
			data, err := os.ReadFile(cfg)
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
				t.Fatalf("%s: %v", cfg, err)
			}
			want := make([]string, len(tt.wantArgs))
			for i, a := range tt.wantArgs {
				want[i] = strings.ReplaceAll(a, "<root>", r.root)
			}
			if e := got.MCPServers[clientconfig.ServerName]; e.Command != "/opt/mv/memvault" || !reflect.DeepEqual(e.Args, want) {
				t.Errorf("entry = %+v, want /opt/mv/memvault %v", e, want)
			}
			if tt.existing != "" && len(got.MCPServers) != 2 {
				t.Errorf("servers = %v, want the existing one kept", got.MCPServers)
			}
			// Running it again leaves the file as it is.
			fi, _ := os.Stat(cfg)
			_, out = r.run("", "init", "--client", tt.client, "--command", "/opt/mv/memvault")
			again, _ := os.ReadFile(cfg)
			fi2, _ := os.Stat(cfg)
			if !bytes.Equal(again, data) || !fi2.ModTime().Equal(fi.ModTime()) || !strings.Contains(out, "already runs") {
				t.Errorf("second run changed the file or did not say so:\n%s", out)
			}
			if strings.Contains(out, "next steps") {
				t.Errorf("second run, which changed nothing, printed next steps:\n%s", out)
			}
		})
	}
}
